//go:build !purego

package bitsx

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSelection checks the start-up choice against the CPU's features.
func TestSelection(t *testing.T) {
	want := "generic"
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && (cpu.X86.HasAVX512BW || cpu.X86.HasAVX512VPOPCNTDQ):
		want = "avx512"
	case cpu.X86.HasAVX2:
		want = "avx2"
	case cpu.X86.HasPOPCNT:
		want = "popcnt"
	}
	if Impl() != want {
		t.Fatalf("Impl() = %q on a CPU with AVX2=%v AVX512F=%v VL=%v BW=%v VPOPCNTDQ=%v, want %q", Impl(),
			cpu.X86.HasAVX2, cpu.X86.HasAVX512F, cpu.X86.HasAVX512VL, cpu.X86.HasAVX512BW, cpu.X86.HasAVX512VPOPCNTDQ, want)
	}
	var names []string
	for _, k := range Available() {
		names = append(names, k.Name)
	}
	t.Logf("kernel: %s; available: %v", Impl(), names)
}
