package exercise

import (
	"fmt"
	"slices"

	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/picture"
)

// The exercises of notebook 00d (IVF by picture) run on its first cell's
// index: notebook 00's 300 points of the plane in 8 cells (seed 1), and the
// query between two clusters.
func planeIVF() (*vec.Matrix, *ivf.Index, error) {
	points, err := dataset.Plane(300, 6, 1)
	if err != nil {
		return nil, nil, err
	}
	ix, err := picture.IVF(points, picture.IVFOptions{Nlist: 8, Seed: 1})
	return points, ix, err
}

// SmallestNprobe asks for the fewest lists a search of notebook 00d's
// border query must probe to find all of its true top 5. The check probes
// the notebook's cells at the answer and one list fewer.
func SmallestNprobe() *Exercise {
	foundAt := func(points *vec.Matrix, ix *ivf.Index, n int) (int, error) {
		_, p, err := picture.ProbePicture(ix, points, planeBetween, planeK, n)
		return p.Found, err
	}
	return &Exercise{
		Name: "SmallestNprobe",
		Question: "on the first cell's index (300 points in 8 cells, seed 1), what is the smallest nprobe at which the search " +
			"for (0.6, 0.2) with k = 5 finds all 5 of the true top 5? Assign it to smallestNprobe.",
		hint: "a search reads whole cells, nearest centroid first; the true neighbours it misses sit in a cell whose centroid " +
			"is not among the nearest few — picture.ProbePicture reports what one nprobe finds: try them from 1 up.",
		solution: `smallestNprobe := 0
for n := 1; n <= ix.Nlist(); n++ {
	_, p, err := picture.ProbePicture(ix, points, []float32{0.6, 0.2}, 5, n)
	check(err)
	if p.Found == 5 {
		smallestNprobe = n
		break
	}
}`,
		check: func(answer any) (bool, string, error) {
			n, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			points, ix, err := planeIVF()
			if err != nil {
				return false, "", err
			}
			if n < 1 || n > ix.Nlist() {
				return false, fmt.Sprintf("nprobe = %d: a search probes from 1 to all %d lists", n, ix.Nlist()), nil
			}
			at, err := foundAt(points, ix, n)
			if err != nil {
				return false, "", err
			}
			if at < planeK {
				return false, fmt.Sprintf("with nprobe = %d the search finds %d of the true top %d", n, at, planeK), nil
			}
			if n == 1 {
				return true, fmt.Sprintf("one list already holds all %d", planeK), nil
			}
			below, err := foundAt(points, ix, n-1)
			if err != nil {
				return false, "", err
			}
			if below == planeK {
				return false, fmt.Sprintf("nprobe = %d finds all %d, but so does nprobe = %d: fewer lists are enough", n, planeK, n-1), nil
			}
			return true, fmt.Sprintf("nprobe = %d finds all %d of the true top %d, nprobe = %d only %d", n, planeK, planeK, n-1, below), nil
		},
		right: func() (any, error) {
			points, ix, err := planeIVF()
			if err != nil {
				return nil, err
			}
			for n := 1; n <= ix.Nlist(); n++ {
				at, err := foundAt(points, ix, n)
				if err != nil {
					return nil, err
				}
				if at == planeK {
					return n, nil
				}
			}
			return nil, fmt.Errorf("no nprobe finds all %d", planeK)
		},
		wrong: 8, // every list: finds all 5, but reads the whole data set
	}
}

