//go:build linux

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time the calling OS thread has used
// (clock_gettime(2) with CLOCK_THREAD_CPUTIME_ID, which is exact to the
// scheduler's accounting, unlike getrusage's tick-sampled figures) and
// true, or 0 and false if the call failed.
func Thread() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
