//go:build ignore

// gen writes docs/performance.md from docs/perf/*.json (go generate
// ./lab/perfdoc).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/veclab/veclab/lab/perfdoc"
)

func main() {
	docs := filepath.Join("..", "..", "docs")
	page, err := perfdoc.Page(filepath.Join(docs, "perf"))
	if err == nil {
		err = os.WriteFile(filepath.Join(docs, "performance.md"), []byte(page), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfdoc:", err)
		os.Exit(1)
	}
}
