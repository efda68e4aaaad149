package exercise

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/picture"
)

// The exercises of notebook 00 (HNSW by picture) run on its first cell's
// graph: 300 points of the plane in 6 clusters, M = 4, efConstruction = 32,
// seed 1, and its query between two clusters.
var (
	planeBetween = []float32{0.6, 0.2}
	planeK       = 5
)

func planeGraph() (*vec.Matrix, *hnsw.Index, error) {
	points, err := dataset.Plane(300, 6, 1)
	if err != nil {
		return nil, nil, err
	}
	ix, err := picture.Graph(points, picture.GraphOptions{M: 4, EfConstruction: 32, Seed: 1})
	return points, ix, err
}

// found is how many of the true top k the traced search with beam ef
// returns on the graph (lab/picture's count, the one the notebook prints).
func found(ix *hnsw.Index, q []float32, k, ef int) (int, error) {
	_, v, err := picture.VisitedPicture(ix, q, k, ef)
	return v.Found, err
}

// SmallestEf asks for the narrowest beam that finds all of the true top 5
// for notebook 00's query between two clusters. The check searches the
// notebook's graph at the answer and one narrower.
func SmallestEf() *Exercise {
	return &Exercise{
		Name: "SmallestEf",
		Question: "on the first cell's graph (300 points, M = 4, efConstruction = 32, seed 1), what is the smallest ef " +
			"at which the search between the clusters, (0.6, 0.2) with k = 5, finds all 5 of the true top 5? Assign it to smallestEf.",
		hint: "the beam settles in the cluster it entered until it holds enough candidates to reach across to the other one; " +
			"picture.VisitedPicture reports how many of the true top 5 one search finds — try the widths one by one, from k up.",
		solution: `smallestEf := 0
for ef := 5; ef <= 80; ef++ {
	_, v, err := picture.VisitedPicture(ix, []float32{0.6, 0.2}, 5, ef)
	check(err)
	if v.Found == 5 {
		smallestEf = ef
		break
	}
}`,
		check: func(answer any) (bool, string, error) {
			ef, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			if ef < planeK {
				return false, fmt.Sprintf("ef = %d is below k = %d: a search always keeps at least k candidates (the engine raises ef to k)", ef, planeK), nil
			}
			_, ix, err := planeGraph()
			if err != nil {
				return false, "", err
			}
			at, err := found(ix, planeBetween, planeK, ef)
			if err != nil {
				return false, "", err
			}
			if at < planeK {
				return false, fmt.Sprintf("at ef = %d the search finds %d of the true top %d", ef, at, planeK), nil
			}
			if ef == planeK {
				return true, fmt.Sprintf("at ef = %d (= k) the search already finds all %d", ef, planeK), nil
			}
			below, err := found(ix, planeBetween, planeK, ef-1)
			if err != nil {
				return false, "", err
			}
			if below == planeK {
				return false, fmt.Sprintf("ef = %d finds all %d, but so does ef = %d: a narrower beam is enough", ef, planeK, ef-1), nil
			}
			return true, fmt.Sprintf("ef = %d finds all %d of the true top %d, ef = %d only %d", ef, planeK, planeK, ef-1, below), nil
		},
		right: func() (any, error) {
			_, ix, err := planeGraph()
			if err != nil {
				return nil, err
			}
			for ef := planeK; ef <= 80; ef++ {
				n, err := found(ix, planeBetween, planeK, ef)
				if err != nil {
					return nil, err
				}
				if n == planeK {
					return ef, nil
				}
			}
			return nil, fmt.Errorf("no ef up to 80 finds all %d", planeK)
		},
		wrong: 80, // finds all 5, but not the smallest beam that does
	}
}

