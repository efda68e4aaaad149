//go:build !linux

package metrics

import "time"

// started is when the process's clock began, for ProcessCPU.
var started = time.Now()

// ProcessCPU has no CPU clock to read here: it returns the wall time since
// the process started and false. Callers that need CPU time check ok and
// leave the CPU figures out; a loop that times itself by ProcessCPU (a
// notebook's "run for 300 ms" cell) still ends instead of spinning on a
// clock stuck at 0. In a browser (js/wasm) Go runs on one thread, so the
// wall time is an upper bound of the CPU time spent.
func ProcessCPU() (time.Duration, bool) { return time.Since(started), false }

// ThreadCPU is unknown here (0): the CPU-time ratios are left out.
func ThreadCPU() time.Duration { return 0 }
