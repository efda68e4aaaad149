package nested

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/internal/cputime"
	"github.com/veclab/veclab/engine/vec"
)

// The benchmark's data: 2,000 parents of 2…8 passages each (about 10,000
// passages of 128 dims, each around its parent's centre, as build makes
// them), an HNSW graph (M 16, efConstruction 100) and 50 queries near
// passages.
var bench struct {
	once    sync.Once
	err     error
	x       *Index
	queries *vec.Matrix
	truth   [][]Hit
}

func benchFixture(b *testing.B) {
	bench.once.Do(func() {
		const dim, nParents, nq = 128, 2000, 50
		rng := rand.New(rand.NewPCG(21, 21))
		var data []float32
		var parents []uint32
		for p := 0; p < nParents; p++ {
			centre := make([]float64, dim)
			for j := range centre {
				centre[j] = rng.NormFloat64()
			}
			for c := 0; c < 2+rng.IntN(7); c++ {
				row := make([]float32, dim)
				for j := range row {
					row[j] = float32(centre[j] + 0.5*rng.NormFloat64())
				}
				if bench.err = vec.Normalize(row); bench.err != nil {
					return
				}
				data = append(data, row...)
				parents = append(parents, uint32(p))
			}
		}
		m := &vec.Matrix{N: len(parents), Dim: dim, Stride: dim, Data: data}
		g, err := hnsw.New(hnsw.Config{Dim: dim, M: 16, Workers: 1, EfConstruction: 100, Seed: 22})
		if err != nil {
			bench.err = err
			return
		}
		keys := make([]uint64, m.N)
		for i := range keys {
			keys[i] = uint64(i)
		}
		if bench.err = g.AddBatch(keys, m); bench.err != nil {
			return
		}
		if bench.x, bench.err = New(g.Vectors(), parents, engine.Cosine, g); bench.err != nil {
			return
		}
		bench.queries = vec.NewMatrix(nq, dim)
		bench.truth = make([][]Hit, nq)
		for i := 0; i < nq; i++ {
			src := m.Row(rng.IntN(m.N))
			q := bench.queries.Row(i)
			for j := range q {
				q[j] = src[j] + float32(0.3*rng.NormFloat64())
			}
			if bench.truth[i], bench.err = bench.x.ExactParents(q, 10); bench.err != nil {
				return
			}
		}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

// BenchmarkSearchParents times the parent-deduplicating walk (with no
// filter and with an allow-list passing half the parents) and the naive
// walk at ef 40 and 100 on one goroutine, reporting QPS (wall), cpuQPS (per
// CPU second of the benchmark's thread), recall@10 of parents against
// ExactParents (unfiltered variants) and distance computations per query.
func BenchmarkSearchParents(b *testing.B) {
	half := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
	for _, v := range []string{"parents", "parents-filter50", "naive"} {
		for _, ef := range []int{40, 100} {
			b.Run(fmt.Sprintf("%s/ef=%d", v, ef), func(b *testing.B) {
				benchFixture(b)
				x, qs := bench.x, bench.queries
				run := func(i int) ([]Hit, engine.SearchStats, error) {
					q := qs.Row(i % qs.N)
					switch v {
					case "naive":
						return x.SearchNaive(q, 10, ef)
					case "parents-filter50":
						return x.SearchParentsFilter(q, 10, ef, half)
					}
					return x.SearchParents(q, 10, ef)
				}
				var rec, dist float64
				for i := 0; i < qs.N; i++ {
					hits, st, err := run(i)
					if err != nil {
						b.Fatal(err)
					}
					dist += float64(st.DistComps)
					if v == "parents-filter50" {
						for _, h := range hits {
							if h.Parent%2 != 0 {
								b.Fatalf("query %d: parent %d is filtered out", i, h.Parent)
							}
						}
						continue
					}
					want := map[uint32]bool{}
					for _, h := range bench.truth[i] {
						want[h.Parent] = true
					}
					for _, h := range hits {
						if want[h.Parent] {
							rec++
						}
					}
				}
				timeQueries(b, func(i int) { run(i) })
				if v != "parents-filter50" {
					b.ReportMetric(rec/float64(10*qs.N), "recall@10")
				}
				b.ReportMetric(dist/float64(qs.N), "dists/query")
			})
		}
	}
}

// timeQueries runs query(i) for i < b.N on a pinned OS thread and reports
// QPS per wall second and cpuQPS per CPU second of that thread.
func timeQueries(b *testing.B, query func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := cputime.Thread()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		query(i)
	}
	el := time.Since(start)
	c1, _ := cputime.Thread()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "QPS")
	if ok && c1 > c0 {
		b.ReportMetric(float64(b.N)/(c1-c0).Seconds(), "cpuQPS")
	}
}
