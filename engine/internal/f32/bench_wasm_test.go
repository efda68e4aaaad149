//go:build js && wasm && !purego

package f32

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine/internal/wasmsimd"
)

// BenchmarkCrossing measures, under js/wasm in Node, what one call into
// the SIMD128 kernels costs against the pure-Go twin, at lengths from 0
// (the crossing alone: Go → JavaScript trampoline → kernel instance and
// back) up. Hypothesis: the crossing is a few tens of nanoseconds, so a
// pair pays for it from a few dozen dimensions on and a block of rows (one
// crossing for all) at any dimension. Run with
//
//	GOOS=js GOARCH=wasm go test -run '^$' -bench Crossing -exec="node $PWD/engine/internal/wasmsimd/node_exec.js" ./engine/internal/f32/
func BenchmarkCrossing(b *testing.B) {
	if !wasmsimd.Present() {
		b.Skip("the host did not attach the SIMD128 kernels")
	}
	for _, dim := range []int{0, 2, 8, 16, 32, 64, 128, 384} {
		x, y := benchVectors(dim)
		for _, k := range []struct {
			name string
			fn   func(a, b []float32) float32
		}{{"generic", DotGeneric}, {"simd128", wasmsimd.Dot}} {
			b.Run(fmt.Sprintf("kernel=%s/dim=%d", k.name, dim), func(b *testing.B) {
				var s float32
				for b.Loop() {
					s += k.fn(x, y)
				}
				sink = s
			})
		}
	}
}

// BenchmarkIDs measures the beam search's batch under js/wasm: one query
// against 32 rows picked at random from a 20,000-row slab (one expanded
// node's neighbours), through the pure-Go twin and through the SIMD128
// kernel in one crossing. Hypothesis: at 128 dimensions and more the
// kernel is several times faster, the crossing lost in the block.
func BenchmarkIDs(b *testing.B) {
	if !wasmsimd.Present() {
		b.Skip("the host did not attach the SIMD128 kernels")
	}
	const rows, count = 20000, 32
	for _, dim := range []int{16, 128, 384} {
		data, _ := benchVectors(rows * dim)
		q, _ := benchVectors(dim)
		r := rand.New(rand.NewPCG(uint64(dim), 1))
		ids := make([]uint32, count)
		for i := range ids {
			ids[i] = uint32(r.IntN(rows))
		}
		out := make([]float32, count)
		for _, k := range []Kernel{Generic, Available()[len(Available())-1]} {
			b.Run(fmt.Sprintf("kernel=%s/dim=%d", k.Name, dim), func(b *testing.B) {
				for b.Loop() {
					k.L2SqIDs(q, data, dim, ids, out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/row")
			})
		}
	}
}
