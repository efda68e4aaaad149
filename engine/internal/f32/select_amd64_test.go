//go:build !purego

package f32

import (
	"testing"

	"github.com/veclab/veclab/engine/internal/simdenv"

	"golang.org/x/sys/cpu"
)

// TestSelection checks the start-up choice against the CPU's features.
func TestSelection(t *testing.T) {
	names := []string{"generic"}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		names = append(names, "avx2")
	}
	if cpu.X86.HasAVX512F {
		names = append(names, "avx512")
	}
	// VECLAB_SIMD caps the choice (engine/internal/simdenv); unset keeps all.
	n, err := simdenv.Keep(names, simdenv.Setting())
	if (err == nil) != (SettingErr() == nil) {
		t.Fatalf("SettingErr() = %v, want %v", SettingErr(), err)
	}
	want := names[n-1]
	if Impl() != want {
		t.Fatalf("Impl() = %q on a CPU with AVX2=%v FMA=%v AVX512F=%v, want %q (%s=%q)",
			Impl(), cpu.X86.HasAVX2, cpu.X86.HasFMA, cpu.X86.HasAVX512F, want, simdenv.Var, simdenv.Setting())
	}
	t.Logf("kernel: %s", Impl())
}
