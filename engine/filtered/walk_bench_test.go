package filtered

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/internal/cputime"
	"github.com/veclab/veclab/engine/vec"
)

// The walk benchmark's data: 10,000 clustered unit vectors of 128 dims
// (32 clusters) with the test fixture's metadata (bucket 0…999 uniform,
// indexed), an HNSW graph (M 16, efConstruction 100) and an ACORN-γ graph
// (M 16, γ 4), and 50 queries drawn the same way. Larger than the test
// fixture so that a query's time is the walk's, not the call overhead's.
var walkBench struct {
	once    sync.Once
	err     error
	coll    *Collection
	queries *vec.Matrix
	store   *filter.Store
}

func walkFixture(b *testing.B) {
	walkBench.once.Do(func() {
		const n, dim, nq = 10000, 128, 50
		vs, _ := clustered(n+nq, dim, 32, 11)
		vectors := &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: vs.Data[:n*dim]}
		walkBench.queries = &vec.Matrix{N: nq, Dim: dim, Stride: dim, Data: vs.Data[n*dim:]}
		rng := rand.New(rand.NewPCG(12, 12))
		docs := make([]filter.Doc, n)
		for i := range docs {
			docs[i] = filter.Doc{Key: fmt.Sprint(i), Meta: map[string]any{"bucket": rng.IntN(1000)}}
		}
		st, err := filter.NewStore(filter.Schema{Fields: []filter.Field{{Name: "bucket", Kind: filter.KindInteger, Indexed: true}}})
		if err != nil {
			walkBench.err = err
			return
		}
		if _, err := st.Add(docs...); err != nil {
			walkBench.err = err
			return
		}
		g, err := hnsw.New(hnsw.Config{Dim: dim, M: 16, EfConstruction: 100, Workers: 1, Seed: 13})
		if err != nil {
			walkBench.err = err
			return
		}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(i)
		}
		if err := g.AddBatch(keys, vectors); err != nil {
			walkBench.err = err
			return
		}
		ac, err := BuildACORN(vectors, engine.Cosine, ACORNConfig{M: 16, Gamma: 4, Seed: 14, MinSelectivity: 0.01})
		if err != nil {
			walkBench.err = err
			return
		}
		walkBench.store = st
		walkBench.coll, walkBench.err = New(vectors, st, Options{Graph: g, ACORN: ac})
	})
	if walkBench.err != nil {
		b.Fatal(walkBench.err)
	}
}

// BenchmarkWalk times every strategy that walks a graph (the layer-0 beam
// search of search.go, the only code these strategies share) at 50 % and
// 10 % selectivity, plus the unfiltered walk, on one goroutine. It reports
// QPS (wall), cpuQPS (per CPU second of the benchmark's thread: the figure
// to compare on a loaded machine), recall@10 against exact search over the
// matching set, distance computations per query and the path that ran.
// Qdrant's planner gets a full-scan threshold of 100 so that it takes its
// graph path; Redis is forced to its batch iterator.
func BenchmarkWalk(b *testing.B) {
	type strat struct {
		s Strategy
		p Params
	}
	strategies := []strat{{PostFilter, Params{}}, {IterativeRelaxed, Params{}}, {IterativeStrict, Params{}},
		{InGraph, Params{}}, {QdrantPlanner, Params{FullScanThreshold: 100}}, {RedisHybrid, Params{RedisPolicy: "batches"}},
		{ACORNGamma, Params{}}, {ACORN1, Params{}}}
	for _, text := range []string{"", `bucket < 500`, `bucket < 100`} {
		for _, st := range strategies {
			if text == "" && st.s != InGraph {
				continue
			}
			if text == `bucket < 100` && st.s == InGraph {
				// Lucene's rule sends it to exact search: the walk scores
				// more nodes than the 1,000 that match.
				continue
			}
			name := text
			if name == "" {
				name = "nofilter"
			}
			b.Run(fmt.Sprintf("%s/%s", name, st.s), func(b *testing.B) {
				walkFixture(b)
				c, qs := walkBench.coll, walkBench.queries
				var cf *filter.Compiled
				if text != "" {
					var err error
					if cf, err = walkBench.store.CompileString(text); err != nil {
						b.Fatal(err)
					}
				}
				req := func(i int) Request {
					return Request{Query: qs.Row(i % qs.N), K: 10, Filter: cf, Strategy: st.s, Params: st.p}
				}
				var rec, dist float64
				paths := map[Strategy]int{}
				for i := 0; i < qs.N; i++ {
					got, s, err := c.Search(req(i))
					if err != nil {
						b.Fatal(err)
					}
					rec += recall(got, truth(b, c, qs.Row(i), cf, 10))
					dist += float64(s.DistComps)
					paths[s.Path]++
				}
				for p := range paths {
					if p == Exact {
						b.Fatalf("%s fell back to exact search in %d of %d queries: not a walk", st.s, paths[p], qs.N)
					}
				}
				timeQueries(b, func(i int) { c.Search(req(i)) })
				b.ReportMetric(rec/float64(qs.N), "recall@10")
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
