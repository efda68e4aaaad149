// Command asmgen generates the amd64 assembly of veclab's kernels with avo
// (github.com/mmcloughlin/avo). It is a nested module so that avo and its
// dependencies never enter the main module's go.mod.
//
// It sits beside the packages it generates for, engine/internal/f32 and
// engine/internal/bitsx, and belongs to neither. Each generator is
// registered by name from its own file (f32.go, bitsx.go) and writes one
// assembly file and one Go stub file into the directory given by -out. Run
// it through go generate from the package that owns the output, e.g. in
// engine/internal/f32:
//
//	go run -C ../asmgen . -gen f32 -out ../f32
//
// The header of every file it writes names the command without -out, so
// running it into any directory gives byte-identical files; f32 and bitsx
// each have a test that does exactly that and compares.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
)

// generator describes one pair of generated files.
type generator struct {
	name       string // registry key, the -gen value
	pkg        string // Go package name of the output
	asm        string // assembly file name, e.g. dist_amd64.s
	stubs      string // stub file name, e.g. stubs_amd64.go
	constraint string // build constraint of both files, e.g. "!purego"
	build      func(c *build.Context)
}

var generators = map[string]*generator{}

// register adds g to the registry; it panics on a duplicate name, which is a
// programming error in this command.
func register(g *generator) {
	if _, dup := generators[g.name]; dup {
		panic("asmgen: duplicate generator " + g.name)
	}
	generators[g.name] = g
}

func names() []string {
	var ns []string
	for n := range generators {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// run builds generator g and writes its two files into dir.
func run(g *generator, dir string) error {
	c := build.NewContext()
	if g.constraint != "" {
		c.ConstraintExpr(g.constraint)
	}
	g.build(c)
	f, err := c.Result()
	if err != nil {
		return fmt.Errorf("asmgen %s: %w", g.name, err)
	}
	if err := pass.Compile.Execute(f); err != nil {
		return fmt.Errorf("asmgen %s: compile: %w", g.name, err)
	}
	cfg := printer.Config{Argv: []string{"go", "run", ".", "-gen", g.name}, Pkg: g.pkg}
	for _, out := range []struct {
		file string
		p    printer.Printer
	}{
		{g.asm, printer.NewGoAsm(cfg)},
		{g.stubs, printer.NewStubs(cfg)},
	} {
		b, err := out.p.Print(f)
		if err != nil {
			return fmt.Errorf("asmgen %s: print %s: %w", g.name, out.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, out.file), b, 0o644); err != nil {
			return fmt.Errorf("asmgen %s: %w", g.name, err)
		}
	}
	return nil
}

func main() {
	// A FlagSet of our own: avo's build package registers its flags on the
	// default set, and we use avo as a library, not through build.Generate.
	fs := flag.NewFlagSet("asmgen", flag.ExitOnError)
	gen := fs.String("gen", "", fmt.Sprintf("generator to run (one of %v)", names()))
	out := fs.String("out", ".", "directory to write the generated files into")
	_ = fs.Parse(os.Args[1:])
	g, ok := generators[*gen]
	if !ok {
		fmt.Fprintf(os.Stderr, "asmgen: unknown generator %q; have %v\n", *gen, names())
		os.Exit(2)
	}
	if err := run(g, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
