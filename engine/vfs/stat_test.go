package vfs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

// TestDirectories checks the same directory steps on the OS's files and
// on MemFS, as lab/dataset's WriteLayout takes them on either: Stat of a
// file, a directory and a missing name; a directory renamed with what it
// holds; a rename onto a directory that holds something refused; Remove
// of a directory that holds something refused; RemoveAll; and Stat through
// an FS without one (ErrorFS finds files only).
func TestDirectories(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys FS
		dir  string
	}{
		{"os", Default, t.TempDir()},
		{"mem", NewMem(), "/d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fsys
			j := func(p ...string) string { return filepath.Join(append([]string{tc.dir}, p...)...) }
			if err := f.MkdirAll(j("tmp", "sub")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, f, j("tmp", "a"), []byte("hello"), true)
			writeFile(t, f, j("tmp", "sub", "b"), []byte("hi"), true)
			if st, err := Stat(f, j("tmp", "a")); err != nil || st.IsDir() || st.Size() != 5 || !st.Mode().IsRegular() {
				t.Fatalf("Stat of a file: %v, %v", st, err)
			}
			if st, err := Stat(f, j("tmp", "sub")); err != nil || !st.IsDir() {
				t.Fatalf("Stat of a directory: %v, %v", st, err)
			}
			if _, err := Stat(f, j("none")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Stat of a missing name: %v", err)
			}
			if st, err := Stat(NewErrorFS(f, FailAfter(-1)), j("tmp", "a")); err != nil || st.Size() != 5 {
				t.Fatalf("Stat through ErrorFS: %v, %v", st, err)
			}
			if err := f.Remove(j("tmp")); err == nil {
				t.Fatal("Remove of a directory holding files succeeded")
			}
			if err := f.MkdirAll(j("full")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, f, j("full", "x"), nil, false)
			if err := f.Rename(j("tmp"), j("full")); err == nil {
				t.Fatal("Rename onto a directory holding a file succeeded")
			}
			if err := f.Rename(j("tmp"), j("set")); err != nil {
				t.Fatal(err)
			}
			if got, err := ReadFile(f, j("set", "sub", "b")); err != nil || string(got) != "hi" {
				t.Fatalf("after the rename set/sub/b = %q, %v", got, err)
			}
			if _, err := Stat(f, j("tmp")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the old name after the rename: %v", err)
			}
			if names, err := f.List(tc.dir); err != nil || !slices.Equal(names, []string{"full", "set"}) {
				t.Fatalf("List = %v, %v", names, err)
			}
			for _, d := range []string{"set", "full", "none"} {
				if err := RemoveAll(f, j(d)); err != nil {
					t.Fatal(err)
				}
			}
			if names, err := f.List(tc.dir); err != nil || len(names) != 0 {
				t.Fatalf("after RemoveAll: List = %v, %v", names, err)
			}
		})
	}
}