// ProbeFunc asks for IVF's list selection as a func: the n lists a search
// probes, nearest centroid first. The check compares it with the engine's
// own ranking (ivf.Index.ProbeOrder) on two indexes of the plane, for
// queries across it and every n.
func ProbeFunc() *Exercise {
	return &Exercise{
		Name: "ProbeFunc",
		Question: "write probe := func(centroids *vec.Matrix, q []float32, n int) []int: the n lists a search of q probes " +
			"(under squared L2), in the order it reads them. centroids.Row(j) is list j's centroid.",
		hint: "the search ranks every list by how far its centroid is from the query and reads the nearest ones first; " +
			"the list numbers are the centroids' row numbers.",
		solution: `probe := func(centroids *vec.Matrix, q []float32, n int) []int {
	lists := make([]int, centroids.N)
	dist := make([]float64, centroids.N)
	for j := range lists {
		lists[j] = j
		for d, x := range centroids.Row(j) {
			dist[j] += float64(x-q[d]) * float64(x-q[d])
		}
	}
	sort.Slice(lists, func(a, b int) bool { return dist[lists[a]] < dist[lists[b]] })
	return lists[:n]
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(*vec.Matrix, []float32, int) []int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(centroids *vec.Matrix, q []float32, n int) []int, got %T", answer)
			}
			cases := 0
			for _, c := range []struct{ n, nlist int }{{300, 8}, {1000, 20}} {
				points, err := dataset.Plane(c.n, 6, 1)
				if err != nil {
					return false, "", err
				}
				ix, err := picture.IVF(points, picture.IVFOptions{Nlist: c.nlist, Seed: 1})
				if err != nil {
					return false, "", err
				}
				for x := -0.9; x <= 0.9; x += 0.45 {
					for y := -0.9; y <= 0.9; y += 0.45 {
						q := []float32{float32(x), float32(y)}
						for _, n := range []int{1, 2, 3, c.nlist} {
							want, err := ix.ProbeOrder(q, n)
							if err != nil {
								return false, "", err
							}
							got := f(ix.Centroids(), q, n)
							if !slices.Equal(got, want) {
								return false, fmt.Sprintf("%d lists, query (%.2f, %.2f), n = %d: you probe %v, the engine %v",
									c.nlist, x, y, n, got, want), nil
							}
							cases++
						}
					}
				}
			}
			return true, fmt.Sprintf("your lists are the engine's probe order in all %d searches (8 and 20 lists)", cases), nil
		},
		right: func() (any, error) {
			return func(centroids *vec.Matrix, q []float32, n int) []int {
				lists := make([]int, centroids.N)
				dist := make([]float64, centroids.N)
				for j := range lists {
					lists[j] = j
					for d, x := range centroids.Row(j) {
						dist[j] += float64(x-q[d]) * float64(x-q[d])
					}
				}
				slices.SortStableFunc(lists, func(a, b int) int {
					switch {
					case dist[a] < dist[b]:
						return -1
					case dist[a] > dist[b]:
						return 1
					}
					return 0
				})
				return lists[:n]
			}, nil
		},
		// The nearest n, in list order: the right cells, read in the wrong order.
		wrong: func(centroids *vec.Matrix, q []float32, n int) []int {
			dist := make([]float64, centroids.N)
			for j := range dist {
				for d, x := range centroids.Row(j) {
					dist[j] += float64(x-q[d]) * float64(x-q[d])
				}
			}
			var out []int
			for j := range dist {
				nearer := 0
				for i := range dist {
					if dist[i] < dist[j] {
						nearer++
					}
				}
				if nearer < n {
					out = append(out, j)
				}
			}
			return out
		},
	}
}

// nprobeTarget is the recall NprobeForRecall asks for.
const nprobeTarget = 0.95

// NprobeForRecall asks for the smallest nprobe at which the notebook's IVF
// index over the environment's data reaches recall@k 0.95. The check
// searches the learner's index (every query at the answer and at one list
// fewer) against the environment's exact top k.
func NprobeForRecall(env *experiment.Env, ix *ivf.Index) *Exercise {
	recallAt := func(n int) (float64, error) {
		if env == nil || ix == nil {
			return 0, fmt.Errorf("NprobeForRecall needs the notebook's environment and IVF index (env, big): %w", ErrBadArgument)
		}
		ds, err := env.Dataset()
		if err != nil {
			return 0, err
		}
		truth, err := env.Truth(env.Scale.K)
		if err != nil {
			return 0, err
		}
		var sum float64
		for qi := 0; qi < ds.Queries.N; qi++ {
			res, _, err := ix.Search(ds.Queries.Row(qi), env.Scale.K, n)
			if err != nil {
				return 0, err
			}
			sum += metrics.Recall(res, truth.At(qi, env.Scale.K), env.Scale.K)
		}
		return sum / float64(ds.Queries.N), nil
	}
	nlist := 0
	if ix != nil {
		nlist = ix.Nlist()
	}
	return &Exercise{
		Name: "NprobeForRecall",
		Question: fmt.Sprintf("what is the smallest nprobe at which the IVF index over the articles' data (big) reaches mean "+
			"recall@k %.2f over the queries? Assign it to smallestNprobeBig.", nprobeTarget),
		hint: "recall grows with every list a search reads: picture.NprobeSweep measures any list of nprobes against the " +
			"exact top k — sweep them one by one from 1 and stop at the first that reaches the target.",
		solution: fmt.Sprintf(`smallestNprobeBig := 0
for n := 1; n <= big.Nlist(); n++ {
	pts, err := picture.NprobeSweep(big, ds.Queries, truth, scale.K, []int{n})
	check(err)
	if pts[0].Recall >= %.2f {
		smallestNprobeBig = n
		break
	}
}`, nprobeTarget),
		check: func(answer any) (bool, string, error) {
			n, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			if ix != nil && (n < 1 || n > nlist) {
				return false, fmt.Sprintf("nprobe = %d: a search probes from 1 to all %d lists", n, nlist), nil
			}
			at, err := recallAt(n)
			if err != nil {
				return false, "", err
			}
			if at < nprobeTarget {
				return false, fmt.Sprintf("with nprobe = %d recall is %.3f, below %.2f", n, at, nprobeTarget), nil
			}
			if n == 1 {
				return true, fmt.Sprintf("one list already gives recall %.3f", at), nil
			}
			below, err := recallAt(n - 1)
			if err != nil {
				return false, "", err
			}
			if below >= nprobeTarget {
				return false, fmt.Sprintf("nprobe = %d gives %.3f, but nprobe = %d already gives %.3f: fewer lists are enough", n, at, n-1, below), nil
			}
			return true, fmt.Sprintf("nprobe = %d gives recall %.3f, nprobe = %d only %.3f", n, at, n-1, below), nil
		},
		right: func() (any, error) {
			for n := 1; n <= nlist; n++ {
				r, err := recallAt(n)
				if err != nil {
					return nil, err
				}
				if r >= nprobeTarget {
					return n, nil
				}
			}
			return nil, fmt.Errorf("no nprobe reaches %.2f", nprobeTarget)
		},
		wrong: nlist, // every list: exact, and the whole data set read
	}
}
