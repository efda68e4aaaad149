package engine

import (
	"runtime"
	"testing"
)

func TestCores(t *testing.T) {
	defer SetCores(SetCores(0))
	if got, want := Cores(), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("Cores() = %d unset, want GOMAXPROCS %d", got, want)
	}
	for _, tc := range []struct{ set, want int }{
		{3, 3},
		{1, 1},
		{0, runtime.GOMAXPROCS(0)},
		{-2, runtime.GOMAXPROCS(0)},
	} {
		SetCores(tc.set)
		if got := Cores(); got != tc.want {
			t.Errorf("SetCores(%d): Cores() = %d, want %d", tc.set, got, tc.want)
		}
	}
	SetCores(5)
	if prev := SetCores(0); prev != 5 {
		t.Errorf("SetCores returned %d, want the previous 5", prev)
	}
}
