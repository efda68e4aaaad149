//go:build js && wasm

package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/veclab/veclab/engine/vfs"
)

const simulated = true

// mem is the tab's scratch file system; next numbers its directories.
var (
	mu   sync.Mutex
	mem  = vfs.NewMemLimit(MemLimit)
	next int
)

func mkdir(prefix string) (vfs.FS, string, error) {
	mu.Lock()
	next++
	dir := fmt.Sprintf("/tmp/%s%d", prefix, next)
	mu.Unlock()
	return mem, dir, mem.MkdirAll(dir)
}

// removeAll removes every file under dir (a MemFS's directories are
// names only).
func removeAll(fsys vfs.FS, dir string) error {
	names, err := fsys.List(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		p := path.Join(dir, n)
		err := fsys.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			err = removeAll(fsys, p) // a directory
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
