package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
)

func sentencesDir(t *testing.T) string {
	t.Helper()
	testenv.Need(t, testenv.Sentences)
	t.Setenv("VECLAB_SENTENCES_DIR", testenv.Sentences.Dir())
	dir, err := SentencesDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func cosine(a, b []float32) float64 {
	return float64(vec.Dot(a, b)) / math.Sqrt(float64(vec.Dot(a, a))*float64(vec.Dot(b, b)))
}

// TestEmbedTexts runs the sentence embedder: 100 dimensions, a text with
// no known word is the zero vector with Known 0, the same text gives the
// same bits, and texts about the same thing are nearer than unrelated ones.
func TestEmbedTexts(t *testing.T) {
	dir := sentencesDir(t)
	texts := []string{"The cat sat on the mat.", "A kitten slept on the rug.", "Stock markets fell sharply on Monday.", "zzqxv qqzzw", "The cat sat on the mat."}
	e, err := EmbedTexts(context.Background(), dir, testenv.Node.Path(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Vectors.N != len(texts) || e.Vectors.Dim != SentencesDim {
		t.Fatalf("%d×%d", e.Vectors.N, e.Vectors.Dim)
	}
	if e.Known[0] != 3 || e.Known[3] != 0 {
		t.Errorf("known words %v (want 3 for cat, sat, mat; 0 for the made-up words)", e.Known)
	}
	for j, x := range e.Vectors.Row(3) {
		if x != 0 {
			t.Fatalf("no known word: component %d is %v", j, x)
		}
	}
	for j, x := range e.Vectors.Row(0) {
		if e.Vectors.Row(4)[j] != x {
			t.Fatalf("the same text twice differs at component %d", j)
		}
	}
	near, far := cosine(e.Vectors.Row(0), e.Vectors.Row(1)), cosine(e.Vectors.Row(0), e.Vectors.Row(2))
	if near <= far {
		t.Errorf("cat/kitten cosine %.3f, cat/markets %.3f", near, far)
	}
}

// TestFortunesLayout makes a sentence set from fortune files written
// here: repeats and wordless fortunes dropped, queries held out, every
// text beside its own vector.
func TestFortunesLayout(t *testing.T) {
	dir := sentencesDir(t)
	fdir := t.TempDir()
	a := "A penny saved is a penny earned.\n%\nThe early bird catches the worm.\n%\nzzqxv\n%\nAll that glitters is not gold.\n%\n"
	b := "The early bird catches the worm.\n%\nActions speak louder than words.\n%\nBetter late than never.\n%\nCuriosity killed the cat.\n"
	os.WriteFile(filepath.Join(fdir, "a"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(fdir, "b"), []byte(b), 0o644)
	os.WriteFile(filepath.Join(fdir, "a.dat"), []byte("binary index"), 0o644)
	os.WriteFile(filepath.Join(fdir, "ascii-art"), []byte(" /\\_/\\\n( o.o )\n"), 0o644)
	src := dataset.Source{Name: "tiny", Dim: SentencesDim, Metric: engine.Cosine, Queries: 2, Seed: 5}
	l, rep, err := FortunesLayout(context.Background(), src, fdir, dir, testenv.Node.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Read != 8 || rep.Duplicates != 1 || rep.NoWords != 1 || l.Base.N != 4 || l.Queries.N != 2 || strings.Join(rep.Files, ",") != "a,b" {
		t.Fatalf("report %+v, %d + %d rows", rep, l.Base.N, l.Queries.N)
	}
	e, err := EmbedTexts(context.Background(), dir, testenv.Node.Path(), l.Words, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range l.Words {
		m, r := l.Base, i
		if i >= l.Base.N {
			m, r = l.Queries, i-l.Base.N
		}
		for j, x := range e.Vectors.Row(i) {
			if m.Row(r)[j] != x {
				t.Fatalf("row %d (%q, id %s): component %d is not its text's", i, w, l.IDs[i], j)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "tiny")
	if err := dataset.WriteLayout(out, l); err != nil {
		t.Fatal(err)
	}
}

// TestSentencesDirOutsideACheckout names the variable to set when the
// working directory is in no veclab checkout.
func TestSentencesDirOutsideACheckout(t *testing.T) {
	t.Setenv("VECLAB_SENTENCES_DIR", "")
	t.Chdir(t.TempDir())
	if _, err := SentencesDir(); !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "VECLAB_SENTENCES_DIR") {
		t.Fatalf("SentencesDir outside a checkout: %v", err)
	}
}
