package flat

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// BenchmarkSearchVsStream measures one exact search over an N×384 slab
// against the time to stream the same slab from memory once (Stream).
// Hypothesis: exact search is memory-bound once the distance kernel is
// SIMD, so the ratio search/stream should be ≤ 1.5 (issue 2's target).
// The slab sizes straddle the last-level cache.
func BenchmarkSearchVsStream(b *testing.B) {
	for _, n := range []int{30000, 200000} {
		b.Run(fmt.Sprintf("n=%d/dim=384", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			m := randMatrix(r, n, 384, 384)
			x, err := New(m, Config{Metric: engine.Cosine})
			if err != nil {
				b.Fatal(err)
			}
			q := m.Row(n / 2)
			stream := StreamTime(m, 5)
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := x.Search(q, 10, nil); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(len(m.Data)*4)/per/1e9, "GB/s")
			b.ReportMetric(float64(len(m.Data)*4)/stream.Seconds()/1e9, "stream-GB/s")
			b.ReportMetric(per/stream.Seconds(), "search/stream")
		})
	}
}

// BenchmarkFloor measures, in one run, the memory floor of an exact search
// (a Stream pass over the slab, the same 16-lane loads) and one exact
// search of k=10 on one goroutine, interleaved (a pass, a query, a pass, …)
// so that load from other processes hits both alike. It reports the
// medians of each and the median of the per-pair ratios query / adjacent
// pass, by wall time and (Linux) by the thread's CPU time, which leaves out
// the time other processes held the core. Issue 16's target is
// search/floor ≤ 1.3 on the 46 MB slab (30000 × 384, the article's scale),
// which exceeds this machine's last-level cache.
func BenchmarkFloor(b *testing.B) {
	for _, metric := range []engine.Metric{engine.Cosine, engine.L2} {
		b.Run(fmt.Sprintf("n=30000/dim=384/%s", metric), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			r := rand.New(rand.NewPCG(1, 1))
			m := randMatrix(r, 30000, 384, 384)
			x, err := New(m, Config{Metric: metric})
			if err != nil {
				b.Fatal(err)
			}
			var floor, search, ratio, cpuRatio []float64
			i := 0
			for b.Loop() {
				c0, okc := threadCPU()
				t0 := time.Now()
				streamSink += Stream(m)
				t1 := time.Now()
				c1, _ := threadCPU()
				if _, _, err := x.Search(m.Row(i%m.N), 10, nil); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				c2, _ := threadCPU()
				f, s := t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds()
				floor, search, ratio = append(floor, f), append(search, s), append(ratio, s/f)
				if okc && c1 > c0 {
					cpuRatio = append(cpuRatio, (c2-c1).Seconds()/(c1-c0).Seconds())
				}
				i += 7919
			}
			b.ReportMetric(median(floor)*1e3, "floor-ms")
			b.ReportMetric(median(search)*1e3, "search-ms")
			b.ReportMetric(median(ratio), "search/floor")
			if len(cpuRatio) > 0 {
				b.ReportMetric(median(cpuRatio), "cpu-search/floor")
			}
		})
	}
}

func median(ds []float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkSearchBatch times SearchBatch of 256 queries (k=10) over the
// 30000 × 384 slab with Workers = AllCores, issued by 1, 2, 4 and 8
// concurrent clients, each sending its share of the queries as one batch.
// On a machine with fewer cores than clients the clients' worker pools
// share the cores: the figure then shows what oversubscription costs.
// Reports queries per second of wall time.
func BenchmarkSearchBatch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	m := randMatrix(r, 30000, 384, 384)
	qs := randMatrix(r, 256, 384, 384)
	x, err := New(m, Config{Metric: engine.Cosine, Workers: AllCores()})
	if err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for c := range clients {
					lo, hi := c*qs.N/clients, (c+1)*qs.N/clients
					sub := &vec.Matrix{N: hi - lo, Dim: qs.Dim, Stride: qs.Stride, Data: qs.Data[lo*qs.Stride : hi*qs.Stride]}
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := x.SearchBatch(sub, 10, nil); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(qs.N)*float64(b.N)/b.Elapsed().Seconds(), "QPS")
		})
	}
}
