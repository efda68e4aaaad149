package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmos72/gomacro/base/genimport"
	"github.com/cosmos72/gomacro/base/output"

	"github.com/veclab/veclab/internal/checkout"
)

// Module is the import path of this module.
const Module = checkout.Module

// DefaultPackages are the notebook-facing packages bound for cells. Those
// that do not exist yet are skipped with a warning.
var DefaultPackages = []string{
	Module + "/engine",
	Module + "/engine/vec",
	Module + "/engine/flat",
	Module + "/engine/hnsw",
	Module + "/engine/nested",
	Module + "/engine/segment",
	Module + "/engine/quant",
	Module + "/engine/ivf",
	Module + "/engine/ivfpq",
	Module + "/engine/filter",
	Module + "/engine/filtered",
	Module + "/engine/rescore",
	Module + "/engine/store",
	Module + "/engine/vfs",
	Module + "/lab/dataset",
	Module + "/lab/dataset/bulk",
	Module + "/lab/bench",
	Module + "/lab/metrics",
	Module + "/lab/measure",
	Module + "/lab/profile",
	Module + "/lab/advise",
	Module + "/lab/experiment",
	Module + "/lab/experiment/e01",
	Module + "/lab/experiment/e02",
	Module + "/lab/experiment/e03",
	Module + "/lab/experiment/e04",
	Module + "/lab/experiment/e05",
	Module + "/lab/experiment/e06",
	Module + "/lab/experiment/e07",
	Module + "/lab/experiment/e08",
	Module + "/lab/experiment/e09",
	Module + "/lab/experiment/e10",
	Module + "/lab/experiment/e11",
	Module + "/lab/experiment/e12",
	Module + "/lab/experiment/e13",
	Module + "/lab/experiment/e14",
	Module + "/lab/experiment/e15",
	Module + "/lab/experiment/e16",
	Module + "/lab/experiment/e17",
	Module + "/lab/experiment/e18",
	Module + "/lab/experiment/e19",
	Module + "/lab/experiment/e20",
	Module + "/lab/experiment/e21",
	Module + "/lab/experiment/e22",
	Module + "/lab/experiment/e23",
	Module + "/lab/experiment/e24",
	Module + "/lab/experiment/e25",
	Module + "/lab/experiment/e26",
	Module + "/lab/experiment/e27",
	Module + "/lab/experiment/realsets",
	Module + "/lab/table",
	Module + "/lab/chart",
	Module + "/lab/picture",
	Module + "/lab/quantizers",
	Module + "/lab/scratch",
	Module + "/lab/exercise",
	Module + "/kernel/display",
	Module + "/kernel/widget",
}

// Generate writes one x_*.go binding file per package of pkgs that exists,
// and zdocs.go, into outDir, replacing the x_*.go files already there.
func Generate(outDir string, pkgs []string, logw io.Writer) (err error) {
	root, err := checkout.Find()
	if err != nil {
		return err
	}
	var present []string
	for _, p := range pkgs {
		if !strings.HasPrefix(p, Module+"/") && p != Module {
			return fmt.Errorf("package %q is not in module %s", p, Module)
		}
		if hasGoFiles(pkgDir(root, p)) {
			present = append(present, p)
		} else {
			fmt.Fprintf(logw, "genbind: warning: skipping %s: no such package (yet)\n", p)
		}
	}
	if len(present) == 0 {
		return fmt.Errorf("none of the %d packages exists", len(pkgs))
	}

	tmp, err := os.MkdirTemp("", "genbind")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// genimport loads the packages from a module in work whose go.mod
	// requires this one.
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	gomod := fmt.Sprintf("module veclab.genbind\n\ngo 1.26.0\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", Module, Module, root)
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(work, "go.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	// Fill the module cache with the main module's whole build list first,
	// with the caller's proxy settings: on a fresh machine nothing may have
	// built the packages being bound yet (e.g. when only this package is
	// tested). It is a no-op when the cache already holds them.
	dl := exec.Command("go", "mod", "download")
	dl.Dir = root
	if out, err := dl.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download in the main module: %v: %s", err, bytes.TrimSpace(out))
	}
	// Then offline and hermetic: everything comes from the module cache.
	// (With a proxy, `go get` would also ask it whether each bound package
	// path is a module of its own.)
	os.Setenv("GOPROXY", "off")
	os.Setenv("GOSUMDB", "off")
	os.Setenv("GOWORK", "off")
	os.Setenv("GOFLAGS", "-mod=mod")

	// genimport's own ImportPackagesOrError would load and write in one
	// step; aliases must be resolved in between (alias.go).
	var glog bytes.Buffer
	o := &output.Output{Stdout: &glog, Stderr: &glog}
	generated := map[string][]byte{}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("gomacro genimport: %v", r)
			}
		}()
		var loaded map[string]*types.Package
		loaded, err = genimport.DefaultImporter(o).Load(work, present, genimport.ImThirdParty, true)
		if err != nil {
			return
		}
		for _, p := range present {
			pkg, ok := loaded[p]
			if !ok {
				err = fmt.Errorf("genimport loaded no package %s", p)
				return
			}
			var buf bytes.Buffer
			createImportFile(o, &buf, p, resolveAliases(pkg, o), genimport.ImThirdParty)
			generated[p] = buf.Bytes()
		}
	}()
	for _, line := range strings.Split(glog.String(), "\n") {
		if line != "" {
			fmt.Fprintln(logw, "genbind:", strings.TrimPrefix(line, "// "))
		}
	}
	if err != nil {
		return err
	}

	old, _ := filepath.Glob(filepath.Join(outDir, "x_*.go"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, p := range present {
		path, body, err := rewrite(generated[p])
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if path != p {
			return fmt.Errorf("genimport wrote bindings of %s for %s", path, p)
		}
		name := "x_" + fileKey(path) + ".go"
		if err := os.WriteFile(filepath.Join(outDir, name), body, 0o644); err != nil {
			return err
		}
	}
	docs, err := docTable(root, present)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "zdocs.go"), docs, 0o644)
}

