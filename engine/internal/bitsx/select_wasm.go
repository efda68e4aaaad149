//go:build js && wasm && !purego

package bitsx

import "github.com/veclab/veclab/engine/internal/wasmsimd"

// minBytesSIMD is the shortest code (in bytes) for which a one-code kernel
// crosses into the SIMD128 kernels: each call pays a fixed crossing (Go →
// JavaScript trampoline → kernel instance) that a short code does not
// repay (BenchmarkCodeKernels under js/wasm measures both sides).
// DotQ4Batch always crosses, once per list of codes. Every kernel returns
// the exact integer, so where a call goes never changes a result.
const minBytesSIMD = 64

// archKernels offers the WebAssembly SIMD128 kernels of
// engine/internal/wasmsimd when the host attached them (veclab-simd.js).
func archKernels() []Kernel {
	if !wasmsimd.Present() {
		return nil
	}
	pair := func(simd, twin func(a, b []byte) int32) func(a, b []byte) int32 {
		return func(a, b []byte) int32 {
			if len(a) < minBytesSIMD {
				return twin(a, b)
			}
			return simd(a, b)
		}
	}
	planes := func(x []byte, xBits int, y []byte, yBits int, words int) int64 {
		if (xBits+yBits)*words*8 < 2*minBytesSIMD {
			return DotPlanesGeneric(x, xBits, y, yBits, words)
		}
		return wasmsimd.DotPlanes(x, xBits, y, yBits, words)
	}
	return []Kernel{{
		Name:          "simd128",
		DotBytes:      pair(wasmsimd.DotBytes, DotBytesGeneric),
		SqDiffBytes:   pair(wasmsimd.SqDiffBytes, SqDiffBytesGeneric),
		DotNibbles:    pair(wasmsimd.DotNibbles, DotNibblesGeneric),
		SqDiffNibbles: pair(wasmsimd.SqDiffNibbles, SqDiffNibblesGeneric),
		AndPopCount: func(a, b []byte) int {
			if len(a) < minBytesSIMD {
				return AndPopCountGeneric(a, b)
			}
			return wasmsimd.AndPopCount(a, b)
		},
		Dot1x4: func(q, d []byte, words int) int64 {
			pb := words * 8
			q, d = q[:4*pb], d[:pb] // the twin's bounds, so short inputs panic alike
			return planes(d, 1, q, 4, words)
		},
		DotPlanes:  planes,
		DotQ4Batch: wasmsimd.DotQ4Batch,
	}}
}
