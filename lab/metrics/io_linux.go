//go:build linux

package metrics

import (
	"bytes"
	"os"
	"strconv"
)

// ProcessReadBytes returns the bytes this process has caused to be read
// from block devices so far (read_bytes of /proc/self/io: the storage
// layer's count, page-cache hits and read-ahead both as the kernel
// issued them, not what read(2) returned), or false where the kernel does
// not account per-task I/O (CONFIG_TASK_IO_ACCOUNTING) or the file cannot
// be read. A file on tmpfs or another memory file system never reaches a
// device, so it reads 0 there.
func ProcessReadBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("read_bytes:")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
