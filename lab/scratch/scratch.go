package scratch

import (
	"fmt"
	"path"

	"github.com/veclab/veclab/engine/vfs"
)

// Dir is a new, empty scratch directory.
type Dir struct {
	FS   vfs.FS // the file system its files are on
	Path string // the directory
}

// New makes a new scratch directory whose name starts with prefix.
func New(prefix string) (*Dir, error) {
	fsys, dir, err := mkdir(prefix)
	if err != nil {
		return nil, fmt.Errorf("scratch: new directory %s…: %w", prefix, err)
	}
	return &Dir{FS: fsys, Path: dir}, nil
}

// Join returns the path of name in the directory.
func (d *Dir) Join(name ...string) string { return path.Join(append([]string{d.Path}, name...)...) }

// Mkdir makes the subdirectory name and returns its path.
func (d *Dir) Mkdir(name string) (string, error) {
	p := d.Join(name)
	if err := d.FS.MkdirAll(p); err != nil {
		return "", fmt.Errorf("scratch: %w", err)
	}
	return p, nil
}

// Remove deletes the directory and everything in it.
func (d *Dir) Remove() error { return removeAll(d.FS, d.Path) }

// Simulated reports whether scratch files are in memory, their device
// reads simulated (a browser), rather than on a real disk.
func Simulated() bool { return simulated }

// FS is the file system the lab's own files are on: [vfs.Default]
// natively; in a browser the tab's in-memory file system that scratch
// directories are made on, whose [MemLimit] those files and the data sets
// kept there (lab/dataset's data directory and truth caches) share.
func FS() vfs.FS { return files() }

// MemLimit is the bytes the in-memory scratch files of a browser tab may
// hold together: a quarter of wasm32's 4 GiB address space, which the
// tab's data sets and indexes share.
const MemLimit = 1 << 30
