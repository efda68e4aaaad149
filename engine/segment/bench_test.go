package segment

import (
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vfs"
)

// BenchmarkSearchModes searches 16 segments of 2,500 vectors (384-d) four
// ways. Hypothesis: concurrent search approaches Config.SearchWorkers×
// the sequential QPS (the segments are independent), and the shared bound
// cuts distances per query at the same ef. Reported: QPS and distances
// per query.
func BenchmarkSearchModes(b *testing.B) {
	const segs, per, dim = 16, 2500, 384
	data := indextest.Clustered(segs*per, dim, 40, 21)
	queries := indextest.Clustered(64, dim, 40, 22)
	cfg := Config{FS: vfs.NewMem(), Dir: "b", Dim: dim, Metric: engine.Cosine, Seed: 1}
	c, err := Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for s := 0; s < segs; s++ {
		if err := c.Add(docs(data, s*per, (s+1)*per)); err != nil {
			b.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			b.Fatal(err)
		}
	}
	for _, o := range []Options{
		{K: 10, Ef: 100},
		{K: 10, Ef: 100, Mode: Concurrent},
		{K: 10, Ef: 100, SharedBound: true},
		{K: 10, Ef: 100, Mode: Concurrent, SharedBound: true},
	} {
		name := fmt.Sprintf("mode=%d/shared=%v", o.Mode, o.SharedBound)
		b.Run(name, func(b *testing.B) {
			dist := 0
			for i := 0; i < b.N; i++ {
				_, st, err := c.Search(queries.Row(i%queries.N), o)
				if err != nil {
					b.Fatal(err)
				}
				dist += st.DistComps
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "QPS")
			b.ReportMetric(float64(dist)/float64(b.N), "dists/query")
		})
	}
}

// BenchmarkSearchClients runs sequential searches from 1 and 2 client
// goroutines at once: the machine's own scaling for this workload, the
// ceiling of what concurrent segment search can gain.
func BenchmarkSearchClients(b *testing.B) {
	const segs, per, dim = 16, 2500, 384
	data := indextest.Clustered(segs*per, dim, 40, 21)
	queries := indextest.Clustered(64, dim, 40, 22)
	c, err := Open(Config{FS: vfs.NewMem(), Dir: "b", Dim: dim, Metric: engine.Cosine, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for s := 0; s < segs; s++ {
		c.Add(docs(data, s*per, (s+1)*per))
		if err := c.Refresh(); err != nil {
			b.Fatal(err)
		}
	}
	for _, clients := range []int{1, 2} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			b.SetParallelism(1)
			done := make(chan struct{}, clients)
			per := b.N / clients
			b.ResetTimer()
			for w := 0; w < clients; w++ {
				go func() {
					for i := 0; i < per; i++ {
						c.Search(queries.Row((w*per+i)%queries.N), Options{K: 10, Ef: 100})
					}
					done <- struct{}{}
				}()
			}
			for w := 0; w < clients; w++ {
				<-done
			}
			b.ReportMetric(float64(per*clients)/b.Elapsed().Seconds(), "QPS")
		})
	}
}
