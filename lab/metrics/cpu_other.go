//go:build !linux

package metrics

import "time"

// ProcessCPU is unknown here: the CPU-time figures are left out (0).
func ProcessCPU() (time.Duration, bool) { return 0, false }

// ThreadCPU is unknown here (0): the CPU-time ratios are left out.
func ThreadCPU() time.Duration { return 0 }
