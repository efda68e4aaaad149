package vfs_test

import (
	"errors"
	"fmt"

	"github.com/veclab/veclab/engine/vfs"
)

// A file whose directory entry was never synced does not survive a crash.
func ExampleMemFS_CrashClone() {
	m := vfs.NewMem()
	for _, name := range []string{"db/a", "db/b"} {
		f, _ := m.Create(name)
		f.Write([]byte(name))
		f.Sync()
		f.Close()
		if name == "db/a" {
			m.SyncDir("db") // only a's entry is made durable
		}
	}
	after := m.CrashClone()
	names, _ := after.List("db")
	fmt.Println(names)
	// Output: [a]
}

// FailAfter fails the n-th operation and every later one.
func ExampleFailAfter() {
	e := vfs.NewErrorFS(vfs.NewMem(), vfs.FailAfter(1))
	f, err := e.Create("x") // operation 0 succeeds
	fmt.Println(err)
	_, err = f.Write([]byte("data")) // operation 1 fails
	fmt.Println(errors.Is(err, vfs.ErrInjected))
	// Output:
	// <nil>
	// true
}
