//go:build unix

package history

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock of f (another kernel opening the same file
// waits), so reading the highest session and appending the next one is
// one step.
func lock(f *os.File) (unlock func(), err error) {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}
