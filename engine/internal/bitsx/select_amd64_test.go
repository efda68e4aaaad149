//go:build !purego

package bitsx

import (
	"testing"

	"github.com/veclab/veclab/engine/internal/simdenv"

	"golang.org/x/sys/cpu"
)

// TestSelection checks the start-up choice against the CPU's features.
func TestSelection(t *testing.T) {
	names := []string{"generic"}
	if cpu.X86.HasPOPCNT {
		names = append(names, "popcnt")
	}
	if cpu.X86.HasAVX2 {
		names = append(names, "avx2")
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && (cpu.X86.HasAVX512BW || cpu.X86.HasAVX512VPOPCNTDQ) {
		names = append(names, "avx512")
	}
	// VECLAB_SIMD caps the choice (engine/internal/simdenv); unset keeps all.
	n, err := simdenv.Keep(names, simdenv.Setting())
	if (err == nil) != (SettingErr() == nil) {
		t.Fatalf("SettingErr() = %v, want %v", SettingErr(), err)
	}
	want := names[n-1]
	if Impl() != want {
		t.Fatalf("Impl() = %q on a CPU with AVX2=%v AVX512F=%v VL=%v BW=%v VPOPCNTDQ=%v, want %q (%s=%q)", Impl(),
			cpu.X86.HasAVX2, cpu.X86.HasAVX512F, cpu.X86.HasAVX512VL, cpu.X86.HasAVX512BW, cpu.X86.HasAVX512VPOPCNTDQ, want, simdenv.Var, simdenv.Setting())
	}
	var avail []string
	for _, k := range Available() {
		avail = append(avail, k.Name)
	}
	t.Logf("kernel: %s; available: %v", Impl(), avail)
}
