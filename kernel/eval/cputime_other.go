//go:build !unix

package eval

import "time"

// cpuTimes cannot be read here (js/wasm has no getrusage): %time prints
// the wall time only.
func cpuTimes() (user, sys time.Duration, ok bool) { return 0, 0, false }
