package hnsw

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestPatienceRule pins Elasticsearch's AdaptiveHnswQueueSaturationCollector
// (9.3+ default early exit) on sequences worked by hand, k = 10:
//
//   - one productive candidate (6 collect calls, all inserted: rate
//     6/(6·10) = 0.1, smoothed 0.09 = mean, not below mean + 0.01·0) then
//     candidates that collect nothing (rate 0): the smoothed rate falls
//     to a tenth each step while the mean trails it, so every later
//     candidate is saturated; the deviation stays near 0.03, the
//     patience 10/(1 + std) ≈ 9.7, and the tenth saturated candidate
//     (the 11th call) is the first whose count exceeds it;
//   - the same rate on every candidate never stops (the smoothed rate
//     climbs to 0.1 from below, so it stays above its own mean);
//   - a disarmed rule never stops.
func TestPatienceRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		on     bool
		steps  func(i int) (calls, inserted int)
		stopAt int // 0-based call of next that first returns true; -1: never
	}{
		{"one productive then dry", true, func(i int) (int, int) {
			if i == 0 {
				return 6, 6
			}
			return 0, 0
		}, 10},
		{"steady discovery", true, func(int) (int, int) { return 4, 4 }, -1},
		{"disarmed", false, func(i int) (int, int) {
			if i == 0 {
				return 6, 6
			}
			return 0, 0
		}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p patience
			p.reset(c.on, 10)
			got := -1
			for i := 0; i < 1000; i++ {
				calls, in := c.steps(i)
				for j := 0; j < calls; j++ {
					p.collect(j < in)
				}
				if p.next() {
					got = i
					break
				}
			}
			if got != c.stopAt {
				t.Errorf("stopped at candidate %d, want %d", got, c.stopAt)
			}
		})
	}
}

// TestQueryPatience checks the early exit on a real graph: a patient
// walk at a wide beam scores fewer nodes than the full walk for the same
// queries (it stops once the top ef stops changing), keeps most of the
// full walk's recall, and returns k results; Lucene's walk with
// Patience under hnsw.Lucene does likewise and is not reported as early
// terminated (no exact fallback follows). Patience with a shared bound
// is refused.
func TestQueryPatience(t *testing.T) {
	const n, dim, k, ef = 3000, 16, 10, 200
	base := clustered(n, dim, 8, 0.4, 3)
	ix, err := New(Config{Dim: dim, Metric: engine.L2, M: 8, EfConstruction: 64, Workers: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), base); err != nil {
		t.Fatal(err)
	}
	var fullScored, patScored, lucFull, lucPat int
	var fullRecall, patRecall float64
	const queries = 40
	for i := 0; i < queries; i++ {
		q := base.Row(i * 37)
		truth := bruteForce(base, q, k, engine.L2, nil)
		full, fst, err := ix.Query(q, engine.Request{K: k, Breadth: ef})
		if err != nil {
			t.Fatal(err)
		}
		pat, pst, err := ix.Query(q, engine.Request{K: k, Breadth: ef, Patience: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(pat) != k {
			t.Fatalf("query %d: %d patient results, want %d", i, len(pat), k)
		}
		fullScored += fst.DistComps
		patScored += pst.DistComps
		fullRecall += recallOf(full, truth)
		patRecall += recallOf(pat, truth)
		lf, lp := &Lucene{}, &Lucene{}
		if _, _, err := ix.Query(q, engine.Request{K: ef, Params: lf}); err != nil {
			t.Fatal(err)
		}
		lres, _, err := ix.Query(q, engine.Request{K: ef, Patience: true, Params: lp})
		if err != nil {
			t.Fatal(err)
		}
		if lp.EarlyTerminated || len(lres) != ef {
			t.Fatalf("query %d: lucene patient walk early %v with %d results", i, lp.EarlyTerminated, len(lres))
		}
		lucFull += lf.Visited
		lucPat += lp.Visited
	}
	t.Logf("scored per query: full %d, patient %d; lucene full %d, patient %d; recall@%d full %.3f, patient %.3f",
		fullScored/queries, patScored/queries, lucFull/queries, lucPat/queries, k, fullRecall/queries, patRecall/queries)
	if patScored >= fullScored || lucPat >= lucFull {
		t.Errorf("patience saved nothing: scored %d vs %d, lucene %d vs %d", patScored, fullScored, lucPat, lucFull)
	}
	if patRecall < fullRecall-0.1*queries {
		t.Errorf("patient recall %.3f far below the full walk's %.3f", patRecall/queries, fullRecall/queries)
	}
	_, _, err = ix.Query(base.Row(0), engine.Request{K: k, Breadth: ef, Bound: engine.NewBound(ef), Patience: true})
	if !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("patience with a shared bound: err %v, want ErrInvalidArgument", err)
	}
}
