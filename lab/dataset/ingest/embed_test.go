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
	l, rep, err := FortunesLayout(context.Background(), src, fdir, dir, testenv.Node.Path(), GloVeMean, nil)
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

// TestEmbedUSE runs the Transformer encoder (USE lite) under Node: 512
// unit-length components per text, the same bytes from a second run, and a
// paraphrase nearer than an unrelated sentence by a wide margin for each
// triple. The paraphrases share almost no words ("old"/"age",
// "guitar … band"/"musician … rock group"), so the margin measures the
// encoder, not word overlap; 512 random components would give cosines
// near 0 for both and fail. Measured: 0.846 against 0.267, 0.753 against
// 0.173, 0.845 against 0.467.
func TestEmbedUSE(t *testing.T) {
	dir := sentencesDir(t)
	triples := [][3]string{
		{"How old are you?", "What is your age?", "How are you doing today?"},
		{"The cat sat on the mat.", "A kitten was resting on the rug.", "Stock markets fell sharply on Monday."},
		{"He plays the guitar in a band.", "He is a musician in a rock group.", "He plays football on Sundays."},
	}
	var texts []string
	for _, tr := range triples {
		texts = append(texts, tr[:]...)
	}
	e, err := USELite.Embed(context.Background(), dir, testenv.Node.Path(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Vectors.N != len(texts) || e.Vectors.Dim != 512 {
		t.Fatalf("%d×%d, want %d×512", e.Vectors.N, e.Vectors.Dim, len(texts))
	}
	for i := range texts {
		if n := math.Sqrt(float64(vec.Dot(e.Vectors.Row(i), e.Vectors.Row(i)))); math.Abs(n-1) > 1e-5 {
			t.Errorf("text %d (%q): norm %v, want 1", i, texts[i], n)
		}
		if e.Known[i] < 1 {
			t.Errorf("text %d (%q): %d word pieces", i, texts[i], e.Known[i])
		}
	}
	for k, tr := range triples {
		near, far := cosine(e.Vectors.Row(3*k), e.Vectors.Row(3*k+1)), cosine(e.Vectors.Row(3*k), e.Vectors.Row(3*k+2))
		if near < far+0.2 {
			t.Errorf("%q: paraphrase %q at cosine %.3f, unrelated %q at %.3f (want a margin of 0.2)", tr[0], tr[1], near, tr[2], far)
		}
	}
	again, err := USELite.Embed(context.Background(), dir, testenv.Node.Path(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range e.Vectors.Data {
		if math.Float32bits(again.Vectors.Data[i]) != math.Float32bits(x) {
			t.Fatalf("second run differs at text %d, component %d: %v, then %v", i/512, i%512, x, again.Vectors.Data[i])
		}
	}
}

// TestFortunesLayoutUSE makes the sentence set of fortune files written
// here with both encoders: the USE set holds the same texts, ids and
// base/query split as the GloVe set (the wordless fortune dropped from
// both), 512-d rows, each its own text's vector; a wrong dimension is an
// error before anything runs.
func TestFortunesLayoutUSE(t *testing.T) {
	dir := sentencesDir(t)
	fdir := t.TempDir()
	a := "A penny saved is a penny earned.\n%\nThe early bird catches the worm.\n%\nzzqxv\n%\nAll that glitters is not gold.\n%\n"
	b := "The early bird catches the worm.\n%\nActions speak louder than words.\n%\nBetter late than never.\n%\nCuriosity killed the cat.\n"
	os.WriteFile(filepath.Join(fdir, "a"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(fdir, "b"), []byte(b), 0o644)
	ctx, node := context.Background(), testenv.Node.Path()
	src := dataset.Source{Name: "tiny", Dim: SentencesDim, Metric: engine.Cosine, Queries: 2, Seed: 5}
	if _, _, err := FortunesLayout(ctx, src, fdir, dir, node, USELite, nil); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("a 100-d set with the 512-d encoder: %v", err)
	}
	g, _, err := FortunesLayout(ctx, src, fdir, dir, node, GloVeMean, nil)
	if err != nil {
		t.Fatal(err)
	}
	src.Name, src.Dim = "tiny-use", 512
	var stages []string
	u, rep, err := FortunesLayout(ctx, src, fdir, dir, node, USELite, func(stage string, done, total int) {
		if done == total {
			stages = append(stages, stage)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NoWords != 1 || rep.Duplicates != 1 || u.Base.N != 4 || u.Queries.N != 2 || u.Base.Dim != 512 || rep.Encoder != "use-lite" {
		t.Fatalf("report %+v, %d + %d × %d", rep, u.Base.N, u.Queries.N, u.Base.Dim)
	}
	if strings.Join(stages, ",") != "filtering,embedding" {
		t.Errorf("progress stages %q", stages)
	}
	if strings.Join(u.Words, "|") != strings.Join(g.Words, "|") || strings.Join(u.IDs, "|") != strings.Join(g.IDs, "|") {
		t.Fatalf("USE set\n%q %q\nGloVe set\n%q %q", u.Words, u.IDs, g.Words, g.IDs)
	}
	if !strings.Contains(u.Manifest.Source, "Universal Sentence Encoder lite") {
		t.Errorf("manifest source %q", u.Manifest.Source)
	}
	// Embedded in one batch, as the layout's six rows were.
	e, err := USELite.Embed(ctx, dir, node, u.Words, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range u.Words {
		m, r := u.Base, i
		if i >= u.Base.N {
			m, r = u.Queries, i-u.Base.N
		}
		if c := cosine(m.Row(r), e.Vectors.Row(i)); c < 0.99999 {
			t.Errorf("row %d (%q, id %s): cosine %.6f with its text's vector", i, w, u.IDs[i], c)
		}
	}
}
