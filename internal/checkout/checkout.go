package checkout

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the module path whose go.mod marks a checkout.
const Module = "github.com/veclab/veclab"

// ErrNotFound is wrapped by [Find] and [Above] when no directory at or
// above the start holds the module's go.mod.
var ErrNotFound = errors.New("checkout: no veclab checkout")

// IsRoot reports whether dir holds a go.mod whose module directive is
// [Module]. An unreadable or absent go.mod is not a root.
func IsRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// The module directive (https://go.dev/ref/mod#go-mod-file-module):
		// `module path`, the path optionally quoted and followed by a
		// comment. Other directives and comments are passed over.
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[:i]
		}
		return strings.Trim(strings.TrimSpace(rest), `"`) == Module
	}
	return false
}

// Above returns the nearest directory at or above dir that [IsRoot]
// accepts. dir is made absolute first. The error wraps [ErrNotFound] and
// names dir.
func Above(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("checkout: empty start directory: %w", ErrNotFound)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("checkout: %s: %w", dir, err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if IsRoot(d) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("checkout: no go.mod of %s in %s or a directory above it: %w", Module, abs, ErrNotFound)
		}
	}
}

// Find returns the checkout holding the working directory: [Above] of
// [os.Getwd].
func Find() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("checkout: working directory: %w", err)
	}
	return Above(wd)
}
