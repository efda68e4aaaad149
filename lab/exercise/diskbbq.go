package exercise

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/lab/measure"
)

// The exercises of notebook 12 (DiskBBQ's IVF against HNSW): how many lists
// a visit percentage reads, how many vectors a rescore reads, and the visit
// and oversample that reach recall@100 0.99. They run on the notebook's own
// IVF index (iv), its rescorer over the vector file (rsLocal) and its
// queries with their exact top 100 (q100).

// diskTarget is the recall@100 VisitForRecall and OversampleAtVisit ask for.
const diskTarget = 0.99

// diskArgs checks the notebook's objects are there.
func diskArgs(name string, iv *ivf.Index, rs *rescore.Rescorer, q *measure.Queries) error {
	if iv == nil || rs == nil || q == nil {
		return fmt.Errorf("%s needs the notebook's IVF index, rescorer and queries (iv, rsLocal, q100): %w", name, ErrBadArgument)
	}
	return nil
}

// ListsForVisit asks for the number of lists a DiskBBQ search reads at a
// visit percentage, as a func of the list sizes in probe order. The check
// compares it with the lists the engine's search probed
// (ivf.Index.SearchVisit's Stats.ListsProbed) for the notebook's queries.
func ListsForVisit(iv *ivf.Index, q *measure.Queries) *Exercise {
	visits := []float64{0.1, 0.5, 1, 2, 3, 5, 10, 20}
	return &Exercise{
		Name: "ListsForVisit",
		Question: "write lists := func(sizes []int, visit float64, n int) int: how many lists a search reads at visit " +
			"percentage visit over an index of n vectors, where sizes are the lists' sizes in the order the search probes " +
			"them (nearest centroid first).",
		hint: "visit_percentage is a share of the vectors, not of the lists: the search reads whole lists, nearest first, " +
			"until it has scanned at least that many vectors — count how many whole lists that takes.",
		solution: `lists := func(sizes []int, visit float64, n int) int {
	budget := int(math.Ceil(visit / 100 * float64(n))) // vectors to scan, at least one
	if budget < 1 {
		budget = 1
	}
	scanned, read := 0, 0
	for _, s := range sizes {
		if scanned >= budget {
			break
		}
		scanned += s
		read++
	}
	return read
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func([]int, float64, int) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(sizes []int, visit float64, n int) int, got %T", answer)
			}
			if iv == nil || q == nil {
				return false, "", fmt.Errorf("ListsForVisit needs the notebook's IVF index and queries (iv, q100): %w", ErrBadArgument)
			}
			all := iv.ListSizes()
			checked := 0
			for qi := 0; qi < min(q.Vectors.N, 20); qi++ {
				x := q.Vectors.Row(qi)
				order, err := iv.ProbeOrder(x, iv.Nlist())
				if err != nil {
					return false, "", err
				}
				sizes := make([]int, len(order))
				for i, j := range order {
					sizes[i] = all[j]
				}
				for _, v := range visits {
					_, st, err := iv.SearchVisit(x, q.K, v)
					if err != nil {
						return false, "", err
					}
					if got := f(sizes, v, iv.Len()); got != st.ListsProbed {
						return false, fmt.Sprintf("query %d at visit %g %%: you say %d lists, the engine's search read %d", qi, v, got, st.ListsProbed), nil
					}
					checked++
				}
			}
			return true, fmt.Sprintf("your counts are the lists the engine read in all %d searches (visit 0.1 %% to 20 %%)", checked), nil
		},
		right: func() (any, error) {
			return func(sizes []int, visit float64, n int) int {
				budget := max(1, int(math.Ceil(visit/100*float64(n))))
				scanned, read := 0, 0
				for _, s := range sizes {
					if scanned >= budget {
						break
					}
					scanned += s
					read++
				}
				return read
			}, nil
		},
		// The share of the lists instead of the vectors.
		wrong: func(sizes []int, visit float64, n int) int {
			return max(1, int(math.Ceil(visit/100*float64(len(sizes)))))
		},
	}
}

// RescoreReads asks for the float32 vectors a rescored search reads per
// query, as a func of k and the oversample. The check measures the
// notebook's IVF index through its rescorer (measure.SweepVisit, which
// counts every read) at several oversamples.
func RescoreReads(iv *ivf.Index, rs *rescore.Rescorer, q *measure.Queries) *Exercise {
	overs := []float64{1, 1.255, 2, 2.5, 3.333}
	return &Exercise{
		Name: "RescoreReads",
		Question: "write reads := func(k int, oversample float64) int: the float32 vectors a search with rescoring reads per " +
			"query (the notebook's 'vector reads/q' column), for k results at that oversample.",
		hint: "the codes pick the candidates, the rescorer reads each candidate's float32 vector once; an oversample of 1.255 " +
			"at k = 100 asks for a whole number of candidates too — which one?",
		solution: `reads := func(k int, oversample float64) int {
	return int(math.Ceil(oversample * float64(k)))
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int, float64) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(k int, oversample float64) int, got %T", answer)
			}
			if err := diskArgs("RescoreReads", iv, rs, q); err != nil {
				return false, "", err
			}
			few, err := q.First(min(q.Vectors.N, 5))
			if err != nil {
				return false, "", err
			}
			for _, o := range overs {
				res, err := measure.SweepVisit(iv, []float64{50}, o, rs, few)
				if err != nil {
					return false, "", err
				}
				if got := f(q.K, o); float64(got) != res[0].Reads {
					return false, fmt.Sprintf("k = %d, oversample %g: you say %d reads, the lab counted %.1f per query", q.K, o, got, res[0].Reads), nil
				}
			}
			return true, fmt.Sprintf("your reads are the lab's counts at oversample %v (k = %d)", overs, q.K), nil
		},
		right: func() (any, error) {
			return func(k int, oversample float64) int { return engine.RescoreDepth(k, oversample) }, nil
		},
		wrong: func(k int, oversample float64) int { return int(oversample * float64(k)) }, // rounds down
	}
}

