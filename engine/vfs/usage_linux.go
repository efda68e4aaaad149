//go:build linux

package vfs

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// StatfsUsage reports the disk holding dir with statfs(2), as Elasticsearch
// reads its data path: total = blocks × block size, used = total − the
// bytes available to an unprivileged writer (so the blocks reserved for
// root count as used, and a disk "100 %" full for the lab may still have
// root's reserve free).
func StatfsUsage(dir string) (used, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, &fs.PathError{Op: "statfs", Path: dir, Err: err}
	}
	bs := uint64(st.Bsize)
	total = st.Blocks * bs
	avail := st.Bavail * bs
	if avail > total {
		avail = total
	}
	return total - avail, total, nil
}
