package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an open file. Files opened by [FS.Open] are read-only; files from
// [FS.Create] are read-write. WriteAt does not move the offset Read and
// Write use.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	// Sync makes the file's contents durable.
	Sync() error
	// Size returns the file's current length in bytes.
	Size() (int64, error)
}

// FS is the set of file operations the engine needs.
type FS interface {
	// Create creates name for reading and writing; it fails with an error
	// wrapping fs.ErrExist if name exists (O_CREATE|O_EXCL).
	Create(name string) (File, error)
	// Open opens an existing file read-only.
	Open(name string) (File, error)
	// Rename atomically replaces newname by oldname.
	Rename(oldname, newname string) error
	// Remove deletes a file.
	Remove(name string) error
	// SyncDir makes the directory's entries (creations, renames, removals)
	// durable.
	SyncDir(dir string) error
	// MkdirAll creates a directory and its parents.
	MkdirAll(dir string) error
	// List returns the names in dir, sorted.
	List(dir string) ([]string, error)
}

// Default is the operating system's file system.
var Default FS = osFS{}

type osFS struct{}

type osFile struct{ *os.File }

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (osFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error             { return os.Remove(name) }
func (osFS) MkdirAll(dir string) error            { return os.MkdirAll(dir, 0o755) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		// Some file systems refuse fsync on directories; treat that as
		// "nothing more can be done", as pebble does for EINVAL.
		var pe *fs.PathError
		if errors.As(serr, &pe) && errors.Is(pe.Err, errInvalidSync) {
			return cerr
		}
		return serr
	}
	return cerr
}

func (osFS) List(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, nil
}

// ReadFile reads the whole of name from fsys.
func ReadFile(fsys FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Size()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, err
	}
	return buf, nil
}

// WriteFile creates name on fsys (it must not exist) with the contents b
// and closes it.
func WriteFile(fsys FS, name string, b []byte) error {
	f, err := fsys.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Dir returns the directory part of name ("." for a bare file name).
func Dir(name string) string { return filepath.Dir(name) }
