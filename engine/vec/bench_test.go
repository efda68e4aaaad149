package vec

import (
	"fmt"
	"testing"
)

// BenchmarkNormalize measures the float64, CPU-independent normalisation.
// Hypothesis: at 384 dims it costs a few hundred ns, negligible beside one HNSW
// insert or search (thousands of distances), so exactness across machines
// is worth its price over a SIMD float32 norm.
func BenchmarkNormalize(b *testing.B) {
	for _, dim := range []int{96, 384, 1536} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			v := make([]float32, dim)
			for i := range v {
				v[i] = float32(i%7) - 3
			}
			for b.Loop() {
				if err := Normalize(v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/vector")
		})
	}
}
