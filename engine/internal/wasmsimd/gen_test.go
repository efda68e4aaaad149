package wasmsimd

import (
	"bytes"
	"os"
	"testing"

	"github.com/veclab/veclab/engine/internal/wasmsimd/wasmgen"
)

// TestGeneratedUpToDate regenerates veclab-simd.js (what `go generate`
// runs) and requires the committed file to be byte-identical, so the
// module the hosts load is always the output of wasmgen's source.
func TestGeneratedUpToDate(t *testing.T) {
	got, err := os.ReadFile(wasmgen.FileName)
	if err != nil {
		t.Fatal(err)
	}
	if want := wasmgen.JS(); !bytes.Equal(got, want) {
		t.Fatalf("%s differs from wasmgen's output (%d bytes, want %d): run go generate ./engine/internal/wasmsimd", wasmgen.FileName, len(got), len(want))
	}
}

// TestModuleDeterministic requires two assemblies to give the same bytes:
// the generated file must be a function of the source only.
func TestModuleDeterministic(t *testing.T) {
	a, ea := wasmgen.Module()
	b, eb := wasmgen.Module()
	if !bytes.Equal(a, b) || len(ea) != len(eb) {
		t.Fatal("two assemblies of the kernel module differ")
	}
	if !bytes.HasPrefix(a, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Fatalf("the module does not start with the wasm magic and version 1: % x", a[:8])
	}
}
