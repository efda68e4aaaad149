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
var frontKept = map[string]string{}

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
	// The experiment packages under lab/experiment are other packages:
	// what they call counts; this package's own files do not.
	self := filepath.Join(root, "lab", "experiment")
	skip := map[string]bool{
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
		if !strings.HasSuffix(path, ".go") || filepath.Dir(path) == self {
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
	// The experiment packages' Examples (lab/experiment/e06, …) show the
	// framework's verbs in use too.
	files, err := filepath.Glob("*example_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	sub, err := filepath.Glob("*/*example_test.go")
	if err != nil || len(sub) == 0 {
		t.Fatalf("no example files in the experiment packages: %v", err)
	}
	files = append(files, sub...)
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
