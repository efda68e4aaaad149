//go:build !(js && wasm)

package scratch

import (
	"os"

	"github.com/veclab/veclab/engine/vfs"
)

const simulated = false

func mkdir(prefix string) (vfs.FS, string, error) {
	dir, err := os.MkdirTemp("", prefix)
	return vfs.Default, dir, err
}

func removeAll(_ vfs.FS, dir string) error { return os.RemoveAll(dir) }

func files() vfs.FS { return vfs.Default }
