//go:build linux

package store

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const oDirect = unix.O_DIRECT

func sysMap(f *os.File, size int64) ([]byte, error) {
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// The mapping is only probed, never touched: no read-ahead through it.
	_ = unix.Madvise(m, unix.MADV_RANDOM)
	return m, nil
}

func sysUnmap(b []byte) error { return unix.Munmap(b) }

// sysPopulate maps every page of mapping b into the page tables
// (madvise(MADV_POPULATE_READ), Linux ≥ 5.14), reading any that are not
// cached.
func sysPopulate(b []byte) error { return unix.Madvise(b, unix.MADV_POPULATE_READ) }

// sysUnmapPages drops the page-table entries of mapping b
// (madvise(MADV_DONTNEED)); the page cache keeps the pages.
func sysUnmapPages(b []byte) error { return unix.Madvise(b, unix.MADV_DONTNEED) }

// sysMincore is mincore(2): res[i]&1 is set when page i of b is resident.
// golang.org/x/sys/unix has no Linux wrapper, so this is the raw call.
func sysMincore(b, res []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&res[0])))
	if e != 0 {
		return e
	}
	return nil
}

func sysDropCache(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

func sysAdviseRandom(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM)
}
