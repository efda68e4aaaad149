package layering

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/checkout"
)

// privateNotes are the working notes a reader of the repository does not
// have. The names are split so this file does not match itself.
var privateNotes = []string{
	"ALGORITHMS" + ".md",
	"EXPERIMENTS" + ".md",
	"ARCHITECTURE" + ".md",
	"STYLE" + ".md",
	"GOMACRO" + ".md",
}

// articleNumber matches the numbers of the lab's working copies of the
// three articles ("seed" or "seeds" and a number such as 000, with a
// space, a hyphen or nothing between; the plural before a list too): a reader
// knows the articles by their titles, not by those numbers. The pattern
// is built from parts so this file does not match itself.
var articleNumber = regexp.MustCompile(`(?i)\bseeds?[- _]?` + `00[034]\b`)

// citesPrivate returns the private notes and article numbers that text
// names.
func citesPrivate(text []byte) []string {
	var out []string
	for _, n := range privateNotes {
		if bytes.Contains(text, []byte(n)) {
			out = append(out, n)
		}
	}
	if m := articleNumber.Find(text); m != nil {
		out = append(out, string(m))
	}
	return out
}

func TestCitesPrivateCatchesEachNote(t *testing.T) {
	for _, n := range privateNotes {
		if got := citesPrivate([]byte("see `" + n + "` §4.2")); len(got) != 1 || got[0] != n {
			t.Errorf("citesPrivate(%q) = %v", n, got)
		}
	}
	for _, n := range []string{"seed " + "000", "Seed-" + "003", "seed" + "004", "the seed_" + "000 article", "none: seeds " + "003 and 004 stop", "Seeds-" + "000"} {
		if got := citesPrivate([]byte(n)); len(got) != 1 {
			t.Errorf("citesPrivate(%q) = %v, want the article number", n, got)
		}
	}
	if got := citesPrivate([]byte("seed 1, seed 0 and seed 42; seed 0003; seeds 1 and 2; seeds 0004")); got != nil {
		t.Errorf("citesPrivate on random seeds = %v", got)
	}
	if got := citesPrivate([]byte("apache/lucene 10.3 AbstractKnnVectorQuery.java; README.md")); got != nil {
		t.Errorf("citesPrivate on a primary source = %v", got)
	}
}

// moduleRoot is the checkout the test runs in.
func moduleRoot(t *testing.T) string {
	root, err := checkout.Find()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestNoPrivateCitations reads every file of the module (hidden
// directories and installed node_modules aside) and fails on each that
// cites a private note.
func TestNoPrivateCitations(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if got := citesPrivate(b); got != nil {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s cites %s, which is not in the repository: cite the paper, the store's source file (with its version) or the documentation page", rel, strings.Join(got, ", "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d files under %s: the check would pass vacuously", files, root)
	}
}
