package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"time"
)

// StatFS is an FS that can say what a name is without opening it: a file
// (with its size) or a directory. [Default] and [MemFS] are StatFSs.
type StatFS interface {
	FS
	Stat(name string) (fs.FileInfo, error)
}

// Stat returns what name is on fsys: through fsys's Stat when it is a
// [StatFS], else by opening it, which finds files only (an FS without
// Stat has no way to name a directory). A missing name is an error
// wrapping fs.ErrNotExist.
func Stat(fsys FS, name string) (fs.FileInfo, error) {
	if s, ok := fsys.(StatFS); ok {
		return s.Stat(name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Size()
	if err != nil {
		return nil, err
	}
	return memInfo{name: path.Base(name), size: n}, nil
}

// RemoveAll removes dir and everything under it from fsys (a file named
// dir is removed too); a missing dir is not an error.
func RemoveAll(fsys FS, dir string) error {
	if fsys == Default {
		return os.RemoveAll(dir)
	}
	st, err := Stat(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		names, err := fsys.List(dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := RemoveAll(fsys, path.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	return fsys.Remove(dir)
}

func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Stat implements StatFS: a file's size, or a directory: one MkdirAll
// made or one holding a file.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	name = clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.cur[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(n.data))}, nil
	}
	if m.isDirLocked(name) {
		return memInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// isDirLocked reports whether name is a directory: made by MkdirAll or
// the parent of a file or directory.
func (m *MemFS) isDirLocked(name string) bool {
	if m.dirs[name] {
		return true
	}
	prefix := name + "/"
	if name == "/" {
		prefix = "/"
	}
	return m.anyUnderLocked(prefix)
}

// memInfo is a MemFS name's fs.FileInfo.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
