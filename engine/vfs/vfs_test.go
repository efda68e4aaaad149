package vfs

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, fsys FS, name string, data []byte, sync bool) {
	t.Helper()
	f, err := fsys.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCreateExclusive(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys FS
		dir  string
	}{
		{"os", Default, t.TempDir()},
		{"mem", NewMem(), "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(tc.dir, "a")
			writeFile(t, tc.fsys, name, []byte("hello"), true)
			if _, err := tc.fsys.Create(name); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("second Create: got %v, want ErrExist", err)
			}
			got, err := ReadFile(tc.fsys, name)
			if err != nil || string(got) != "hello" {
				t.Fatalf("ReadFile = %q, %v", got, err)
			}
			if err := tc.fsys.Rename(name, filepath.Join(tc.dir, "b")); err != nil {
				t.Fatal(err)
			}
			if err := tc.fsys.SyncDir(tc.dir); err != nil {
				t.Fatal(err)
			}
			names, err := tc.fsys.List(tc.dir)
			if err != nil || len(names) != 1 || names[0] != "b" {
				t.Fatalf("List = %v, %v", names, err)
			}
			if _, err := tc.fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Open renamed: %v", err)
			}
			if err := tc.fsys.Remove(filepath.Join(tc.dir, "b")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCrashClone(t *testing.T) {
	m := NewMem()
	writeFile(t, m, "d/durable", []byte("kept"), true)
	if err := m.SyncDir("d"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, m, "d/unsynced-dir", []byte("lost"), true) // file synced, dir not
	f, _ := m.Open("d/durable")
	f.Close()
	// Append unsynced bytes to a durable file through a new writer-less path:
	// rename over it without a directory sync.
	writeFile(t, m, "d/tmp", []byte("new contents"), false)
	if err := m.Rename("d/tmp", "d/durable"); err != nil {
		t.Fatal(err)
	}

	c := m.CrashClone()
	got, err := ReadFile(c, "d/durable")
	if err != nil || !bytes.Equal(got, []byte("kept")) {
		t.Fatalf("after crash d/durable = %q, %v; want the synced old contents", got, err)
	}
	if _, err := c.Open("d/unsynced-dir"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("entry without SyncDir survived the crash: %v", err)
	}
	// Now make the rename durable but not the new file's data.
	if err := m.SyncDir("d"); err != nil {
		t.Fatal(err)
	}
	c = m.CrashClone()
	got, _ = ReadFile(c, "d/durable")
	if len(got) != 0 {
		t.Fatalf("unsynced data survived: %q", got)
	}
}

func TestErrorFS(t *testing.T) {
	m := NewMem()
	cnt := FailAfter(-1)
	e := NewErrorFS(m, cnt)
	writeFile(t, e, "x", []byte("abc"), true) // create, write, sync, close
	if cnt.Count() != 4 {
		t.Fatalf("counted %d operations, want 4", cnt.Count())
	}
	for n := 0; n < 4; n++ {
		e := NewErrorFS(NewMem(), FailAfter(n))
		f, err := e.Create("y")
		if err == nil {
			_, err = f.Write([]byte("abc"))
			if err == nil {
				err = f.Sync()
			}
			if err == nil {
				err = f.Close()
			}
		}
		if !errors.Is(err, ErrInjected) {
			t.Errorf("FailAfter(%d): got %v, want ErrInjected", n, err)
		}
	}
	var fail InjectorFunc = func(op Op, name string) error {
		if op == OpRename {
			return ErrInjected
		}
		return nil
	}
	e = NewErrorFS(m, fail)
	if err := e.Rename("x", "z"); !errors.Is(err, ErrInjected) {
		t.Fatalf("rename: %v", err)
	}
	if _, err := m.Open("x"); err != nil {
		t.Fatalf("failed rename changed the FS: %v", err)
	}
}

// TestMemLimit fills a limited MemFS: writes up to the limit succeed, the
// one past it fails before writing anything, naming the file and wrapping
// ErrMemFull, and removing a file makes room again.
func TestMemLimit(t *testing.T) {
	m := NewMemLimit(100)
	if err := WriteFile(m, "/a", make([]byte, 60)); err != nil {
		t.Fatal(err)
	}
	f, err := m.Create("/b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 40)); err != nil {
		t.Fatalf("a write up to the limit: %v", err)
	}
	for _, tc := range []struct {
		name  string
		write func() (int, error)
	}{
		{"Write", func() (int, error) { return f.Write([]byte{1}) }},
		{"WriteAt", func() (int, error) { return f.WriteAt([]byte{1, 2}, 39) }},
	} {
		n, err := tc.write()
		if n != 0 || !errors.Is(err, ErrMemFull) || !strings.Contains(err.Error(), "/b") || !strings.Contains(err.Error(), "100-byte limit") {
			t.Fatalf("%s past the limit: %d bytes, %v", tc.name, n, err)
		}
	}
	if n, _ := f.Size(); n != 40 {
		t.Fatalf("a refused write changed the file: %d bytes", n)
	}
	if _, err := f.WriteAt([]byte{9}, 0); err != nil {
		t.Fatalf("an overwrite within the file: %v", err)
	}
	if err := m.Remove("/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 60)); err != nil {
		t.Fatalf("after removing /a: %v", err)
	}
	if b, err := ReadFile(m, "/b"); err != nil || len(b) != 100 || b[0] != 9 {
		t.Fatalf("ReadFile: %d bytes, %v", len(b), err)
	}
}
