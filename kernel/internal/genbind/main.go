// Command genbind regenerates the gomacro import tables in kernel/bindings:
// one file per notebook-facing package, so that cells can `import` the
// compiled lab, engine and display packages.
//
// It drives gomacro's own generator (base/genimport, the code behind
// `gomacro -g`) in its "third party" mode inside a throw-away module whose
// go.mod replaces github.com/veclab/veclab with this checkout, so nothing is
// written outside the temporary directory and the output directory. It then
// renames the generated package to bindings and writes a table of doc
// comments (zdocs.go) that the kernel's inspect_request shows. The
// bindings' map literals become tables of data (tables.go).
//
// genimport predates go/types' *types.Alias, so genbind loads the packages
// through genimport, resolves their type aliases, and only then has
// genimport write the bindings (see alias.go).
//
// Generic functions, types and type aliases cannot be bound (gomacro
// limitation); genbind prints a warning for each one it skips. Packages in the list that do not
// exist (yet) are skipped with a warning too.
//
// Usage, from kernel/bindings (see its doc.go go:generate line):
//
//	go run ../internal/genbind [-o DIR] [import paths...]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", ".", "output directory (kernel/bindings)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genbind [-o DIR] [import paths...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = DefaultPackages
	}
	if err := Generate(*out, pkgs, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "genbind:", err)
		os.Exit(1)
	}
}
