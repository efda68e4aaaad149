package cputime

import (
	"runtime"
	"testing"
)

// TestThreadAdvances spins the pinned thread until its CPU time moves,
// and fails if it never does (or moves backwards).
func TestThreadAdvances(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := Thread(); ok {
			t.Fatal("Thread reported ok off Linux")
		}
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	if !ok {
		t.Fatal("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed")
	}
	x := 1.0
	for i := 0; i < 1<<30; i++ {
		x = x*1.0000001 + 1e-9
		if i%(1<<16) == 0 {
			if t1, _ := Thread(); t1 > t0 {
				return
			}
		}
	}
	t.Fatalf("thread CPU time did not advance (x = %v)", x)
}
