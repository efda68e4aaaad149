package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
)

type importRow struct {
	ID   int64     `parquet:"id"`
	Text string    `parquet:"text"`
	Vec  []float32 `parquet:"embedding,list"`
}

func writeImportParquet(t *testing.T, path string, rows []importRow) {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[importRow](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDataImport imports a Parquet file under the data directory, opens
// it by name as -data does, refuses to overwrite it, and names the file,
// column, row group and row of a malformed one.
func TestDataImport(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	rows := make([]importRow, 300)
	for i := range rows {
		rows[i] = importRow{ID: int64(i), Text: "text\nof row " + string(rune('a'+i%26)), Vec: []float32{float32(i % 7), float32(i % 11), 1}}
	}
	src := filepath.Join(dir, "mine.parquet")
	writeImportParquet(t, src, rows)
	var out, errb bytes.Buffer
	if rc := run([]string{"data", "import", "-root", root, "-queries", "20", src}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), "mine: 280 base + 20 queries × 3, cosine") || !strings.Contains(out.String(), "use it as -data mine") {
		t.Errorf("output:\n%s", out.String())
	}
	r, err := dataset.OpenData("mine", root)
	if err != nil {
		t.Fatal(err)
	}
	if r.Base.N != 280 || r.Queries.N != 20 || r.Manifest.Name != "mine" {
		t.Errorf("opened %d + %d, name %q", r.Base.N, r.Queries.N, r.Manifest.Name)
	}
	// A file where a set is expected (-data FILE, Env.UseData(FILE, ""))
	// is imported once, under its name and content hash.
	byFile, err := dataset.OpenData(src, root)
	if err != nil {
		t.Fatal(err)
	}
	again, err := dataset.OpenData(src, root)
	if err != nil {
		t.Fatal(err)
	}
	if byFile.Dir != again.Dir || !strings.HasPrefix(filepath.Base(byFile.Dir), "mine-") || byFile.Base.N != 270 || byFile.Queries.N != 30 {
		t.Errorf("by file: %s and %s, %d + %d rows", byFile.Dir, again.Dir, byFile.Base.N, byFile.Queries.N)
	}
	if rc := run([]string{"data", "import", "-root", root, src}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), "exists") {
		t.Errorf("second import: rc %d, %s", rc, errb.String())
	}
	// Flags after the file, as people type them.
	out.Reset()
	if rc := run([]string{"data", "import", src, "-root", root, "-name", "after", "-queries", "10"}, &out, &errb); rc != 0 || !strings.Contains(out.String(), "after: 290 base + 10 queries") {
		t.Errorf("flags after the file: rc %d, %s %s", rc, out.String(), errb.String())
	}
	rows[150].Vec = []float32{1, 2}
	bad := filepath.Join(dir, "bad.parquet")
	writeImportParquet(t, bad, rows)
	errb.Reset()
	if rc := run([]string{"data", "import", "-root", root, bad}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), bad+`: column "embedding", row group 0, row 150: 2 components, row 0 has 3`) {
		t.Errorf("ragged: rc %d, %s", rc, errb.String())
	}
	if _, err := os.Stat(filepath.Join(root, "bad")); err == nil {
		t.Error("a failed import left a directory")
	}
}

// TestDataGetFortunes builds the sentence set from Debian's fortunes with
// the pinned npm embedder, as on a clean machine after ./test.sh's
// installs, and opens it.
func TestDataGetFortunes(t *testing.T) {
	testenv.Need(t, testenv.Fortunes, testenv.Sentences)
	t.Setenv("VECLAB_SENTENCES_DIR", testenv.Sentences.Dir())
	root := t.TempDir()
	var out, errb bytes.Buffer
	if rc := run([]string{"data", "get", "-root", root, "fortunes"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	r, err := dataset.OpenData("fortunes", root)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := dataset.LookupSource("fortunes")
	if r.Base.N != src.Base || r.Queries.N != src.Queries || r.Base.Dim != src.Dim {
		t.Errorf("built %d + %d × %d; the source says %d + %d × %d\n%s", r.Base.N, r.Queries.N, r.Base.Dim, src.Base, src.Queries, src.Dim, errb.String())
	}
	words, err := os.ReadFile(filepath.Join(root, "fortunes", "words.txt"))
	if err != nil || strings.Count(string(words), "\n") != src.Base+src.Queries {
		t.Errorf("words.txt: %v, %d lines", err, strings.Count(string(words), "\n"))
	}
}
