//go:build !linux

package ivf

// threadNanos has no thread CPU clock to read on this OS.
func threadNanos() (int64, bool) { return 0, false }
