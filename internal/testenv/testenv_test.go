package testenv

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestList checks the list itself: every external has a provider and a
// detector, names are unique, what one requires is listed before it, and
// each npm package it names is pinned by its directory's lock file.
func TestList(t *testing.T) {
	pos := map[*External]int{}
	names := map[string]bool{}
	for i, e := range All() {
		if e.Name == "" || e.What == "" || e.detect == nil {
			t.Errorf("external %d (%q) lacks a name, a description or a detector", i, e.Name)
		}
		if names[e.Name] {
			t.Errorf("two externals named %q", e.Name)
		}
		names[e.Name] = true
		if (len(e.Debian) == 0) == (e.NPMDir == "") {
			t.Errorf("%s: give either Debian packages or an npm directory, not %v and %q", e.Name, e.Debian, e.NPMDir)
		}
		for _, r := range e.Requires {
			j, ok := pos[r]
			if !ok {
				t.Errorf("%s requires %s, which is not listed before it in All", e.Name, r.Name)
			} else if j >= i {
				t.Errorf("%s requires %s, listed after it", e.Name, r.Name)
			}
		}
		pos[e] = i
		if e.NPMDir != "" {
			pins, err := lockPins(e.Dir())
			if err != nil {
				t.Errorf("%s: %v", e.Name, err)
				continue
			}
			if len(e.NPM) == 0 {
				t.Errorf("%s names no npm package", e.Name)
			}
			for _, p := range e.NPM {
				if pins[p] == "" {
					t.Errorf("%s: %s/package-lock.json does not pin %s", e.Name, e.NPMDir, p)
				}
			}
		}
	}
}

// TestLine pins the line a skip (or a CI failure) prints.
func TestLine(t *testing.T) {
	for _, tc := range []struct {
		missing []*External
		want    string
	}{
		{[]*External{Hnswlib}, "needs libhnswlib-dev: apt-get install -y libhnswlib-dev (./test.sh installs everything)"},
		{[]*External{CXX, Hnswlib}, "needs g++; libhnswlib-dev: apt-get install -y g++ libhnswlib-dev (./test.sh installs everything)"},
		{[]*External{Node, PGlite}, "needs nodejs; @electric-sql/pglite, @electric-sql/pglite-pgvector, @electric-sql/pglite-socket in lab/pglive/server: apt-get install -y nodejs && (cd lab/pglive/server && npm ci) (./test.sh installs everything)"},
	} {
		if got := Line(tc.missing); got != tc.want {
			t.Errorf("Line:\n got %s\nwant %s", got, tc.want)
		}
	}
}

// fakeTB records what Need does to a test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skip(args ...any)      { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatal(args ...any)     { f.failed = fmt.Sprint(args...) }
func (f *fakeTB) Skipf(string, ...any)  { panic("Need skips with Skip") }
func (f *fakeTB) Fatalf(string, ...any) { panic("Need fails with Fatal") }

