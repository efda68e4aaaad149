// Package wasmsimd gives the engine's kernels WebAssembly SIMD128 under
// GOOS=js GOARCH=wasm, where the Go compiler emits none: a small module of
// kernels (veclab-simd.js, written by the generator in wasmgen) that works
// on the Go program's own linear memory, and the //go:wasmimport
// declarations through which engine/internal/f32 and engine/internal/bitsx
// call it. Those two packages keep their pure-Go twins as the
// specification and as the fallback when the host has no SIMD128 (or
// turned the kernels off), and choose once, at start-up, from [Present].
//
// # The host's part
//
// A js/wasm program built from this module imports "veclab_simd" and
// cannot be instantiated without it: every host loads veclab-simd.js and
// calls veclabSIMD.install on the Go import object before instantiating,
// then attach(instance) before go.run (the file's comment shows the four
// lines). The explorer's and the JupyterLite kernel's workers do, and
// node_exec.js is the `go test -exec` runner for Node. The build tag
// purego drops the import (f32 and bitsx then never import this package),
// for hosts that only have the toolchain's wasm_exec.js.
//
// # Batching
//
// Each kernel call crosses from Go's instance into the kernels' instance
// and back, through a forwarder (a call_indirect through a table that
// veclab-simd.js fills once the kernels' instance exists: wasm to wasm,
// no JavaScript frame): a fixed cost per call, about 30 ns of CPU in Node
// (BenchmarkCrossing in engine/internal/f32 measures it; 42 ns through a
// JavaScript trampoline, the first design). So the kernels take a block
// at a time: a query against four rows, a slab of rows or the rows of a
// list of ids (one expanded node's neighbours in the beam search), or a
// list of codes (an IVF posting list); the one-pair kernels cross too,
// where a pair is long enough to repay it (see f32's and bitsx's
// select_wasm.go).
//
// # Memory
//
// Arguments are byte addresses in linear memory: under js/wasm a Go
// pointer is one (uintptr(unsafe.Pointer(&s[0]))). That is sound because
// Go's garbage collector never moves a heap object, an unsafe.Pointer
// argument keeps its object alive for the call, and a goroutine's stack,
// which can move when it grows, cannot grow during the call: no Go code
// runs until the kernel returns (the kernels never call back). The
// kernels read exactly the elements the Go twins read and write only the
// output slice; the Go wrappers here reslice every argument to the length
// the kernel will touch first, so a short slice panics in Go, as with the
// twins, instead of reading a neighbour's memory.
package wasmsimd

//go:generate go run gen.go
