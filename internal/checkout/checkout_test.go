package checkout

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIsRoot(t *testing.T) {
	tests := []struct {
		name  string
		gomod string // "" means no go.mod at all
		want  bool
	}{
		{"no go.mod", "", false},
		{"this module", "module github.com/veclab/veclab\n\ngo 1.26.0\n", true},
		{"quoted", "module \"github.com/veclab/veclab\"\n", true},
		{"comment before and after", "// the lab\n\nmodule github.com/veclab/veclab // main\n", true},
		{"another module", "module github.com/veclab/veclab/engine/internal/asmgen\n", false},
		{"prefix of the path", "module github.com/veclab/vec\n", false},
		{"a similar word first", "modulex github.com/veclab/veclab\nmodule example.com/other\n", false},
		{"no module directive", "go 1.26.0\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.gomod != "" {
				write(t, filepath.Join(dir, "go.mod"), tc.gomod)
			}
			if got := IsRoot(dir); got != tc.want {
				t.Fatalf("IsRoot = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestAbove(t *testing.T) {
	top := t.TempDir()
	write(t, filepath.Join(top, "repo", "go.mod"), "module "+Module+"\n")
	// A nested module of its own, as the avo generator is: walked past.
	write(t, filepath.Join(top, "repo", "gen", "go.mod"), "module "+Module+"/gen\n")
	deep := filepath.Join(top, "repo", "gen", "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(top, "repo")
	for _, start := range []string{want, deep, filepath.Join(top, "repo", "gen")} {
		got, err := Above(start)
		if err != nil || got != want {
			t.Errorf("Above(%s) = %q, %v; want %q", start, got, err, want)
		}
	}
	for _, start := range []string{top, ""} {
		if got, err := Above(start); !errors.Is(err, ErrNotFound) {
			t.Errorf("Above(%q) = %q, %v; want ErrNotFound", start, got, err)
		}
	}
}

func TestFind(t *testing.T) {
	// The test runs in internal/checkout of the repository itself.
	root, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "checkout", "doc.go")); err != nil {
		t.Fatalf("Find() = %s, which does not hold this package: %v", root, err)
	}
	t.Chdir(t.TempDir())
	if _, err := Find(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find outside a checkout: %v, want ErrNotFound", err)
	}
}
