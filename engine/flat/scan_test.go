package flat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/vec"
)

// TestScanMatchesDist4 holds the block scan (f32.DotRows / L2SqRows and the
// threshold before the heap) to the four-row path it replaced, bit for bit:
// for every metric, with the assembly kernels and with the pure-Go twins,
// on row counts that leave every remainder of four and blocks of the scan,
// and strides with padding, Search must return exactly the first k of all
// rows sorted by (dist4 distance, id), which is also what SearchIDs (the
// four-row path) returns over every id.
func TestScanMatchesDist4(t *testing.T) {
	defer f32.SetAccelerated(true)
	r := rand.New(rand.NewPCG(3, 4))
	for _, accel := range []bool{true, false} {
		f32.SetAccelerated(accel)
		for _, metric := range []engine.Metric{engine.Cosine, engine.Dot, engine.L2} {
			for _, n := range []int{1, 3, 4, 5, 255, 256, 257, 259, 1029} {
				for _, dim := range []int{5, 48} {
					name := fmt.Sprintf("%s/accel=%t/n=%d/dim=%d", metric, accel, n, dim)
					m := randMatrix(r, n, dim, dim+dim%3)
					// Duplicate rows make exact ties, which must break by id.
					for i := 7; i < n; i += 11 {
						copy(m.Row(i), m.Row(i-7))
					}
					x, err := New(m, Config{Metric: metric})
					if err != nil {
						t.Fatal(err)
					}
					q := m.Row(n / 2)
					for _, k := range []int{1, 10, n + 3} {
						got, st, err := x.Search(q, k, nil)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if st.DistComps != n {
							t.Fatalf("%s: %d distance computations, want %d", name, st.DistComps, n)
						}
						pq, _ := x.prepare(q, k)
						all := make([]engine.Result, n)
						ids := make([]engine.ID, n)
						for i := range all {
							all[i] = engine.Result{ID: engine.ID(i), Dist: x.dist(pq, i)}
							ids[i] = engine.ID(i)
						}
						slices.SortFunc(all, func(a, b engine.Result) int {
							if worse(b, a) {
								return -1
							}
							if worse(a, b) {
								return 1
							}
							return 0
						})
						want := all[:min(k, n)]
						viaIDs, _, err := x.SearchIDs(q, k, ids)
						if err != nil {
							t.Fatal(err)
						}
						for _, c := range []struct {
							what string
							rs   []engine.Result
						}{{"Search", got}, {"SearchIDs", viaIDs}} {
							if len(c.rs) != len(want) {
								t.Fatalf("%s k=%d: %s returned %d results, want %d", name, k, c.what, len(c.rs), len(want))
							}
							for j := range want {
								if c.rs[j].ID != want[j].ID || math.Float32bits(c.rs[j].Dist) != math.Float32bits(want[j].Dist) {
									t.Fatalf("%s k=%d: %s result %d = %+v, want %+v", name, k, c.what, j, c.rs[j], want[j])
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestBatchMatchesSearch requires SearchBatch (blocks of queries sharing a
// pass over the slab) to return, for every query, exactly what Search
// returns, for both kernel sets, every metric, a filter (the per-query
// path), one worker and several, and batch sizes that leave partial blocks.
func TestBatchMatchesSearch(t *testing.T) {
	defer f32.SetAccelerated(true)
	r := rand.New(rand.NewPCG(5, 6))
	m := randMatrix(r, 1031, 24, 26)
	for i := 5; i < m.N; i += 13 {
		copy(m.Row(i), m.Row(i-5))
	}
	qs := randMatrix(r, 37, 24, 24)
	copy(qs.Row(3), m.Row(100))
	odd := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 1 })
	for _, accel := range []bool{true, false} {
		f32.SetAccelerated(accel)
		for _, metric := range []engine.Metric{engine.Cosine, engine.Dot, engine.L2} {
			for _, workers := range []int{1, 3} {
				x, err := New(m, Config{Metric: metric, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				for _, allow := range []engine.Filter{nil, odd} {
					for _, nq := range []int{1, 5, 37} {
						sub := &vec.Matrix{N: nq, Dim: qs.Dim, Stride: qs.Stride, Data: qs.Data[:nq*qs.Stride]}
						got, err := x.SearchBatch(sub, 10, allow)
						if err != nil {
							t.Fatal(err)
						}
						for i := range nq {
							want, _, err := x.Search(sub.Row(i), 10, allow)
							if err != nil {
								t.Fatal(err)
							}
							if !slices.Equal(got[i], want) {
								t.Fatalf("%s accel=%t workers=%d filter=%t nq=%d query %d:\n got %v\nwant %v",
									metric, accel, workers, allow != nil, nq, i, got[i], want)
							}
						}
					}
				}
			}
		}
	}
}
