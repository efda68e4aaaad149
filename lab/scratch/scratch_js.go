//go:build js && wasm

package scratch

import (
	"fmt"
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

// removeAll removes the directory and every file under it.
func removeAll(fsys vfs.FS, dir string) error { return vfs.RemoveAll(fsys, dir) }

func files() vfs.FS { return mem }
