package perfdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/bench"
)

// TestUpToDate: docs/performance.md is what the saved records give.
func TestUpToDate(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	want, err := Page(filepath.Join(docs, "perf"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(docs, "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/performance.md is stale: run go generate ./lab/perfdoc")
	}
}

// TestLoadErrors: an empty directory and a record without a report are
// errors naming what is wrong.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil {
		t.Error("empty directory: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"Command":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "a.json: no report") {
		t.Errorf("record without report: %v", err)
	}
}

// TestRender: the page names the command, machine, load and each peer's
// kernels and note, and holds the side-by-side table and the curves of
// every engine, all from the record.
func TestRender(t *testing.T) {
	pt := func(ef int, recall, qps float64) bench.HNSWPoint {
		return bench.HNSWPoint{Ef: ef, Recall: recall, QPS: qps}
	}
	ours := []bench.HNSWPoint{pt(10, 0.9, 2000), pt(20, 0.99, 1000)}
	theirs := []bench.HNSWPoint{pt(10, 0.88, 1000), pt(20, 0.99, 500)}
	rec := bench.HNSWRecord{Command: "veclab bench hnsw -peer faiss", Date: time.Date(2026, 12, 6, 22, 0, 0, 0, time.UTC),
		Machine: "AMD EPYC, 2 cores", LoadStart: "1.00 2.00 3.00", LoadEnd: "4.00 5.00 6.00",
		Report: &bench.HNSWReport{Config: bench.DefaultHNSWConfig(), N: 1000, Dim: 8, Queries: 10, Metric: engine.Cosine,
			Runs: []bench.HNSWRun{{EfConstruction: 64, BuildOne: time.Second, BuildAll: time.Second, BytesPerVector: 100,
				Rounds: [][]bench.HNSWPoint{ours}, Sweep: ours,
				Peers: []bench.HNSWPeerRun{{Name: "faiss", Index: "IndexHNSWFlat", Kernels: "OPTIMIZE GENERIC", Note: "no AVX2",
					BytesPerVector: 120, Rounds: [][]bench.HNSWPoint{theirs}, Sweep: theirs}}}}}}
	page := Render([]bench.HNSWRecord{rec})
	for _, want := range []string{"DO NOT EDIT", "## 1000 × 8, cosine, 2026-12-06 22:00 UTC", "`veclab bench hnsw -peer faiss`",
		"AMD EPYC, 2 cores", "1.00 2.00 3.00 at the start, 4.00 5.00 6.00 at the end", "faiss: IndexHNSWFlat; kernels OPTIMIZE GENERIC; no AVX2",
		"| faiss (IndexHNSWFlat) |", "faiss QPS", "| 20 |"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
