package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
)

type rowText struct {
	ID   string    `parquet:"id"`
	Text string    `parquet:"text"`
	Vec  []float64 `parquet:"embedding,list"`
}

// TestImportParquet imports a Parquet file, holding queries out, writes
// the layout and opens it: every row's vector, id and text is there once,
// in the base or the queries, and the truth is exact.
func TestImportParquet(t *testing.T) {
	src := makeSource(400, 8, 4)
	rows := make([]rowText, src.vecs.N)
	for i := range rows {
		rows[i] = rowText{ID: "doc-" + strconv.Itoa(i), Text: src.texts[i]}
		for _, x := range src.vecs.Row(i) {
			rows[i].Vec = append(rows[i].Vec, float64(x))
		}
	}
	path := filepath.Join(t.TempDir(), "mine.parquet")
	if err := os.WriteFile(path, writeRows(t, rows, 128), 0o644); err != nil {
		t.Fatal(err)
	}
	l, rep, err := Import(context.Background(), path, Options{Queries: 25, Seed: 3, Name: "mine", Metric: "l2"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != Parquet || rep.Base != 375 || rep.Queries != 25 || !rep.HeldOut || rep.Metric != engine.L2 {
		t.Errorf("report %+v", rep)
	}
	dir := filepath.Join(t.TempDir(), "mine")
	if err := dataset.WriteLayout(dir, l); err != nil {
		t.Fatal(err)
	}
	r, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	words, err := os.ReadFile(filepath.Join(dir, "words.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(words), "\n"), "\n")
	seen := map[string]bool{}
	for i, text := range lines {
		m, row := r.Base, i
		if i >= r.Base.N {
			m, row = r.Queries, i-r.Base.N
		}
		var k int
		for k = 0; k < src.vecs.N; k++ {
			if strings.ReplaceAll(src.texts[k], "\n", " ") == text {
				break
			}
		}
		if k == src.vecs.N || seen[text] {
			t.Fatalf("line %d %q: not a source text, or twice", i, text)
		}
		seen[text] = true
		for j, x := range src.vecs.Row(k) {
			if math.Float32bits(m.Row(row)[j]) != math.Float32bits(x) {
				t.Fatalf("line %d: component %d is %v, the source row %d has %v", i, j, m.Row(row)[j], k, x)
			}
		}
	}
	got, err := r.Truth(TruthK)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dataset.ComputeTruth(r.Base, r.Queries, TruthK, engine.L2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for q := range want.IDs {
		for i, id := range want.IDs[q] {
			if got.IDs[q][i] != id {
				t.Fatalf("query %d rank %d: stored %d, exact %d", q, i, got.IDs[q][i], id)
			}
		}
	}
}

// TestImportHDF5 imports an ann-benchmarks file written by h5py whose
// neighbours are exact: they are kept, checked at agreement 1; a file
// whose neighbours are another set's is refused.
func TestImportHDF5(t *testing.T) {
	base := makeSource(2000, 16, 5).vecs
	queries := makeSource(40, 16, 6).vecs
	exact, err := dataset.ComputeTruth(base, queries, 10, engine.L2, nil)
	if err != nil {
		t.Fatal(err)
	}
	nb := make([][]int32, queries.N)
	wrong := make([][]int32, queries.N)
	for q := range nb {
		for i, id := range exact.IDs[q] {
			nb[q] = append(nb[q], int32(id))
			wrong[q] = append(wrong[q], int32((int(id)+1+i)%base.N))
		}
	}
	path := writeH5File(t, "float32", "-", "euclidean", h5Set{name: "train", f32: base}, h5Set{name: "test", f32: queries}, h5Set{name: "neighbors", ids: nb})
	l, rep, err := Import(context.Background(), path, Options{Python: testenv.Python, Queries: 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != HDF5 || rep.Metric != engine.L2 || rep.GivenAgree != 1 || rep.GivenK != 10 || rep.Sampled != 30 || rep.Queries != 30 || len(l.Given) != 30 {
		t.Errorf("report %+v, %d given rows", rep, len(l.Given))
	}
	dir := filepath.Join(t.TempDir(), "ann")
	if err := dataset.WriteLayout(dir, l); err != nil {
		t.Fatal(err)
	}
	r, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameMatrix(t, "base", r.Base, base)
	if len(r.Given) != 30 || r.Given[7][0] != nb[7][0] {
		t.Errorf("groundtruth.ivecs: %d rows", len(r.Given))
	}
	bad := writeH5File(t, "float32", "-", "euclidean", h5Set{name: "train", f32: base}, h5Set{name: "test", f32: queries}, h5Set{name: "neighbors", ids: wrong})
	if _, _, err := Import(context.Background(), bad, Options{Python: testenv.Python}); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "neighbours agree with exact l2 search on 0.") {
		t.Errorf("wrong neighbours: %v", err)
	}
}

func TestSniff(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          Format
		ok            bool
	}{
		{"a.bin", "PAR1xxxx", Parquet, true},
		{"a.dat", "\x89HDF\r\n\x1a\nxx", HDF5, true},
		{"a.h5", "", HDF5, true},
		{"a.parquet", "", Parquet, true},
		{"a.csv", "id,vec", "", false},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.content), 0o644)
		got, err := Sniff(p)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("%s: %v %v", tc.name, got, err)
		}
	}
}
