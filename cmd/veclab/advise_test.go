package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/dataset"
)

// TestAdvise runs the command on an fvecs file with its flags after the
// file, and reads back the JSON and HTML it wrote; a bad file writes
// neither.
func TestAdvise(t *testing.T) {
	dir := t.TempDir()
	ds, err := dataset.Generate(dataset.Config{N: 600, Queries: 1, Dim: 16, Clusters: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteFvecs(&b, ds.Base); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "mine.fvecs")
	if err := os.WriteFile(src, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonOut, htmlOut := filepath.Join(dir, "a.json"), filepath.Join(dir, "a.html")
	var out, errb bytes.Buffer
	if rc := run([]string{"advise", src, "-queries", "50", "-selectivity", "0.2", "-stores", "pgvector,redis", "-n", "1000000", "-json", jsonOut, "-html", htmlOut}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	for _, want := range []string{"advise: mine, 550 × 16 (cosine), recall@10 target 0.95", "50 rows held out of 600 as queries with seed 1", "pgvector: ", "redis: ", "for 1000000 vectors", "filtered"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	var rep struct {
		Stores []struct {
			Store  string
			Advice string
		} `json:"stores"`
	}
	j, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &rep); err != nil || len(rep.Stores) != 2 || rep.Stores[0].Advice == "" {
		t.Errorf("JSON: %v, %+v", err, rep)
	}
	h, err := os.ReadFile(htmlOut)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(h); !strings.Contains(s, "<svg") || !strings.Contains(s, "target 0.95") || strings.Contains(s, "<script") {
		t.Errorf("HTML: no chart, no target line, or a script (%d bytes)", len(s))
	}
	// A bad file: one line, nothing written.
	zero := filepath.Join(dir, "zero.fvecs")
	ds.Base.Row(3)[0], ds.Base.Row(3)[1] = 0, 0
	clear(ds.Base.Row(3))
	b.Reset()
	dataset.WriteFvecs(&b, ds.Base)
	os.WriteFile(zero, b.Bytes(), 0o644)
	out.Reset()
	errb.Reset()
	other := filepath.Join(dir, "b.json")
	if rc := run([]string{"advise", "-json", other, zero}, &out, &errb); rc == 0 || !strings.Contains(errb.String(), "zero.fvecs: row 3 is the zero vector") {
		t.Errorf("zero vector: rc %d, %s", rc, errb.String())
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a failed advise wrote its JSON")
	}
}
