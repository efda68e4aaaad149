package metrics

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessCPUAdvances: ProcessCPU's clock moves everywhere — the CPU
// time on Linux (ok true), the wall time elsewhere, js/wasm included (ok
// false) — so a loop that runs until it has spent some time ends (notebook
// 10's parse-rate cell spun forever in a browser when the clock stayed 0).
// cmd/veclab's TestEngineTestsOnWasm runs it on js/wasm.
func TestProcessCPUAdvances(t *testing.T) {
	t0, ok := ProcessCPU()
	if ok != (runtime.GOOS == "linux") {
		t.Fatalf("ProcessCPU's ok = %t on %s", ok, runtime.GOOS)
	}
	deadline := time.Now().Add(10 * time.Second)
	x := 1.0
	for {
		t1, _ := ProcessCPU()
		if t1-t0 >= 20*time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ProcessCPU moved %v in 10 s of wall time", t1-t0)
		}
		for i := range 100000 {
			x += float64(i) * 1e-9
		}
	}
}

// TestClockCost: a clock advancing 3 µs per reading costs 3 µs; the
// thread CPU clock costs something and less than a millisecond on Linux,
// and reads 0 elsewhere.
func TestClockCost(t *testing.T) {
	var c time.Duration
	if got := ClockCost(func() time.Duration { c += 3 * time.Microsecond; return c }, 5); got != 3*time.Microsecond {
		t.Errorf("cost %v, want 3µs", got)
	}
	if runtime.GOOS != "linux" {
		if d := ThreadCPU(); d != 0 {
			t.Errorf("ThreadCPU %v on %s, where it is documented unknown (0)", d, runtime.GOOS)
		}
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if got := ClockCost(ThreadCPU, 101); got <= 0 || got >= time.Millisecond {
		t.Errorf("thread CPU clock cost %v, want within (0, 1 ms)", got)
	}
}