// TestNeed checks that a missing external skips the test outside CI and
// fails it under CI=true, with the same line, and that a present one does
// neither.
func TestNeed(t *testing.T) {
	gone := &External{Name: "gone", What: "a test external", Debian: []string{"veclab-gone"},
		detect: func(*External) error { return errors.New("not here") }}
	here := &External{Name: "here", What: "a test external", Debian: []string{"veclab-here"},
		detect: func(*External) error { return nil }}
	onTop := &External{Name: "on top", What: "needs gone", Debian: []string{"veclab-on-top"}, Requires: []*External{gone},
		detect: func(*External) error { return nil }}
	// on top is present but requires gone: both are named.
	want := "needs veclab-gone; veclab-on-top: apt-get install -y veclab-gone veclab-on-top (./test.sh installs everything)"
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			var f fakeTB
			Need(&f, here)
			if f.skipped != "" || f.failed != "" {
				t.Fatalf("a present external: skipped %q, failed %q", f.skipped, f.failed)
			}
			Need(&f, here, onTop)
			got := f.skipped
			if ci == "true" {
				got = f.failed
				if f.skipped != "" {
					t.Errorf("under CI it skipped: %q", f.skipped)
				}
			} else if f.failed != "" {
				t.Errorf("outside CI it failed: %q", f.failed)
			}
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// allowedPrograms may be run by a literal name from a test: the Go tool
// (the one thing a machine is assumed to have) and the shell.
var allowedPrograms = map[string]bool{"go": true, "sh": true, "bash": true}

// externalPath matches a constant that holds where an external lives.
var externalPath = regexp.MustCompile(`^/usr/(bin|sbin|include|lib|share)/|^/opt/`)

// checkTestFile reports the places in one test file that drive an external
// without this package: a program run by a literal name or path other than
// go, sh and bash, and a constant or variable holding an external's path.
func checkTestFile(fset *token.FileSet, f *ast.File) []string {
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Name != "exec" {
				return true
			}
			arg := -1
			switch sel.Sel.Name {
			case "Command", "LookPath":
				arg = 0
			case "CommandContext":
				arg = 1
			}
			if arg < 0 || arg >= len(n.Args) {
				return true
			}
			if lit, ok := n.Args[arg].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if name, err := strconv.Unquote(lit.Value); err == nil && !allowedPrograms[name] {
					bad = append(bad, fmt.Sprintf("%s: exec.%s(%s): ask internal/testenv for it (testenv.Need and its Path)", fset.Position(lit.Pos()), sel.Sel.Name, lit.Value))
				}
			}
		case *ast.ValueSpec:
			for _, v := range n.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && externalPath.MatchString(s) {
						bad = append(bad, fmt.Sprintf("%s: %s names an external's path: ask internal/testenv for it", fset.Position(lit.Pos()), lit.Value))
					}
				}
			}
		}
		return true
	})
	return bad
}

// TestCheckTestFile shows the check catches what it is meant to.
func TestCheckTestFile(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`exec.Command("node", "x.js")`, 1},
		{`exec.CommandContext(ctx, "g++", "-O3")`, 1},
		{`exec.LookPath("chromium")`, 1},
		{`exec.Command("go", "build")`, 0},
		{`exec.Command(testenv.Node.Path(), "x.js")`, 0},
		{`exec.Command(bin, "run")`, 0},
	} {
		src := "package p\nfunc f() { " + tc.src + " }\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x_test.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := checkTestFile(fset, f); len(got) != tc.want {
			t.Errorf("%s: %d reports %v, want %d", tc.src, len(got), got, tc.want)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", "package p\nconst python = \"/usr/bin/python3\"\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := checkTestFile(fset, f); len(got) != 1 {
		t.Errorf("a constant holding /usr/bin/python3: %v", got)
	}
}

// TestTestsAskTestenv runs the check over every test file of the module:
// a test that drives an external this list does not name fails here.
func TestTestsAskTestenv(t *testing.T) {
	root := Root()
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", ".cache":
				return filepath.SkipDir
			}
			if path != root && d.Name()[0] == '.' {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == filepath.Join(root, "internal", "testenv") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		n++
		for _, b := range checkTestFile(fset, f) {
			t.Error(strings.TrimPrefix(b, root+string(filepath.Separator)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("checked only %d test files under %s", n, root)
	}
}

// TestDocsList keeps docs/testing.md's table the list's.
func TestDocsList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(Root(), "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), Table()) {
		t.Errorf("docs/testing.md does not hold the list; paste the output of go run ./internal/testenv/setup -list:\n%s", Table())
	}
}

// TestCIRunsTheInstaller keeps CI on the README's test command and that
// command on this list: .ci/run runs ./test.sh, which runs the installer
// before any test.
func TestCIRunsTheInstaller(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(Root(), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^exec \./test\.sh$`).Match(ci) {
		t.Errorf(".ci/run does not run exactly ./test.sh:\n%s", ci)
	}
	sh, err := os.ReadFile(filepath.Join(Root(), "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(sh)
	setup := strings.Index(s, "\ngo run ./internal/testenv/setup\n")
	test := strings.Index(s, "\ngo test -timeout 40m ./...\n")
	if setup < 0 || test < 0 || setup > test {
		t.Errorf("test.sh must run `go run ./internal/testenv/setup` on a line of its own before `go test ./...`:\n%s", s)
	}
}
