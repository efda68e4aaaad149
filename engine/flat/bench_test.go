package flat

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
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