// rewrite turns a genimport "thirdparty" file into a kernel/bindings file,
// its tables as data (tables).
func rewrite(b []byte) (path string, out []byte, err error) {
	s := string(b)
	const head = "// this file was generated by gomacro command: import "
	if !strings.HasPrefix(s, head) {
		return "", nil, fmt.Errorf("unexpected genimport header")
	}
	nl := strings.IndexByte(s, '\n')
	path, err = strconv.Unquote(strings.TrimSpace(s[len(head):nl]))
	if err != nil {
		return "", nil, fmt.Errorf("unexpected genimport header: %w", err)
	}
	i := strings.Index(s, "\npackage thirdparty\n")
	if i < 0 {
		return "", nil, fmt.Errorf("no package clause")
	}
	s = "// Code generated by kernel/internal/genbind (gomacro genimport) for " + path + "; DO NOT EDIT.\n" +
		"// Regenerate with: go generate ./kernel/bindings\n\npackage bindings\n" + s[i+len("\npackage thirdparty\n"):]
	out, err = tables([]byte(s), fileKey(path))
	return path, out, err
}

// fileKey is the part of a bound package's path that names its file
// (x_KEY.go) and its tables: the path in the module, "/" made "_".
func fileKey(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(path, Module), "/"), "/", "_")
}

func pkgDir(root, path string) string {
	return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, Module), "/")))
}

func hasGoFiles(dir string) bool {
	bp, err := build.ImportDir(dir, 0)
	return err == nil && len(bp.GoFiles) > 0
}

// docTable renders the doc comments of every exported symbol of pkgs as a
// Go map literal: "import/path.Name" and "import/path.Type.Method" → the
// declaration followed by its doc comment.
func docTable(root string, pkgs []string) ([]byte, error) {
	entries := map[string]string{}
	for _, p := range pkgs {
		dir := pkgDir(root, p)
		bp, err := build.ImportDir(dir, build.ImportComment)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range bp.GoFiles {
			if strings.HasPrefix(name, "x_") { // never document stale bindings
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		dp, err := doc.NewFromFiles(fset, files, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		entries[p] = "package " + dp.Name + " // import \"" + p + "\"\n\n" + synopsisDoc(dp.Doc)
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				text := render(fset, v.Decl) + "\n\n" + v.Doc
				for _, n := range v.Names {
					if ast.IsExported(n) {
						entries[p+"."+n] = text
					}
				}
			}
		}
		funcs := func(prefix string, fs []*doc.Func) {
			for _, f := range fs {
				decl := *f.Decl
				decl.Body = nil
				decl.Doc = nil
				entries[prefix+f.Name] = render(fset, &decl) + "\n\n" + f.Doc
			}
		}
		values(dp.Consts)
		values(dp.Vars)
		funcs(p+".", dp.Funcs)
		for _, t := range dp.Types {
			decl := *t.Decl
			decl.Doc = nil
			entries[p+"."+t.Name] = render(fset, &decl) + "\n\n" + t.Doc
			values(t.Consts)
			values(t.Vars)
			funcs(p+".", t.Funcs)
			funcs(p+"."+t.Name+".", t.Methods)
		}
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("// Code generated by kernel/internal/genbind; DO NOT EDIT.\n// Regenerate with: go generate ./kernel/bindings\n\npackage bindings\n\n")
	b.WriteString("// Docs maps \"import/path.Name\" and \"import/path.Type.Method\" (and the bare\n// import path) to the declaration and doc comment shown by inspect_request.\nvar Docs = map[string]string{\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%s: %s,\n", strconv.Quote(k), strconv.Quote(strings.TrimSpace(entries[k])+"\n"))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func synopsisDoc(s string) string {
	const max = 4000
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

func render(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, fset, n); err != nil {
		return ""
	}
	s := b.String()
	if lines := strings.Split(s, "\n"); len(lines) > 40 {
		s = strings.Join(lines[:40], "\n") + "\n\t// … (truncated)"
	}
	return s
}
