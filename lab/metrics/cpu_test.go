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
