package hnsw

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// BenchmarkSearchBatch times engine.QueryBatch (engine.Cores() workers) on the
// BenchmarkSearch fixture at ef 40 and 64, issued by 1, 2, 4 and 8
// concurrent clients each sending its share of the 100 queries as one
// batch; with more clients than cores their pools share the cores.
// Reports recall@10 and queries per second of wall time. The peers
// (hnswlib's knn_query batches) run in cmd/veclab's BenchmarkBatchVsPeers.
func BenchmarkSearchBatch(b *testing.B) {
	for _, ef := range []int{40, 64} {
		for _, clients := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("ef=%d/clients=%d", ef, clients), func(b *testing.B) {
				ix := benchIndex(b, 64)
				qs := bench.q
				res := make([][]engine.Result, qs.N)
				for b.Loop() {
					var wg sync.WaitGroup
					for c := range clients {
						lo, hi := c*qs.N/clients, (c+1)*qs.N/clients
						sub := &vec.Matrix{N: hi - lo, Dim: qs.Dim, Stride: qs.Stride, Data: qs.Data[lo*qs.Stride : hi*qs.Stride]}
						wg.Add(1)
						go func() {
							defer wg.Done()
							r, err := engine.QueryBatch(context.Background(), ix, sub.N, sub.Row, engine.Request{K: benchK, Breadth: ef}, 0)
							if err != nil {
								b.Error(err)
							}
							copy(res[lo:hi], r)
						}()
					}
					wg.Wait()
				}
				var rec float64
				for i := range res {
					rec += recallOf(res[i], bench.truth[i])
				}
				b.ReportMetric(rec/float64(qs.N), "recall@10")
				b.ReportMetric(float64(qs.N)*float64(b.N)/b.Elapsed().Seconds(), "QPS")
			})
		}
	}
}
