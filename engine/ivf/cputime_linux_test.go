//go:build linux

package ivf

import "golang.org/x/sys/unix"

// threadNanos returns the CPU time of the calling thread, which unlike wall
// time does not count the time other processes hold the core.
func threadNanos() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
