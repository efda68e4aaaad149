//go:build !linux

package experiment

import "time"

// processCPU is unknown here (a browser tab): a CPU-time clock falls
// back to wall time and says so (see [Clock]).
func processCPU() (time.Duration, bool) { return 0, false }

// threadCPU is unknown here (0).
func threadCPU() time.Duration { return 0 }
