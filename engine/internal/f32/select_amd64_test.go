//go:build !purego

package f32

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSelection checks the start-up choice against the CPU's features.
func TestSelection(t *testing.T) {
	want := "generic"
	switch {
	case cpu.X86.HasAVX512F:
		want = "avx512"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		want = "avx2"
	}
	if Impl() != want {
		t.Fatalf("Impl() = %q on a CPU with AVX2=%v FMA=%v AVX512F=%v, want %q",
			Impl(), cpu.X86.HasAVX2, cpu.X86.HasFMA, cpu.X86.HasAVX512F, want)
	}
	t.Logf("kernel: %s", Impl())
}
