package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// MemFS is an in-memory FS that remembers what was made durable, so
// [MemFS.CrashClone] can show what survives a crash. Paths are cleaned with
// path.Clean; directories are implicit (MkdirAll is recorded but any parent
// is accepted).
type MemFS struct {
	mu      sync.Mutex          // guards everything below
	cur     map[string]*memNode // current namespace: what Open sees
	durable map[string]*memNode // namespace as of the last SyncDir of each entry's directory
	dirs    map[string]bool
	limit   int64 // bytes the current files may hold; 0 = no limit
}

// memNode is one file's storage; several names can point at one node
// across the current and durable namespaces.
type memNode struct {
	data   []byte // current contents (guarded by MemFS.mu)
	synced []byte // contents at the last Sync
}

// NewMem returns an empty in-memory file system.
func NewMem() *MemFS {
	return &MemFS{cur: map[string]*memNode{}, durable: map[string]*memNode{}, dirs: map[string]bool{".": true, "/": true}}
}

// NewMemLimit returns an empty in-memory file system whose current files
// may hold at most limit bytes together: a write that would take them
// over it fails, before anything is written, with an error wrapping
// [ErrMemFull] that names the file, the bytes and the limit (a browser
// tab's memory is finite and running out of it kills the page).
func NewMemLimit(limit int64) *MemFS {
	m := NewMem()
	m.limit = limit
	return m
}

// ErrMemFull is wrapped by the error of a write a [NewMemLimit] file
// system refused.
var ErrMemFull = errors.New("vfs: in-memory file system full")

// grow checks, with m.mu held, that growing node n to end bytes keeps the
// current files within the limit.
func (m *MemFS) grow(name string, n *memNode, end int64) error {
	if m.limit <= 0 || end <= int64(len(n.data)) {
		return nil
	}
	var held int64
	seen := map[*memNode]bool{}
	for _, c := range m.cur {
		if !seen[c] {
			seen[c] = true
			held += int64(len(c.data))
		}
	}
	if after := held + end - int64(len(n.data)); after > m.limit {
		return fmt.Errorf("write to %s: %d bytes more would make the in-memory files %d bytes, over their %d-byte limit: %w", name, end-int64(len(n.data)), after, m.limit, ErrMemFull)
	}
	return nil
}

func clean(name string) string { return path.Clean(name) }

