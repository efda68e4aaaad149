//go:build js && wasm && !purego

package bitsx

import (
	"os"
	"testing"
)

// TestSelection requires the kernel set the host asked for: the SIMD128
// kernels of engine/internal/wasmsimd, or the pure-Go twins when the host
// installed them disabled (VECLAB_SIMD=off, as node_exec.js reads it), so
// that neither run of the js/wasm tests can pass on the other's kernels.
// The other tests of the package then compare every kernel of the set
// with its twin and with the reference loops (they run Available()).
func TestSelection(t *testing.T) {
	want := "simd128"
	if os.Getenv("VECLAB_SIMD") == "off" {
		want = "generic"
	}
	if Impl() != want {
		t.Fatalf("Impl() = %q, want %q (VECLAB_SIMD=%q)", Impl(), want, os.Getenv("VECLAB_SIMD"))
	}
	if n := len(Available()); (want == "generic") != (n == 1) {
		t.Fatalf("Available() has %d kernel sets with %s selected", n, want)
	}
}