// RecallFunc asks for recall@k as a func, checked against lab/metrics on
// real searches of notebook 00's graph (results of several beams for
// queries across the plane, and the same results in reverse order).
func RecallFunc() *Exercise {
	return &Exercise{
		Name: "RecallFunc",
		Question: "write recall := func(got []engine.Result, truth []engine.ID) float64: the share of the true neighbours " +
			"(truth, the exact top k) that the search returned (got, k results of an approximate search).",
		hint: "recall asks which true neighbours were found, not where: a true neighbour counts wherever it sits in got, " +
			"and the share is over the true neighbours.",
		solution: `recall := func(got []engine.Result, truth []engine.ID) float64 {
	hits := 0
	for _, t := range truth {
		for _, r := range got {
			if r.ID == t {
				hits++
				break
			}
		}
	}
	return float64(hits) / float64(len(truth))
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func([]engine.Result, []engine.ID) float64)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func([]engine.Result, []engine.ID) float64, got %T", answer)
			}
			cases, err := recallCases()
			if err != nil {
				return false, "", err
			}
			for _, c := range cases {
				want := metrics.Recall(c.got, c.truth, len(c.truth))
				if got := f(c.got, c.truth); math.IsNaN(got) || math.Abs(got-want) > 1e-9 {
					return false, fmt.Sprintf("%s: your recall is %.3g, the lab's (lab/metrics.Recall) %.3g", c.name, got, want), nil
				}
			}
			return true, fmt.Sprintf("your recall agrees with lab/metrics on all %d searches", len(cases)), nil
		},
		right: func() (any, error) {
			return func(got []engine.Result, truth []engine.ID) float64 {
				hits := 0
				for _, t := range truth {
					for _, r := range got {
						if r.ID == t {
							hits++
							break
						}
					}
				}
				return float64(hits) / float64(len(truth))
			}, nil
		},
		// Position by position: the mistake of reading recall as "the
		// ranking is right".
		wrong: func(got []engine.Result, truth []engine.ID) float64 {
			hits := 0
			for i := range min(len(got), len(truth)) {
				if got[i].ID == truth[i] {
					hits++
				}
			}
			return float64(hits) / float64(len(truth))
		},
	}
}

type recallCase struct {
	name  string
	got   []engine.Result
	truth []engine.ID
}

// recallCases are searches of notebook 00's graph at beams 5, 10 and 20 for
// queries on a grid over the plane, each with the exact top 5, and the
// between-clusters search's results reversed.
func recallCases() ([]recallCase, error) {
	points, ix, err := planeGraph()
	if err != nil {
		return nil, err
	}
	exact, err := flat.New(points, flat.Config{Metric: engine.L2})
	if err != nil {
		return nil, err
	}
	s := ix.NewSearcher()
	var cases []recallCase
	add := func(name string, q []float32, ef int) ([]engine.Result, error) {
		got, err := s.Search(q, engine.Request{K: planeK, Breadth: ef})
		if err != nil {
			return nil, err
		}
		got = append([]engine.Result(nil), got...)
		truth, _, err := exact.Search(q, planeK, nil)
		if err != nil {
			return nil, err
		}
		ids := make([]engine.ID, len(truth))
		for i, r := range truth {
			ids[i] = r.ID
		}
		cases = append(cases, recallCase{name, got, ids})
		return got, nil
	}
	got, err := add("the query between the clusters at ef = 5", planeBetween, 5)
	if err != nil {
		return nil, err
	}
	rev := make([]engine.Result, len(got))
	for i, r := range got {
		rev[len(got)-1-i] = r
	}
	cases = append(cases, recallCase{"the same results in reverse order", rev, cases[0].truth})
	for _, ef := range []int{5, 10, 20} {
		for x := -0.9; x <= 0.9; x += 0.6 {
			for y := -0.9; y <= 0.9; y += 0.6 {
				q := []float32{float32(x), float32(y)}
				if _, err := add(fmt.Sprintf("the query (%.1f, %.1f) at ef = %d", x, y, ef), q, ef); err != nil {
					return nil, err
				}
			}
		}
	}
	return cases, nil
}

// LayerSizes asks for the expected number of nodes on layer ≥ level, as a
// func of n and M, checked against graphs the engine builds over 3,000
// points with M = 2, 4 and 8: the learner's estimate must lie within four
// standard deviations of the count (a binomial draw per node) on every
// layer up to 3.
func LayerSizes() *Exercise {
	return &Exercise{
		Name: "LayerSizes",
		Question: "write upper := func(n, m, level int) float64: how many of n nodes an HNSW graph built with M = m " +
			"is expected to hold on layer `level` (level 0 holds all n; each node's top layer is drawn at random as it is inserted).",
		hint: "each layer keeps about one in M of the nodes of the layer below it, and a node's draw is independent " +
			"of the others: think of what happens over several layers climbed.",
		solution: `upper := func(n, m, level int) float64 {
	return float64(n) / math.Pow(float64(m), float64(level))
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int, int, int) float64)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(n, m, level int) float64, got %T", answer)
			}
			const n = 3000
			points, err := dataset.Plane(n, 6, 7)
			if err != nil {
				return false, "", err
			}
			checked := 0
			for _, m := range []int{2, 4, 8} {
				ix, err := picture.Graph(points, picture.GraphOptions{M: m, EfConstruction: 16, Seed: 7})
				if err != nil {
					return false, "", err
				}
				facts, err := picture.Facts(ix)
				if err != nil {
					return false, "", err
				}
				for level := 0; level <= 3; level++ {
					count := 0
					if level < len(facts.Nodes) {
						count = facts.Nodes[level]
					}
					p := math.Pow(float64(m), -float64(level))
					band := 4*math.Sqrt(n*p*(1-p)) + 1
					got := f(n, m, level)
					if math.IsNaN(got) || math.Abs(got-float64(count)) > band {
						return false, fmt.Sprintf("with M = %d you expect %.1f nodes on layer %d; the engine's graph of %d points holds %d",
							m, got, level, n, count), nil
					}
					checked++
				}
			}
			return true, fmt.Sprintf("your estimate matches the engine's graphs (3,000 points, M = 2, 4, 8) on all %d layers checked", checked), nil
		},
		right: func() (any, error) {
			return func(n, m, level int) float64 {
				return float64(n) / math.Pow(float64(m), float64(level))
			}, nil
		},
		// One in M per layer, added up instead of multiplied.
		wrong: func(n, m, level int) float64 {
			if level == 0 {
				return float64(n)
			}
			return float64(n) / float64(m*level)
		},
	}
}
