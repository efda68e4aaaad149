//go:build !unix

package history

import "os"

// lock does nothing here: two kernels starting at the same moment may
// draw the same session number.
func lock(*os.File) (func(), error) { return func() {}, nil }
