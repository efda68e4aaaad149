//go:build !linux

package bench

import "time"

// processCPU is unknown here: the CPU-time figures are left out (0).
func processCPU() (time.Duration, bool) { return 0, false }

// threadCPU is unknown here (0): the CPU-time ratios are left out.
func threadCPU() time.Duration { return 0 }
