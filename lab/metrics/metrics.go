package metrics

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/veclab/veclab/engine"
)

// RecallIDs is recall@k of one query: the share of the first k true ids
// found among the first k returned ids (see the package doc for the
// denominator).
func RecallIDs(got, truth []engine.ID, k int) float64 {
	want := truth[:min(k, len(truth))]
	if len(want) == 0 {
		return 1
	}
	got = got[:min(k, len(got))]
	hits := 0
	for _, id := range got {
		if slices.Contains(want, id) {
			hits++
		}
	}
	return float64(hits) / float64(len(want))
}

// Recall is RecallIDs over search results.
func Recall(got []engine.Result, truth []engine.ID, k int) float64 {
	ids := make([]engine.ID, 0, min(k, len(got)))
	for i := 0; i < len(got) && i < k; i++ {
		ids = append(ids, got[i].ID)
	}
	return RecallIDs(ids, truth, k)
}

// MeanRecall averages Recall over queries; results and truth must have one
// entry per query.
func MeanRecall(results [][]engine.Result, truth [][]engine.ID, k int) (float64, error) {
	if len(results) != len(truth) {
		return 0, fmt.Errorf("metrics: %d result lists for %d truth lists: %w", len(results), len(truth), engine.ErrInvalidArgument)
	}
	if err := engine.CheckK(k); err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	if len(results) == 0 {
		return 0, fmt.Errorf("metrics: no queries: %w", engine.ErrEmpty)
	}
	var s float64
	for q := range results {
		s += Recall(results[q], truth[q], k)
	}
	return s / float64(len(results)), nil
}

// MeanHits is the mean number of results per query (pgvector's filtered
// shortfall shows here: ≈ ef_search × selectivity).
func MeanHits(results [][]engine.Result) float64 {
	if len(results) == 0 {
		return 0
	}
	n := 0
	for _, r := range results {
		n += len(r)
	}
	return float64(n) / float64(len(results))
}

// Quantile returns the nearest-rank q-quantile (0 < q ≤ 1) of ds without
// modifying it; it returns 0 for an empty sample.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[rank(len(s), q)]
}

// rank is the 0-based nearest-rank index of quantile q in n sorted samples.
func rank(n int, q float64) int {
	i := int(math.Ceil(q*float64(n))) - 1
	return max(0, min(i, n-1))
}

// Latency summarises a sample of per-query latencies.
type Latency struct {
	N                   int
	Mean, P50, P95, P99 time.Duration
	Min, Max            time.Duration
}

// Summarize computes a Latency from ds (not modified).
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Latency{
		N:    len(s),
		Mean: sum / time.Duration(len(s)),
		P50:  s[rank(len(s), 0.50)],
		P95:  s[rank(len(s), 0.95)],
		P99:  s[rank(len(s), 0.99)],
		Min:  s[0],
		Max:  s[len(s)-1],
	}
}

// String prints "p50 1.2ms p95 3.4ms p99 5.6ms (n=100)".
func (l Latency) String() string {
	return fmt.Sprintf("p50 %v p95 %v p99 %v (n=%d)", l.P50, l.P95, l.P99, l.N)
}

// QPS is queries per second: n queries in elapsed wall time (0 if elapsed
// is not positive).
func QPS(n int, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Seconds()
}

// BytesPerVector is a footprint divided by the number of vectors (0 when
// there are none).
func BytesPerVector(totalBytes int64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(totalBytes) / float64(n)
}

// Point is one setting of a recall/speed sweep (an ef, a visit percentage…).
type Point struct {
	Label  string  // e.g. "ef=64"
	Param  float64 // the swept parameter's value
	Recall float64
	QPS    float64
}

// QPSAtRecall reads a sweep at a target recall: the points are ordered by
// recall and the QPS is interpolated linearly in recall between the last
// point below the target and the first at or above it (the first point's
// QPS if it already reaches the target). ok is false when no point reaches
// the target.
func QPSAtRecall(sweep []Point, target float64) (qps float64, ok bool) {
	pts := slices.Clone(sweep)
	slices.SortStableFunc(pts, func(a, b Point) int {
		switch {
		case a.Recall < b.Recall:
			return -1
		case a.Recall > b.Recall:
			return 1
		case a.QPS > b.QPS:
			return -1
		case a.QPS < b.QPS:
			return 1
		}
		return 0
	})
	for i, p := range pts {
		if p.Recall < target {
			continue
		}
		if i == 0 || p.Recall == target {
			return p.QPS, true
		}
		lo := pts[i-1]
		t := (target - lo.Recall) / (p.Recall - lo.Recall)
		return lo.QPS + t*(p.QPS-lo.QPS), true
	}
	return 0, false
}

// FirstReaching returns the point of smallest Param whose recall is at
// least target (the "smallest ef reaching the recall" reading of a sweep).
func FirstReaching(sweep []Point, target float64) (Point, bool) {
	var best Point
	found := false
	for _, p := range sweep {
		if p.Recall >= target && (!found || p.Param < best.Param) {
			best, found = p, true
		}
	}
	return best, found
}

// BestAt returns the fastest point of a sweep whose recall is at least
// target (the "best swept setting reaching the recall" reading, which
// compares two systems at matched recall without interpolating); ok is
// false when no point reaches the target. Ties keep the earlier point.
func BestAt(sweep []Point, target float64) (best Point, ok bool) {
	for _, p := range sweep {
		if p.Recall >= target && (!ok || p.QPS > best.QPS) {
			best, ok = p, true
		}
	}
	return best, ok
}

// Pair is a point of sweep A matched with the point of sweep B whose
// recall is nearest.
type Pair struct {
	A, B Point
	// RecallGap is A.Recall − B.Recall.
	RecallGap float64
	// Speedup is A.QPS / B.QPS (0 if B.QPS is 0).
	Speedup float64
}

// PairByRecall matches every point of a with the point of b of nearest
// achieved recall (ties: the faster b point), in a's order: the
// matched-recall comparison of two systems.
func PairByRecall(a, b []Point) []Pair {
	if len(b) == 0 {
		return nil
	}
	out := make([]Pair, 0, len(a))
	for _, pa := range a {
		best := b[0]
		for _, pb := range b[1:] {
			d, db := math.Abs(pb.Recall-pa.Recall), math.Abs(best.Recall-pa.Recall)
			if d < db || d == db && pb.QPS > best.QPS {
				best = pb
			}
		}
		p := Pair{A: pa, B: best, RecallGap: pa.Recall - best.Recall}
		if best.QPS != 0 {
			p.Speedup = pa.QPS / best.QPS
		}
		out = append(out, p)
	}
	return out
}

// PairWithin is [PairByRecall] keeping only the pairs whose recalls are
// within tol of each other: a speed-up between points of different
// recall compares two trade-offs, not two speeds. Points of a without a
// partner that close are left out.
func PairWithin(a, b []Point, tol float64) []Pair {
	var out []Pair
	for _, p := range PairByRecall(a, b) {
		if math.Abs(p.RecallGap) <= tol {
			out = append(out, p)
		}
	}
	return out
}
