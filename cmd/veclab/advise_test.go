package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/veclab/veclab/internal/testenv"
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

// TestAdvisePGEmbedded runs advise -pg embedded on GloVe (glove-3k, the
// 3,000 words and 100 queries compiled in: data no one tuned the
// emulation for) and checks that the real pgvector 0.8.7's recall@10 is
// in the table, the JSON and the HTML page at the emulation's two
// settings (the default ef_search 40 and the one found for the target),
// and that it differs from the emulated pgvector's by no more than two
// standard errors of the difference (the two graphs draw their levels
// from different random numbers, so only that much is expected of them;
// pgvector seeds its level generator per backend, so the real reading
// moves from run to run: Δ -0.002 and -0.002, then +0.000 and -0.004,
// against tolerances of 0.015 at 40 and 0.024 at 26). 24 s under load,
// most of it the 3,000 rows' insert into the WebAssembly PostgreSQL.
// Skipped with one line without node or lab/pglive/server's npm tree,
// failed under CI.
func TestAdvisePGEmbedded(t *testing.T) {
	testenv.Need(t, testenv.PGlite)
	dir := t.TempDir()
	jsonOut, htmlOut := filepath.Join(dir, "a.json"), filepath.Join(dir, "a.html")
	var out, errb bytes.Buffer
	if rc := run([]string{"advise", "glove-3k", "-stores", "pgvector", "-pg", "embedded", "-json", jsonOut, "-html", htmlOut}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	for _, want := range []string{"real pgvector    hnsw.ef_search       40", "real − emulated", "PostgreSQL 18.6, pgvector 0.8.7", "(m = 16, ef_construction = 64, as the emulation's)", "the real pgvector reads"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	type measure struct {
		Value      int
		Recall, SE float64
	}
	type pair struct {
		Server         string
		M              int
		EfConstruction int     `json:"ef_construction"`
		AtDefault      measure `json:"default"`
		AtFound        measure `json:"at_found"`
	}
	var rep struct {
		Stores []struct {
			Unfiltered pair
			Real       *pair
		} `json:"stores"`
	}
	j, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &rep); err != nil || len(rep.Stores) != 1 || rep.Stores[0].Real == nil {
		t.Fatalf("JSON: %v, no real pgvector in %s", err, j)
	}
	em, re := rep.Stores[0].Unfiltered, rep.Stores[0].Real
	if !strings.Contains(re.Server, "pgvector 0.8.7") || re.M != 16 || re.EfConstruction != 64 {
		t.Errorf("real server %q, m %d, ef_construction %d: want pgvector 0.8.7 with its defaults 16 and 64", re.Server, re.M, re.EfConstruction)
	}
	for _, c := range []struct {
		what string
		e, r measure
	}{{"default", em.AtDefault, re.AtDefault}, {"found", em.AtFound, re.AtFound}} {
		tol := 2 * math.Hypot(c.e.SE, c.r.SE)
		d := c.r.Recall - c.e.Recall
		t.Logf("ef_search %d (%s): emulated %.3f ± %.3f, real %.3f ± %.3f, Δ %+.3f (tolerance %.3f)", c.e.Value, c.what, c.e.Recall, c.e.SE, c.r.Recall, c.r.SE, d, tol)
		if c.r.Value != c.e.Value || c.r.Recall <= 0 || math.Abs(d) > tol {
			t.Errorf("%s: real pgvector at ef_search %d reads %.3f, emulated at %d %.3f: Δ %+.3f beyond %.3f", c.what, c.r.Value, c.r.Recall, c.e.Value, c.e.Recall, d, tol)
		}
	}
	h, err := os.ReadFile(htmlOut)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(h); !strings.Contains(s, "real − emulated") || !strings.Contains(s, "real pgvector 0.8.7 beside pgvector") {
		t.Errorf("HTML page has no real pgvector rows or no real readings in its chart (%d bytes)", len(s))
	}
}

// TestAdviseBadInput: each bad input of issue 42 is one line on stderr,
// in the user's terms: the file and the row or column (or the option),
// and what to do; the command's name once, no engine sentinel's words
// ("engine: invalid argument"), and nothing started first (-pg's refusals
// come before the embedded PostgreSQL would start: without the check
// first, this machine's answer would be the server's start-up or its
// missing npm tree instead). An unreachable target is not an error: the
// store's sentence says it, and how far the knob got.
func TestAdviseBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, edit func(*dataset.Dataset)) string {
		ds, err := dataset.Generate(dataset.Config{N: 200, Queries: 1, Dim: 8, Clusters: 8, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		edit(ds)
		var b bytes.Buffer
		if err := dataset.WriteFvecs(&b, ds.Base); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.fvecs", func(*dataset.Dataset) {})
	nan := write("nan.fvecs", func(ds *dataset.Dataset) { ds.Base.Row(17)[3] = float32(math.NaN()) })
	inf := write("inf.fvecs", func(ds *dataset.Dataset) { ds.Base.Row(5)[0] = float32(math.Inf(-1)) })
	zero := write("zero.fvecs", func(ds *dataset.Dataset) { clear(ds.Base.Row(42)) })
	// Two records of 2 and 3 components: fvecs stores each one's dimension.
	var mixed bytes.Buffer
	for _, row := range [][]float32{{1, 2}, {3, 4, 5}} {
		binary.Write(&mixed, binary.LittleEndian, int32(len(row)))
		binary.Write(&mixed, binary.LittleEndian, row)
	}
	mixedPath := filepath.Join(dir, "mixed.fvecs")
	if err := os.WriteFile(mixedPath, mixed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Generate(dataset.Config{N: 200, Queries: 1, Dim: 8, Clusters: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	type colourRow struct {
		Vec    []float32 `parquet:"embedding,list"`
		Colour string    `parquet:"colour"`
	}
	rows := make([]colourRow, ds.Base.N)
	for i := range rows {
		rows[i] = colourRow{Vec: ds.Base.Row(i), Colour: []string{"red", "green", "blue", "grey"}[i%4]}
	}
	pq := filepath.Join(dir, "colours.parquet")
	if err := parquet.WriteFile(pq, rows); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // the whole of stderr, less "veclab advise: " and the newline
	}{
		{"NaN", []string{nan}, nan + ": record 17 at offset 612: component 3 is NaN: fix or drop that row (every component finite, every row of one dimension)"},
		{"Inf", []string{inf}, inf + ": record 5 at offset 180: component 0 is -Inf: fix or drop that row (every component finite, every row of one dimension)"},
		{"mixed dimensions", []string{mixedPath, "-k", "1"}, mixedPath + ": record 1 at offset 12: dimension 3, earlier records have 2: fix or drop that row (every component finite, every row of one dimension)"},
		{"zero vector under cosine", []string{zero}, zero + ": row 42 is the zero vector, which has no direction under cosine: drop it, or compare by -metric l2"},
		{"fewer vectors than -k", []string{good, "-k", "500", "-queries", "20"}, good + ": 180 base rows, fewer than -k 500: use a smaller -k or a larger file"},
		{"missing filter column", []string{pq, "-filter", "size=big"}, pq + `: no column "size" (columns: embedding group, colour STRING): name a column the file has: -filter column=value for the filter, -column for the vectors (or filter a random subset with -selectivity)`},
		{"filter on a file without metadata", []string{good, "-filter", "colour=red"}, good + `: no column "colour" to filter on (it has no metadata column): name one with -filter column=value, or filter a random subset with -selectivity`},
		{"filter value no row holds", []string{pq, "-filter", "colour=purple"}, pq + `: no base row has colour = "purple": give a value the column holds`},
		{"target out of range", []string{good, "-target", "1.5"}, "-target 1.5: give a recall above 0 and at most 1, e.g. 0.95"},
		{"unknown store", []string{good, "-stores", "pgvector,nosuch"}, `-stores "nosuch": unknown store "nosuch" (want pgvector, redis, qdrant or elasticsearch)`},
		{"-pg without a pgvector store", []string{good, "-stores", "redis", "-pg", "embedded"}, "-pg without a pgvector store to set the real pgvector beside: add pgvector to -stores, or leave -pg out"},
		{"-pg on l2 data", []string{good, "-metric", "l2", "-stores", "pgvector", "-pg", "embedded"}, "-pg with l2 data: the real pgvector's table is Spring AI's cosine one: give -metric cosine, or leave -pg out"},
		{"-pg on dot data, without pgvector", []string{good, "-metric", "dot", "-stores", "qdrant", "-pg", "postgres://nowhere.invalid/x"}, "-pg with dot data: the real pgvector's table is Spring AI's cosine one: give -metric cosine, or leave -pg out; -pg without a pgvector store to set the real pgvector beside: add pgvector to -stores, or leave -pg out"},
		{"no such file", []string{filepath.Join(dir, "missing.parquet")}, filepath.Join(dir, "missing.parquet") + ": no such file, directory or data set: give a Parquet, ann-benchmarks HDF5, .fvecs, .bvecs, .npy or IDX file, a data set directory, or a data set's name (veclab data list)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			rc := run(append([]string{"advise"}, tc.args...), &out, &errb)
			if rc == 0 {
				t.Fatalf("rc 0: %s", out.String())
			}
			if got, want := errb.String(), "veclab advise: "+tc.want+"\n"; got != want {
				t.Errorf("stderr\n%q\nwant\n%q", got, want)
			}
			t.Log(errb.String())
		})
	}
	t.Run("unreachable target", func(t *testing.T) {
		var out, errb bytes.Buffer
		if rc := run([]string{"advise", good, "-queries", "20", "-target", "1", "-stores", "pgvector m=2 ef_construction=4"}, &out, &errb); rc != 0 {
			t.Fatalf("rc %d: %s", rc, errb.String())
		}
		t.Log(out.String())
		if !strings.Contains(out.String(), "the target 1.00 is not reachable below 1000: the best reached is ") {
			t.Errorf("no unreachable-target sentence:\n%s", out.String())
		}
	})
}
