package experiment

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The package's front is what a notebook, a command or another package
// calls; everything else is unexported, so a notebook author reading
// `go doc` sees the entry points and not the helpers behind them. These
// tests keep it so.

// root is the module's root, from this package's directory.
const root = "../.."

// frontKept are exported names nothing outside the package names yet,
// each with why it stays exported.
var frontKept = map[string]string{
	"ErrNotRunnable": "the sentinel the package doc promises: a caller branches on it to skip an experiment",
	"ParseE25Config": "E25Config prints and parses, as every config does (the house rule for configs); String is its other half",
	// Notebook 02 measures E02 and E06 step by step with lab/measure; these
	// stay exported until the experiment moves to its own package (issue 40),
	// where they become that package's Default, Measure, Table and Chart.
	"E06Default":         "E06's sweep (the article's EF_RUNTIME values), which veclab reproduce runs; notebook 02 sweeps the same values with measure.SweepEf",
	"E06MeasureFiltered": "E06's filtered sweep for veclab reproduce; notebook 02 runs it with Queries.Where and measure.SweepEf",
	"E06Table":           "E06's table in veclab reproduce's report; notebook 02 puts the article beside the lab with measure.Beside",
	"E06Chart":           "E06's chart in veclab reproduce's report; notebook 02 draws chart.Compare of measure.Beside's table",
	"MeasureProfile":     "one store on its defaults measured through Env, as E02Measure does for veclab reproduce; notebook 02 builds and measures with Profile.Build and measure.Store",
	// Notebook 03 measures E05 and E10 the same way.
	"E05Default": "E05's sweep (the article's num_candidates values), which veclab reproduce runs; notebook 03 sweeps the same values with measure.SweepEf",
	"E05Measure": "E05's sweep for veclab reproduce; notebook 03 runs it with measure.SweepEf on the default Elasticsearch store",
	"E05Table":   "E05's table in veclab reproduce's report; notebook 03 puts the article beside the lab with measure.Beside",
	"E05Chart":   "E05's chart in veclab reproduce's report; notebook 03 draws chart.Compare of measure.Beside's table",
	"E10Measure": "E10's three index types for veclab reproduce; notebook 03 builds each with Profile.Build and measures it with measure.Store, filtered through Queries.Where",
	"E10Table":   "E10's table in veclab reproduce's report; notebook 03 puts the article beside the lab with measure.Beside",
}

// exportedFront parses the package's non-test files and returns its
// exported functions, variables and constants (not types, which come
// with the signatures that name them, and not the values of its own enum
// types, which come with those types).
func exportedFront(t *testing.T) (funcs, values []string) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
					for _, s := range g.Specs {
						local[s.(*ast.TypeSpec).Name.Name] = true
					}
				}
			}
		}
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.IsExported() {
						funcs = append(funcs, d.Name.Name)
					}
				case *ast.GenDecl:
					if d.Tok != token.VAR && d.Tok != token.CONST {
						continue
					}
					enum := false
					for _, s := range d.Specs {
						vs := s.(*ast.ValueSpec)
						if id, ok := vs.Type.(*ast.Ident); ok && d.Tok == token.CONST && local[id.Name] {
							enum = true // a typed constant group of this package's type: its values
						}
						for _, n := range vs.Names {
							if n.IsExported() && !enum {
								values = append(values, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(funcs)
	sort.Strings(values)
	return funcs, values
}

var qualifiedRE = regexp.MustCompile(`\bexperiment\.([A-Z]\w*)`)

// notebookNames returns the names of this package the notebooks' code
// cells use.
func notebookNames(t *testing.T) map[string]bool {
	t.Helper()
	books, err := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	if err != nil || len(books) == 0 {
		t.Fatalf("no notebooks under %s: %v", filepath.Join(root, "notebooks"), err)
	}
	names := map[string]bool{}
	for _, path := range books {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string          `json:"cell_type"`
				Source json.RawMessage `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range nb.Cells {
			if c.Type != "code" {
				continue
			}
			var lines []string
			if err := json.Unmarshal(c.Source, &lines); err != nil {
				var one string
				if err := json.Unmarshal(c.Source, &one); err != nil {
					t.Fatalf("%s: a cell's source is neither a string nor a list: %v", path, err)
				}
				lines = []string{one}
			}
			for _, m := range qualifiedRE.FindAllStringSubmatch(strings.Join(lines, ""), -1) {
				names[m[1]] = true
			}
		}
	}
	return names
}

// goNames returns the names of this package the module's Go files use
// outside it (the generated bindings aside: they bind whatever is
// exported).
func goNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	skip := map[string]bool{
		filepath.Join(root, "lab", "experiment"):  true,
		filepath.Join(root, "kernel", "bindings"): true,
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[path] || path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), `"github.com/veclab/veclab/lab/experiment"`) {
			return nil
		}
		for _, m := range qualifiedRE.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no Go file outside lab/experiment uses it: the walk is broken (cmd/veclab does)")
	}
	return names
}

// TestFrontUsed checks that every exported function, variable and
// constant is used by a notebook's code, by a Go file elsewhere in the
// module, or is kept on purpose (frontKept); a helper that nothing
// outside calls is unexported instead.
func TestFrontUsed(t *testing.T) {
	nb, other := notebookNames(t), goNames(t)
	funcs, values := exportedFront(t)
	if len(funcs) == 0 || len(values) == 0 {
		t.Fatalf("parsed %d functions and %d values: the parse is broken", len(funcs), len(values))
	}
	inNotebooks := 0
	for _, n := range append(funcs, values...) {
		if nb[n] {
			inNotebooks++
		}
		if !nb[n] && !other[n] && frontKept[n] == "" {
			t.Errorf("experiment.%s is exported but no notebook, command or other package uses it: unexport it (or say in frontKept why it stays)", n)
		}
	}
	t.Logf("front: %d functions and %d variables and constants exported, %d of them used in notebooks' code", len(funcs), len(values), inNotebooks)
	for n := range frontKept {
		if nb[n] || other[n] {
			t.Errorf("frontKept lists %s, which is used now: drop it from the list", n)
		}
	}
}

// TestExamplesCoverNotebookCalls checks that every function of the
// package a notebook calls appears in one of the package's Examples
// (example_test.go and the e*_example_test.go files), so `go doc` shows
// each entry point in use and the compiler keeps the examples true.
func TestExamplesCoverNotebookCalls(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*example_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	inExamples := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fd.Name.Name, "Example") {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := se.X.(*ast.Ident); ok && id.Name == "experiment" {
						inExamples[se.Sel.Name] = true
					}
				}
				return true
			})
		}
	}
	nb := notebookNames(t)
	funcs, _ := exportedFront(t)
	called := 0
	for _, n := range funcs {
		if !nb[n] {
			continue
		}
		called++
		if !inExamples[n] {
			t.Errorf("notebooks call experiment.%s but no Example does: add it to the Example of its experiment in example_test.go", n)
		}
	}
	if called == 0 {
		t.Fatal("no notebook calls a function of the package: the notebook parse is broken")
	}
}
