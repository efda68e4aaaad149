//go:build linux

package metrics

import (
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU returns the CPU time (user + system, all threads) the process
// has used so far, or false where it cannot be read.
func ProcessCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// ThreadCPU returns the CPU time of the calling OS thread (callers hold
// runtime.LockOSThread), or 0 where it cannot be read. CPU time stays
// comparable when other jobs load the machine, where wall time measures
// the scheduler as much as the code.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
