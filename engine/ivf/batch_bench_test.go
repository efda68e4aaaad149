package ivf

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// BenchmarkSearchBatch times SearchBatch (engine.Cores() workers) of 200
// queries over float32 lists (20000 × 384, nlist 52, nprobe 4), issued by 1,
// 2, 4 and 8 concurrent clients each sending its share as one batch; with
// more clients than cores their pools share the cores. Reports recall@10
// and queries per second of wall time. The peer (FAISS IndexIVFFlat batch
// search) runs in cmd/veclab's BenchmarkBatchVsPeers.
func BenchmarkSearchBatch(b *testing.B) {
	x, qs := clustered(20000, 200, 384, 40, 9)
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		truth[i] = bruteForce(x, qs.Row(i), 10, engine.Cosine)
	}
	ix, err := Build(x, Config{Nlist: 52, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	opt := SearchOptions{K: 10, Nprobe: 4}
	for _, clients := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			res := make([][]engine.Result, qs.N)
			for b.Loop() {
				var wg sync.WaitGroup
				for c := range clients {
					lo, hi := c*qs.N/clients, (c+1)*qs.N/clients
					sub := &vec.Matrix{N: hi - lo, Dim: qs.Dim, Stride: qs.Stride, Data: qs.Data[lo*qs.Stride : hi*qs.Stride]}
					wg.Add(1)
					go func() {
						defer wg.Done()
						r, err := ix.SearchBatchContext(context.Background(), sub, opt)
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
				rec += recall(res[i], truth[i])
			}
			b.ReportMetric(rec/float64(qs.N), "recall@10")
			b.ReportMetric(float64(qs.N)*float64(b.N)/b.Elapsed().Seconds(), "QPS")
		})
	}
}
