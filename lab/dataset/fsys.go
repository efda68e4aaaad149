package dataset

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"

	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/scratch"
)

// dataFS is the file system data set directories, the data directory and
// the truth caches are on: the operating system's natively; in a browser
// (js/wasm, which has no files) the tab's in-memory file system
// (scratch.FS), whose scratch.MemLimit bytes they share with the
// experiments' scratch files: a write past it fails with an error wrapping
// vfs.ErrMemFull that names the file, and nothing survives the tab.
var dataFS = scratch.FS()

// memDataRoot is DataRoot in a browser: a directory of the tab's
// in-memory file system.
const memDataRoot = "/veclab/data"

// stat says what name is on dataFS.
func stat(name string) (fs.FileInfo, error) { return vfs.Stat(dataFS, name) }

// isFile and isDir report whether name is a file, a directory, on dataFS.
func isFile(name string) bool {
	st, err := stat(name)
	return err == nil && st.Mode().IsRegular()
}

func isDir(name string) bool {
	st, err := stat(name)
	return err == nil && st.IsDir()
}

// exists reports whether anything is at name on dataFS.
func exists(name string) bool {
	_, err := stat(name)
	return err == nil
}

// tempName is a new name for a temporary file or directory: base, the
// process's id and a random number, so concurrent writers do not meet.
func tempName(base string) string {
	return fmt.Sprintf("%s%d-%08x", base, os.Getpid(), rand.Uint32())
}
