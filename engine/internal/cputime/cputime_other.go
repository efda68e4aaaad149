//go:build !linux

package cputime

import "time"

// Thread is unavailable off Linux: it returns 0 and false, and callers
// report wall-time figures only.
func Thread() (time.Duration, bool) { return 0, false }
