package vfs

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Op names a file-system operation an [Injector] may fail.
type Op uint8

// The operations.
const (
	OpCreate Op = iota
	OpOpen
	OpRead
	OpWrite
	OpSync
	OpClose
	OpRename
	OpRemove
	OpSyncDir
	OpMkdir
	OpList
	OpSize
)

var opNames = [...]string{"create", "open", "read", "write", "sync", "close", "rename", "remove", "syncdir", "mkdir", "list", "size"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// ErrInjected is the error an ErrorFS returns for an injected failure.
var ErrInjected = errors.New("vfs: injected error")

// Injector decides whether an operation fails: a non-nil return is the
// error the operation reports (without doing anything).
type Injector interface {
	MaybeError(op Op, name string) error
}

// InjectorFunc adapts a function to an Injector.
type InjectorFunc func(op Op, name string) error

// MaybeError calls f.
func (f InjectorFunc) MaybeError(op Op, name string) error { return f(op, name) }

// Counter is an Injector that counts operations and fails every operation
// from the n-th on (0-based); n < 0 never fails. It is how a test sweeps "an
// error at every step" of a write: count the steps with n = -1, then rerun
// with n = 0, 1, ….
type Counter struct {
	n     int64
	count atomic.Int64
}

// FailAfter returns a Counter that fails operation n and every later one.
func FailAfter(n int) *Counter { return &Counter{n: int64(n)} }

// Count returns the number of operations seen.
func (c *Counter) Count() int { return int(c.count.Load()) }

// MaybeError implements Injector.
func (c *Counter) MaybeError(op Op, name string) error {
	i := c.count.Add(1) - 1
	if c.n >= 0 && i >= c.n {
		return fmt.Errorf("vfs: %s %s (operation %d): %w", op, name, i, ErrInjected)
	}
	return nil
}

// ErrorFS wraps an FS and fails operations its Injector chooses.
type ErrorFS struct {
	fs  FS
	inj Injector
}

// NewErrorFS wraps fsys.
func NewErrorFS(fsys FS, inj Injector) *ErrorFS { return &ErrorFS{fs: fsys, inj: inj} }

// Create implements FS.
func (e *ErrorFS) Create(name string) (File, error) {
	if err := e.inj.MaybeError(OpCreate, name); err != nil {
		return nil, err
	}
	f, err := e.fs.Create(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e, name: name}, nil
}

// Open implements FS.
func (e *ErrorFS) Open(name string) (File, error) {
	if err := e.inj.MaybeError(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := e.fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e, name: name}, nil
}

// Rename implements FS.
func (e *ErrorFS) Rename(oldname, newname string) error {
	if err := e.inj.MaybeError(OpRename, oldname); err != nil {
		return err
	}
	return e.fs.Rename(oldname, newname)
}

// Remove implements FS.
func (e *ErrorFS) Remove(name string) error {
	if err := e.inj.MaybeError(OpRemove, name); err != nil {
		return err
	}
	return e.fs.Remove(name)
}

// SyncDir implements FS.
func (e *ErrorFS) SyncDir(dir string) error {
	if err := e.inj.MaybeError(OpSyncDir, dir); err != nil {
		return err
	}
	return e.fs.SyncDir(dir)
}

// MkdirAll implements FS.
func (e *ErrorFS) MkdirAll(dir string) error {
	if err := e.inj.MaybeError(OpMkdir, dir); err != nil {
		return err
	}
	return e.fs.MkdirAll(dir)
}

// List implements FS.
func (e *ErrorFS) List(dir string) ([]string, error) {
	if err := e.inj.MaybeError(OpList, dir); err != nil {
		return nil, err
	}
	return e.fs.List(dir)
}

type errorFile struct {
	f    File
	e    *ErrorFS
	name string
}

func (f *errorFile) Read(p []byte) (int, error) {
	if err := f.e.inj.MaybeError(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.f.Read(p)
}

func (f *errorFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.e.inj.MaybeError(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.f.ReadAt(p, off)
}

func (f *errorFile) Write(p []byte) (int, error) {
	if err := f.e.inj.MaybeError(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}

func (f *errorFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.e.inj.MaybeError(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.f.WriteAt(p, off)
}

func (f *errorFile) Close() error {
	if err := f.e.inj.MaybeError(OpClose, f.name); err != nil {
		f.f.Close() // release the underlying file; the caller sees the injected error
		return err
	}
	return f.f.Close()
}

func (f *errorFile) Sync() error {
	if err := f.e.inj.MaybeError(OpSync, f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *errorFile) Size() (int64, error) {
	if err := f.e.inj.MaybeError(OpSize, f.name); err != nil {
		return 0, err
	}
	return f.f.Size()
}
