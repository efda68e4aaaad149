//go:build !linux

package vfs

import (
	"errors"
	"fmt"
	"runtime"
)

// StatfsUsage reports the disk holding dir; it is implemented on Linux
// only. Elsewhere it returns an error wrapping errors.ErrUnsupported, so a
// [WatermarkFS] with the default usage refuses writes rather than guess:
// give it a Usage function.
func StatfsUsage(dir string) (used, total uint64, err error) {
	return 0, 0, fmt.Errorf("vfs: disk usage of %s: statfs is not supported on %s (set Watermark.Usage): %w", dir, runtime.GOOS, errors.ErrUnsupported)
}
