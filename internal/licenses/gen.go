//go:build ignore

// gen writes THIRD_PARTY_LICENSES.md at the top of the checkout; run it
// with go generate ./internal/licenses.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/veclab/veclab/internal/checkout"
	"github.com/veclab/veclab/internal/licenses"
)

func main() {
	root, err := checkout.Find()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b, err := licenses.Render(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join(root, licenses.FileName), b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
