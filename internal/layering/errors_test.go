package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The module's error convention is `pkg: what: %w`: the package of origin
// first, what went wrong, and the wrapped cause last, so a message read
// left to right goes from where it happened to why. errorStyle checks the
// parts of it that can be checked mechanically in one file:
//
//   - a fmt.Errorf format that wraps (%w) never starts with the wrapped
//     error ("%w: …" hides the package of origin behind the sentinel's),
//     and its last verb is %w;
//   - a package-level sentinel (var ErrX = errors.New(…)) starts with its
//     package's name and a colon.
//
// Messages of intermediate errors that a caller wraps again ("segment %d:
// %w") are not required to repeat the package name.
func errorStyle(fset *token.FileSet, f *ast.File) []string {
	pkg := f.Name.Name
	var out []string
	bad := func(n ast.Node, format string, args ...any) {
		out = append(out, fset.Position(n.Pos()).String()+": "+fmt.Sprintf(format, args...))
	}
	// leftmost returns the first string literal of a format expression
	// ("…" or "…"+x), and whether the whole format is that literal.
	var leftmost func(e ast.Expr) (string, bool, bool)
	leftmost = func(e ast.Expr) (string, bool, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false, false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil, err == nil
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				s, ok, _ := leftmost(e.X)
				return s, ok, false
			}
		case *ast.ParenExpr:
			return leftmost(e.X)
		}
		return "", false, false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fmt" || sel.Sel.Name != "Errorf" {
			return true
		}
		s, ok, whole := leftmost(c.Args[0])
		if !ok {
			return true
		}
		if strings.HasPrefix(s, "%w") {
			if pkg == "main" { // main prints the command's name first
				bad(c, "fmt.Errorf(%q, …) starts with the wrapped error: write \"what: %%w\"", s)
			} else {
				bad(c, "fmt.Errorf(%q, …) starts with the wrapped error: write \"%s: what: %%w\"", s, pkg)
			}
		} else if whole && strings.Contains(s, "%w") {
			last := strings.LastIndex(s, "%")
			for last > 0 && s[last-1] == '%' { // %% is not a verb
				last = strings.LastIndex(s[:last-1], "%")
			}
			if last < 0 || !strings.HasPrefix(s[last:], "%w") {
				bad(c, "fmt.Errorf(%q, …): the wrapped error (%%w) goes last", s)
			}
		}
		return true
	})
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Err") || i >= len(vs.Values) {
					continue
				}
				c, ok := vs.Values[i].(*ast.CallExpr)
				if !ok || len(c.Args) != 1 {
					continue
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if x, ok2 := sel.X.(*ast.Ident); !ok || !ok2 || x.Name != "errors" || sel.Sel.Name != "New" {
					continue
				}
				if s, ok, _ := leftmost(c.Args[0]); ok && !strings.HasPrefix(s, pkg+": ") {
					bad(c, "sentinel %s = errors.New(%q) does not start with %q", name.Name, s, pkg+": ")
				}
			}
		}
	}
	return out
}

func TestErrorStyleCatchesViolations(t *testing.T) {
	const src = `package quant

import ("errors"; "fmt")

var ErrBad = errors.New("bad thing")
var ErrGood = errors.New("quant: good thing")

func f(err error, n int) error {
	_ = fmt.Errorf("%w: code of %d bytes", err, n)
	_ = fmt.Errorf("quant: at %d: %w (%v)", n, err, n)
	_ = fmt.Errorf("%w: quant: "+"x", err)
	_ = fmt.Errorf("quant: code of %d bytes: %w", n, err)
	_ = fmt.Errorf("quant: 100%%: %w", err)
	return fmt.Errorf("quant: %w (%w)", err, err)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := errorStyle(fset, f)
	want := []string{"starts with the wrapped", "goes last", "starts with the wrapped", "sentinel ErrBad"}
	if len(got) != len(want) {
		t.Fatalf("errorStyle found %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to mention %q", i, got[i], w)
		}
	}
}

// errorStyleExempt lists files TestErrorStyle leaves out, each with the
// reason.
var errorStyleExempt = map[string]string{}

// TestErrorStyle applies errorStyle to every non-test Go file of engine/,
// lab/, kernel/, cmd/, bench/ and wasm/ (errorStyleExempt aside). In cmd/veclab, main
// prints every error of a command after "veclab <command>: ", so there
// the command is the package of origin and a message starts with what.
func TestErrorStyle(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	for _, dir := range []string{"engine", "lab", "kernel", "cmd", "bench", "wasm"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			exempt := errorStyleExempt[filepath.ToSlash(rel)] != ""
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			files++
			problems := errorStyle(fset, f)
			if exempt {
				if len(problems) == 0 {
					t.Errorf("%s follows the convention now: remove it from errorStyleExempt", rel)
				}
				return nil
			}
			for _, p := range problems {
				rel, _ := filepath.Rel(root, p)
				t.Error(rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("checked only %d files: the check would pass vacuously", files)
	}
}
