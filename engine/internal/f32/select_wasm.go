//go:build js && wasm && !purego

package f32

import "github.com/veclab/veclab/engine/internal/wasmsimd"

// archKernels offers the WebAssembly SIMD128 kernels of
// engine/internal/wasmsimd when the host attached them (veclab-simd.js;
// none when the engine lacks SIMD128 or the host turned them off).
// Every kernel of the set scores a row with the same SIMD operations in the
// same order (wasmgen's f32Block, one row or four at a time), so Dot,
// Dot4, the Rows and the IDs kernels agree bit for bit, as the engine's
// exact paths expect. Even the one-pair kernels always cross: a crossing
// costs about 30 ns of CPU in Node, against 16 ns for DotGeneric at 2
// dimensions and 82 ns at 128 (BenchmarkCrossing), so a short pair loses a
// few nanoseconds and the set stays consistent.
func archKernels() []Kernel {
	if !wasmsimd.Present() {
		return nil
	}
	rows := func(k func(q, data []float32, stride int, out []float32)) func(q, data []float32, stride int, out []float32) {
		return func(q, data []float32, stride int, out []float32) {
			k(q, data, stride, out[:len(out)&^3]) // whole blocks of four, as the contract says
		}
	}
	return []Kernel{{Name: "simd128", Dot: wasmsimd.Dot, L2Sq: wasmsimd.L2Sq, Dot4: wasmsimd.Dot4, L2Sq4: wasmsimd.L2Sq4,
		DotRows: rows(wasmsimd.DotRows), L2SqRows: rows(wasmsimd.L2SqRows),
		DotRowsQ3: rowsQ3(rows(wasmsimd.DotRows)), L2SqRowsQ3: rowsQ3(rows(wasmsimd.L2SqRows)),
		DotIDs: wasmsimd.DotIDs, L2SqIDs: wasmsimd.L2SqIDs}}
}
