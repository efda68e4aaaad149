package metrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/veclab/veclab/engine"
)

// RecallDefinition states, once, what every recall figure of the lab
// means; tables print [RecallHeader] and cite it.
const RecallDefinition = "recall@k = |returned top k ∩ true top k| / k (k = |true top k| when a filter leaves fewer than k matches)"

// RecallHeader is the column header of a recall@k figure, e.g. "recall@10".
func RecallHeader(k int) string { return fmt.Sprintf("recall@%d", k) }

// Pick says how a [Loop] reads its timed passes as one QPS figure.
type Pick int

const (
	// AllPasses divides every timed query by the time of every pass:
	// the mean throughput.
	AllPasses Pick = iota
	// MedianPass is the QPS of the median pass: one stall of a shared
	// machine moves neither it nor the latency quantiles much.
	MedianPass
	// BestPass is the QPS of the fastest pass (best-of-N): the cost of
	// the search itself, with as little of the machine's other work in it
	// as N passes allow.
	BestPass
	// BestPerQuery keeps each query's fastest time over the passes; QPS
	// is the queries over the sum of those minima and the latency
	// quantiles are over the minima (with per-pass timing it is BestPass).
	BestPerQuery
)

// String names the pick as a table note prints it.
func (p Pick) String() string {
	switch p {
	case AllPasses:
		return "all passes"
	case MedianPass:
		return "median pass"
	case BestPass:
		return "best pass"
	case BestPerQuery:
		return "best time per query"
	}
	return fmt.Sprintf("Pick(%d)", int(p))
}

// Query answers query i in pass pass (pass −1 is the warm-up; timed
// passes count from 0). Only the call is timed. The results are scored
// (recall, hits) in pass 0 before the next call, so the slice may be a
// buffer the next call reuses; a caller that counts per-query statistics
// counts them when pass is 0.
type Query func(pass, i int) ([]engine.Result, error)

// Loop is the one measuring loop of the lab: warm-up, timed passes over
// the queries, recall@K against exact truth, QPS, latency quantiles. The
// zero value of an optional field is its default.
type Loop struct {
	Queries int           // queries 0…Queries−1 (required, ≥ 1)
	K       int           // recall@K (required when Truth is set, ≥ 1)
	Truth   [][]engine.ID // exact top-K ids per query, nearest first; nil: no recall
	// Key maps a result's id to the truth's id space before scoring
	// (outside the timing); nil: the identity.
	Key func(engine.ID) engine.ID

	Warmup int // untimed queries 0…Warmup−1 before the timed passes (capped at Queries)
	// Passes is the least number of timed passes over all queries
	// (default 1); MinTime adds passes until the timed passes together
	// took at least that long, and MaxPasses (default 1000) caps both.
	Passes    int
	MinTime   time.Duration
	MaxPasses int
	Pick      Pick
	// PerPass reads the clock once per pass instead of around every
	// query: for a clock too coarse for one query (a browser's
	// performance.now, 0.1–1 ms). Latency quantiles are then unknown
	// (zero), and Before must be nil.
	PerPass bool
	// Seed, when not 0, runs each timed pass in its own seeded
	// permutation of the queries (pass p draws from PCG(Seed, p)), so
	// that no query always follows the same one; the figures other than
	// timings do not depend on the order.
	Seed uint64
	// Before, when set, runs untimed before every timed query (dropping
	// a cache, for a cold measurement).
	Before func() error
	// AfterPass, when set, runs untimed after each timed pass (reading a
	// counter that the first pass alone should fill, say).
	AfterPass func(pass int) error
	// CPU, when set, is a second clock (a thread's or the process's CPU
	// time) read around the same span as the wall clock; it gives CPUQPS.
	CPU func() time.Duration
}

// Measured is what a Loop measured.
type Measured struct {
	Queries   int
	K         int
	Passes    int             // timed passes run
	Pick      Pick            // how QPS read them
	Recall    float64         // mean recall@K of pass 0 (0 without truth)
	MeanHits  float64         // mean results per query in pass 0
	QPS       float64         // queries per second, read as Pick says
	CPUQPS    float64         // timed queries over their CPU time (0 without a CPU clock)
	Latency   Latency         // per-query wall times (zero with PerPass)
	PassTimes []time.Duration // wall time of each timed pass, in order
	Elapsed   time.Duration   // wall time of all timed passes
}

// String prints "recall@10 0.953, 1234 QPS (best pass of 5), p50 …".
func (m Measured) String() string {
	return fmt.Sprintf("%s %.3f, %.0f QPS (%s of %d), %v", RecallHeader(m.K), m.Recall, m.QPS, m.Pick, m.Passes, m.Latency)
}

// Validate reports every bad field at once.
func (l Loop) Validate() error {
	var bad []string
	if l.Queries < 1 {
		bad = append(bad, fmt.Sprintf("queries %d (want ≥ 1)", l.Queries))
	}
	if l.Truth != nil {
		if l.K < 1 {
			bad = append(bad, fmt.Sprintf("k %d (want ≥ 1)", l.K))
		}
		if len(l.Truth) < l.Queries {
			bad = append(bad, fmt.Sprintf("truth for %d queries of %d", len(l.Truth), l.Queries))
		}
	}
	if l.Warmup < 0 || l.Passes < 0 || l.MinTime < 0 || l.MaxPasses < 0 {
		bad = append(bad, fmt.Sprintf("warmup %d, passes %d, min time %v, max passes %d (want ≥ 0)", l.Warmup, l.Passes, l.MinTime, l.MaxPasses))
	}
	if l.Pick < AllPasses || l.Pick > BestPerQuery {
		bad = append(bad, fmt.Sprintf("pick %d (want AllPasses…BestPerQuery)", int(l.Pick)))
	}
	if l.PerPass && l.Before != nil {
		bad = append(bad, "per-pass timing with a Before hook (the hook would be timed)")
	}
	if len(bad) > 0 {
		return fmt.Errorf("metrics: loop: %s: %w", joinBad(bad), engine.ErrInvalidArgument)
	}
	return nil
}

