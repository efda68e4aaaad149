//go:build linux

package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProcessReadBytes reads a file whose pages were dropped from the page
// cache and expects the device bytes to grow by at least its size (the
// kernel may read ahead more, never less).
func TestProcessReadBytes(t *testing.T) {
	if _, ok := ProcessReadBytes(); !ok {
		t.Skip("/proc/self/io is not readable here (no per-task I/O accounting)")
	}
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC {
		t.Skipf("%s is in memory: nothing is read from a device", dir)
	}
	const size = 1 << 20
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	before, _ := ProcessReadBytes()
	buf := make([]byte, size)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	after, ok := ProcessReadBytes()
	if !ok || after-before < size {
		t.Errorf("read %d B of a dropped file, the device bytes grew by %d (ok %t)", size, after-before, ok)
	}
}
