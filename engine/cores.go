package engine

import (
	"runtime"
	"sync/atomic"
)

// cores is the worker count set by SetCores (0: not set).
var cores atomic.Int64

// Cores is how many goroutines an "all cores" default starts (an index
// build's or an exact search's Workers 0, k-means, concurrent reads):
// runtime.GOMAXPROCS(0), unless the host set it with SetCores.
//
// Why a setting of its own: the Jupyter kernel parks the process on one P
// between cells and gives a cell all of them only once it has run for a
// moment (kernel.Config.IdleOnOneP), so GOMAXPROCS read at the start of a
// cell would say 1 and an index build would run on one goroutine.
func Cores() int {
	if n := cores.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// SetCores makes Cores return n; n ≤ 0 goes back to runtime.GOMAXPROCS(0).
// It returns the previous setting (0: none).
func SetCores(n int) int {
	if n < 0 {
		n = 0
	}
	return int(cores.Swap(int64(n)))
}