func joinBad(bad []string) string {
	s := bad[0]
	for _, b := range bad[1:] {
		s += "; " + b
	}
	return s
}

// Run measures q. It stops with ctx's error between queries when ctx is
// done, and turns a panic of q into an error.
func (l Loop) Run(ctx context.Context, q Query) (m Measured, err error) {
	if err := l.Validate(); err != nil {
		return Measured{}, err
	}
	if q == nil {
		return Measured{}, fmt.Errorf("metrics: loop: nil query: %w", engine.ErrInvalidArgument)
	}
	defer func() {
		if r := recover(); r != nil {
			m, err = Measured{}, fmt.Errorf("metrics: loop: query panicked: %v", r)
		}
	}()
	n := l.Queries
	minPasses := max(l.Passes, 1)
	maxPasses := l.MaxPasses
	if maxPasses == 0 {
		maxPasses = 1000
	}
	maxPasses = max(maxPasses, minPasses)
	for i := 0; i < min(l.Warmup, n); i++ {
		if err := ctx.Err(); err != nil {
			return Measured{}, err
		}
		if _, err := q(-1, i); err != nil {
			return Measured{}, fmt.Errorf("warm-up query %d: %w", i, err)
		}
	}
	m = Measured{Queries: n, K: l.K, Pick: l.Pick}
	var lat, best []time.Duration
	if !l.PerPass {
		lat = make([]time.Duration, 0, n*minPasses)
		if l.Pick == BestPerQuery {
			best = make([]time.Duration, n)
		}
	}
	var cpu time.Duration
	order := make([]int, n)
	for pass := 0; pass < minPasses || m.Elapsed < l.MinTime && pass < maxPasses; pass++ {
		for i := range order {
			order[i] = i
		}
		if l.Seed != 0 {
			r := rand.New(rand.NewPCG(l.Seed, uint64(pass)))
			r.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		var passTime time.Duration
		var c0 time.Duration
		var t0 time.Time
		if l.PerPass {
			if l.CPU != nil {
				c0 = l.CPU()
			}
			t0 = time.Now()
		}
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return Measured{}, err
			}
			if l.Before != nil {
				if err := l.Before(); err != nil {
					return Measured{}, fmt.Errorf("before query %d: %w", i, err)
				}
			}
			var res []engine.Result
			var qerr error
			if l.PerPass {
				res, qerr = q(pass, i)
			} else {
				if l.CPU != nil {
					c0 = l.CPU()
				}
				t := time.Now()
				res, qerr = q(pass, i)
				d := time.Since(t)
				if l.CPU != nil {
					cpu += l.CPU() - c0
				}
				passTime += d
				lat = append(lat, d)
				if best != nil && (pass == 0 || d < best[i]) {
					best[i] = d
				}
			}
			if qerr != nil {
				return Measured{}, fmt.Errorf("query %d: %w", i, qerr)
			}
			if pass == 0 {
				m.MeanHits += float64(len(res))
				if l.Truth != nil {
					m.Recall += l.recall(res, l.Truth[i])
				}
			}
		}
		if l.PerPass {
			passTime = time.Since(t0)
			if l.CPU != nil {
				cpu += l.CPU() - c0
			}
		}
		m.PassTimes = append(m.PassTimes, passTime)
		m.Elapsed += passTime
		m.Passes++
		if l.AfterPass != nil {
			if err := l.AfterPass(pass); err != nil {
				return Measured{}, fmt.Errorf("after pass %d: %w", pass, err)
			}
		}
	}
	m.Recall /= float64(n)
	m.MeanHits /= float64(n)
	if l.CPU != nil && cpu > 0 {
		m.CPUQPS = QPS(n*m.Passes, cpu)
	}
	var bestSum time.Duration
	for _, d := range best {
		bestSum += d
	}
	if l.Pick == BestPerQuery && !l.PerPass {
		lat = best
	}
	m.QPS = qpsOf(l.Pick, n, m.PassTimes, bestSum, l.PerPass)
	if !l.PerPass {
		m.Latency = Summarize(lat)
	}
	return m, nil
}

// recall scores one query's results against its truth (mapping ids with
// Key).
func (l Loop) recall(res []engine.Result, truth []engine.ID) float64 {
	if l.Key == nil {
		return Recall(res, truth, l.K)
	}
	ids := make([]engine.ID, 0, min(l.K, len(res)))
	for j := 0; j < len(res) && j < l.K; j++ {
		ids = append(ids, l.Key(res[j].ID))
	}
	return RecallIDs(ids, truth, l.K)
}

// qpsOf reads n queries' timed passes as pick says; bestSum is the sum
// of each query's fastest time (per-query timing only).
func qpsOf(pick Pick, n int, passes []time.Duration, bestSum time.Duration, perPass bool) float64 {
	if len(passes) == 0 {
		return 0
	}
	switch pick {
	case MedianPass:
		s := slices.Clone(passes)
		slices.Sort(s)
		return QPS(n, s[len(s)/2]) // the upper middle of an even count
	case BestPass:
		return QPS(n, slices.Min(passes))
	case BestPerQuery:
		if perPass {
			return QPS(n, slices.Min(passes))
		}
		return QPS(n, bestSum)
	}
	var all time.Duration
	for _, d := range passes {
		all += d
	}
	return QPS(n*len(passes), all)
}
