//go:build !linux

package eval

// readingStdin cannot tell on this system: cells that read standard input
// block until the session ends.
func readingStdin() bool { return false }
