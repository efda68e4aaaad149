package simdenv

import (
	"strings"
	"testing"
)

func TestKeep(t *testing.T) {
	amd := []string{"generic", "popcnt", "avx2", "avx512"}
	f32 := []string{"generic", "avx2", "avx512"}
	wasm := []string{"generic", "simd128"}
	for _, c := range []struct {
		names   []string
		setting string
		want    int
		err     bool
	}{
		{amd, "", 4, false},
		{amd, "on", 4, false},
		{amd, "off", 1, false},
		{amd, "generic", 1, false},
		{amd, "popcnt", 2, false},
		{amd, "avx2", 3, false},
		{amd, "avx512", 4, false},
		{f32, "avx2", 2, false},
		{f32, "popcnt", 1, false},
		{f32[:2], "avx512", 2, false}, // an AVX2-only CPU asked for avx512 keeps its best
		{wasm, "off", 1, false},
		{wasm, "avx2", 2, false},
		{amd, "AVX2", 4, true},
		{amd, "sse", 4, true},
		{[]string{"generic"}, "off", 1, false},
	} {
		got, err := Keep(c.names, c.setting)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Keep(%v, %q) = %d, %v; want %d, error %v", c.names, c.setting, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "VECLAB_SIMD=") {
			t.Errorf("Keep(%v, %q): error %q does not name the variable", c.names, c.setting, err)
		}
	}
}