// VisitForRecall asks for the smallest whole visit percentage at which the
// notebook's IVF index, rescoring at oversample 3, reaches recall@100 0.99.
// The check measures it (measure.SweepVisit) at the answer and one fewer.
func VisitForRecall(iv *ivf.Index, rs *rescore.Rescorer, q *measure.Queries) *Exercise {
	return smallest(smallestSpec{
		name: "VisitForRecall",
		question: fmt.Sprintf("at oversample 3, what is the smallest whole visit percentage (1, 2, 3, …) at which the IVF index "+
			"reaches recall@100 %.2f? Assign it to smallestVisit.", diskTarget),
		hint: "rescoring only re-orders the candidates the codes found: recall stops growing once the lists read hold the true " +
			"neighbours. Measure the whole percentages from 1 up with measure.SweepVisit at oversample 3.",
		solution: fmt.Sprintf(`smallestVisit := 0
for v := 1; smallestVisit == 0; v++ {
	res, err := measure.SweepVisit(iv, []float64{float64(v)}, 3, rsLocal, q100)
	check(err)
	if res[0].Recall >= %.2f {
		smallestVisit = v
	}
}`, diskTarget),
		what: "visit percentage", lo: 1, hi: 100,
		reaches: func(v int) (bool, string, error) {
			if err := diskArgs("VisitForRecall", iv, rs, q); err != nil {
				return false, "", err
			}
			res, err := measure.SweepVisit(iv, []float64{float64(v)}, 3, rs, q)
			if err != nil {
				return false, "", err
			}
			return res[0].Recall >= diskTarget, fmt.Sprintf("recall@%d is %.4f", q.K, res[0].Recall), nil
		},
		wrong: 10, // enough, three times over
	})
}

// diskVisit is the visit percentage OversampleAtVisit holds fixed.
const diskVisit = 5

// OversampleAtVisit asks for the smallest whole oversample at which the
// notebook's IVF index at visit 5 % reaches recall@100 0.99. The check
// measures it (measure.SweepVisit) at the answer and one fewer.
func OversampleAtVisit(iv *ivf.Index, rs *rescore.Rescorer, q *measure.Queries) *Exercise {
	return smallest(smallestSpec{
		name: "OversampleAtVisit",
		question: fmt.Sprintf("at visit %d %%, what is the smallest whole oversample (1, 2, 3, …) at which the IVF index reaches "+
			"recall@100 %.2f? Assign it to smallestOver.", diskVisit, diskTarget),
		hint: "at oversample 1 the answer is the 2-bit codes' own top 100, and no visit lifts it past their ceiling; each step " +
			"of oversample rescored 100 more candidates. Measure the whole oversamples from 1 up with measure.SweepVisit.",
		solution: fmt.Sprintf(`smallestOver := 0
for o := 1; smallestOver == 0; o++ {
	res, err := measure.SweepVisit(iv, []float64{%d}, float64(o), rsLocal, q100)
	check(err)
	if res[0].Recall >= %.2f {
		smallestOver = o
	}
}`, diskVisit, diskTarget),
		what: "oversample", lo: 1, hi: 50,
		reaches: func(o int) (bool, string, error) {
			if err := diskArgs("OversampleAtVisit", iv, rs, q); err != nil {
				return false, "", err
			}
			res, err := measure.SweepVisit(iv, []float64{diskVisit}, float64(o), rs, q)
			if err != nil {
				return false, "", err
			}
			return res[0].Recall >= diskTarget, fmt.Sprintf("recall@%d is %.4f", q.K, res[0].Recall), nil
		},
		wrong: 5, // enough, not the least
	})
}