// Create implements FS.
func (m *MemFS) Create(name string) (File, error) {
	name = clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.cur[name]; ok {
		return nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	n := &memNode{}
	m.cur[name] = n
	return &memFile{fs: m, node: n, name: name, write: true}, nil
}

// Open implements FS.
func (m *MemFS) Open(name string) (File, error) {
	name = clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.cur[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{fs: m, node: n, name: name}, nil
}

// Rename implements FS. A directory is renamed with everything under it,
// as rename(2) does, when newname is not an existing file or a directory
// holding anything; the moved files' durable names follow at the SyncDir
// of their new directory.
func (m *MemFS) Rename(oldname, newname string) error {
	oldname, newname = clean(oldname), clean(newname)
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.cur[oldname]; ok {
		delete(m.cur, oldname)
		m.cur[newname] = n
		return nil
	}
	if !m.isDirLocked(oldname) {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	if _, ok := m.cur[newname]; ok || m.hasEntriesLocked(newname) {
		return &fs.PathError{Op: "rename", Path: newname, Err: fs.ErrExist}
	}
	prefix := oldname + "/"
	for p, n := range m.cur {
		if strings.HasPrefix(p, prefix) {
			delete(m.cur, p)
			m.cur[newname+"/"+p[len(prefix):]] = n
		}
	}
	for d := range m.dirs {
		if d == oldname || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
			m.dirs[newname+d[len(oldname):]] = true
		}
	}
	for d := path.Dir(newname); !m.dirs[d]; d = path.Dir(d) {
		m.dirs[d] = true
	}
	m.dirs[newname] = true
	return nil
}

// hasEntriesLocked reports whether a file or directory lies under dir.
func (m *MemFS) hasEntriesLocked(dir string) bool { return m.anyUnderLocked(dir + "/") }

// anyUnderLocked reports whether a file or a directory name starts with
// prefix.
func (m *MemFS) anyUnderLocked(prefix string) bool {
	for p := range m.cur {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	for d := range m.dirs {
		if strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}

// Remove implements FS: a file, or a directory with nothing under it.
func (m *MemFS) Remove(name string) error {
	name = clean(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.cur[name]; ok {
		delete(m.cur, name)
		return nil
	}
	if m.dirs[name] && name != "/" && name != "." {
		if m.hasEntriesLocked(name) {
			return &fs.PathError{Op: "remove", Path: name, Err: errNotEmpty}
		}
		delete(m.dirs, name)
		return nil
	}
	return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
}

// errNotEmpty is Remove's error for a directory that holds something.
var errNotEmpty = errors.New("directory not empty")

// SyncDir implements FS: the directory's current entries become durable.
func (m *MemFS) SyncDir(dir string) error {
	dir = clean(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	for name := range m.durable {
		if path.Dir(name) == dir {
			delete(m.durable, name)
		}
	}
	for name, n := range m.cur {
		if path.Dir(name) == dir {
			m.durable[name] = n
		}
	}
	return nil
}

// MkdirAll implements FS.
func (m *MemFS) MkdirAll(dir string) error {
	dir = clean(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := dir; !m.dirs[d]; d = path.Dir(d) {
		m.dirs[d] = true
	}
	return nil
}

// List implements FS.
func (m *MemFS) List(dir string) ([]string, error) {
	dir = clean(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for name := range m.cur {
		if path.Dir(name) == dir {
			names = append(names, path.Base(name))
		}
	}
	for d := range m.dirs {
		if d != dir && path.Dir(d) == dir {
			names = append(names, path.Base(d))
		}
	}
	sort.Strings(names)
	return names, nil
}

// CrashClone returns a new MemFS holding what a crash would leave: only
// entries made durable by SyncDir, each with the contents of its last Sync.
func (m *MemFS) CrashClone() *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := NewMem()
	for d := range m.dirs {
		c.dirs[d] = true
	}
	copies := map[*memNode]*memNode{}
	for name, n := range m.durable {
		cn, ok := copies[n]
		if !ok {
			data := append([]byte(nil), n.synced...)
			cn = &memNode{data: data, synced: append([]byte(nil), data...)}
			copies[n] = cn
		}
		c.cur[name] = cn
		c.durable[name] = cn
	}
	return c
}

// String lists the files and sizes, for test failure messages.
func (m *MemFS) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.cur))
	for name := range m.cur {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "%s (%d bytes)\n", name, len(m.cur[name].data))
	}
	return b.String()
}

type memFile struct {
	fs     *MemFS
	node   *memNode
	name   string
	off    int64
	write  bool
	closed bool
}

func (f *memFile) check(op string) error {
	if f.closed {
		return &fs.PathError{Op: op, Path: f.name, Err: fs.ErrClosed}
	}
	return nil
}

func (f *memFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check("read"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	d := f.node.data
	if off >= int64(len(d)) {
		return 0, io.EOF
	}
	n := copy(p, d[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if err := f.check("write"); err != nil {
		return 0, err
	}
	if !f.write {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrPermission}
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	d := f.node.data
	end := f.off + int64(len(p))
	if err := f.fs.grow(f.name, f.node, end); err != nil {
		return 0, err
	}
	if end > int64(len(d)) {
		d = append(d, make([]byte, end-int64(len(d)))...)
	}
	copy(d[f.off:], p)
	f.node.data = d
	f.off = end
	return len(p), nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.check("write"); err != nil {
		return 0, err
	}
	if !f.write {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrPermission}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrInvalid}
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	d := f.node.data
	end := off + int64(len(p))
	if err := f.fs.grow(f.name, f.node, end); err != nil {
		return 0, err
	}
	if end > int64(len(d)) {
		d = append(d, make([]byte, end-int64(len(d)))...)
	}
	copy(d[off:], p)
	f.node.data = d
	return len(p), nil
}

func (f *memFile) Close() error {
	if err := f.check("close"); err != nil {
		return err
	}
	f.closed = true
	return nil
}

func (f *memFile) Sync() error {
	if err := f.check("sync"); err != nil {
		return err
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	f.node.synced = append(f.node.synced[:0:0], f.node.data...)
	return nil
}

func (f *memFile) Size() (int64, error) {
	if err := f.check("stat"); err != nil {
		return 0, err
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return int64(len(f.node.data)), nil
}
