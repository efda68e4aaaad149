//go:build !linux

package flat

import "time"

// threadCPU is not available on this platform.
func threadCPU() (time.Duration, bool) { return 0, false }
