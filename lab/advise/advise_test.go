package advise

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/pglive"
)

// generated draws a clustered set (lab/dataset's generator) of n rows.
func generated(t testing.TB, n, dim int) *vec.Matrix {
	t.Helper()
	ds, err := dataset.Generate(dataset.Config{N: n, Queries: 1, Dim: dim, Clusters: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return ds.Base
}

func writeFvecs(t testing.TB, m *vec.Matrix) string {
	t.Helper()
	var b bytes.Buffer
	if err := dataset.WriteFvecs(&b, m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vectors.fvecs")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type metaRow struct {
	Vec    []float32 `parquet:"embedding,list"`
	Colour string    `parquet:"colour"`
}

func writeParquet(t testing.TB, m *vec.Matrix) string {
	t.Helper()
	rows := make([]metaRow, m.N)
	for i := range rows {
		rows[i] = metaRow{Vec: m.Row(i), Colour: []string{"red", "green", "blue", "grey"}[i%4]}
	}
	path := filepath.Join(t.TempDir(), "vectors.parquet")
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBadInput: each bad input is one error naming the file and the row
// or column, and what to do.
func TestBadInput(t *testing.T) {
	good := generated(t, 200, 8)
	nan := generated(t, 200, 8)
	nan.Row(17)[3] = float32(math.NaN())
	inf := generated(t, 200, 8)
	inf.Row(5)[0] = float32(math.Inf(1))
	zero := generated(t, 200, 8)
	clear(zero.Row(42))
	// Two rows of 2 and 3 components: fvecs stores each row's dimension.
	var mixed bytes.Buffer
	for _, row := range [][]float32{{1, 2}, {3, 4, 5}} {
		binary.Write(&mixed, binary.LittleEndian, int32(len(row)))
		binary.Write(&mixed, binary.LittleEndian, row)
	}
	mixedPath := filepath.Join(t.TempDir(), "mixed.fvecs")
	if err := os.WriteFile(mixedPath, mixed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	goodPath, parquetPath := writeFvecs(t, good), writeParquet(t, good)
	for _, tc := range []struct {
		name string
		path string
		opt  LoadOptions
		is   error
		want []string // fragments of the message
	}{
		{"NaN", writeFvecs(t, nan), LoadOptions{K: 10}, engine.ErrCorrupt, []string{"vectors.fvecs", "record 17", "component 3 is NaN", "fix or drop that row"}},
		{"Inf", writeFvecs(t, inf), LoadOptions{K: 10}, engine.ErrCorrupt, []string{"record 5", "component 0 is +Inf"}},
		{"mixed dimensions", mixedPath, LoadOptions{K: 1}, engine.ErrCorrupt, []string{"mixed.fvecs", "record 1", "fix or drop that row"}},
		{"zero vector under cosine", writeFvecs(t, zero), LoadOptions{K: 10}, engine.ErrInvalidArgument, []string{"row 42 is the zero vector", "-metric l2"}},
		{"fewer rows than k", goodPath, LoadOptions{K: 500, Queries: 20}, engine.ErrInvalidArgument, []string{"vectors.fvecs", "180 base rows, fewer than -k 500", "smaller -k"}},
		{"too few rows to hold queries out", goodPath, LoadOptions{K: 10, Queries: 200}, engine.ErrInvalidArgument, []string{"200 rows: too few to hold 200 queries out"}},
		{"no such filter column", parquetPath, LoadOptions{K: 10, Filter: "size=big"}, engine.ErrNotFound, []string{"vectors.parquet", `no column "size"`, "columns: embedding", "colour", "-filter column=value"}},
		{"filter column of a file without metadata", goodPath, LoadOptions{K: 10, Filter: "colour=red"}, engine.ErrNotFound, []string{"vectors.fvecs", `no column "colour" to filter on (it has no metadata column)`, "-selectivity"}},
		{"filter value no row holds", parquetPath, LoadOptions{K: 10, Filter: "colour=purple"}, engine.ErrNotFound, []string{`no base row has colour = "purple"`}},
		{"filter not column=value", parquetPath, LoadOptions{K: 10, Filter: "colour"}, engine.ErrInvalidArgument, []string{`-filter "colour": give column=value`}},
		{"selectivity 2", goodPath, LoadOptions{K: 10, Selectivity: 2}, engine.ErrInvalidArgument, []string{"-selectivity 2"}},
		{"not a vector file", filepath.Join("advise_test.go"), LoadOptions{K: 10}, engine.ErrInvalidArgument, []string{"advise_test.go: not a file advise reads"}},
		{"no such file", filepath.Join(t.TempDir(), "missing.parquet"), LoadOptions{K: 10}, os.ErrNotExist, []string{"missing.parquet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(context.Background(), tc.path, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("%v: not %v", err, tc.is)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			// In the user's terms: no package prefix (a command adds
			// its own) and no engine sentinel's words.
			for _, w := range []string{"advise: ", "engine: ", "dataset: ", "ingest: "} {
				if strings.Contains(msg, w) {
					t.Errorf("%q has %q", msg, w)
				}
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("%v: not an *InputError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestValidate: Validate refuses what Run would, every problem in one
// line naming the options, errors.Is ErrInvalidArgument without its
// words; realPG checks -pg's rules before any server exists.
func TestValidate(t *testing.T) {
	d, err := Load(context.Background(), writeFvecs(t, generated(t, 200, 8)), LoadOptions{K: 10, Queries: 20})
	if err != nil {
		t.Fatal(err)
	}
	l2 := *d
	l2.Metric = engine.L2
	for _, tc := range []struct {
		name   string
		d      *Data
		opt    Options
		realPG bool
		want   string // "" for no error
	}{
		{"defaults", d, Options{}, false, ""},
		{"pgvector beside the real one", d, Options{Profiles: []string{"pgvector"}}, true, ""},
		{"k above the rows", d, Options{K: 181}, false, "-k 181 with 180 base rows: use a k of at most the rows"},
		{"target", d, Options{Target: -0.5, N: -1}, false, "-target -0.5: give a recall above 0 and at most 1, e.g. 0.95; -n -1: give a collection size of at least 1 vector"},
		{"unknown store", d, Options{Profiles: []string{"redis", "milvus"}}, false, `-stores "milvus": unknown store "milvus" (want pgvector, redis, qdrant or elasticsearch)`},
		{"-pg without pgvector", d, Options{Profiles: []string{"redis"}}, true, "-pg without a pgvector store to set the real pgvector beside: add pgvector to -stores, or leave -pg out"},
		{"-pg on l2", &l2, Options{Profiles: []string{"pgvector"}}, true, "-pg with l2 data: the real pgvector's table is Spring AI's cosine one: give -metric cosine, or leave -pg out"},
		{"no -pg on l2", &l2, Options{Profiles: []string{"redis"}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.d, tc.opt, tc.realPG)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want || !errors.Is(err, engine.ErrInvalidArgument) {
				t.Errorf("got %v (Is invalid argument: %t)\nwant %s", err, errors.Is(err, engine.ErrInvalidArgument), tc.want)
			}
		})
	}
}

// TestLoadFilter: a Parquet column filter and a selectivity subset select
// the rows they say, after the hold-out.
func TestLoadFilter(t *testing.T) {
	m := generated(t, 400, 8)
	d, err := Load(context.Background(), writeParquet(t, m), LoadOptions{K: 10, Queries: 40, Seed: 3, Filter: "colour=red"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Base.N != 360 || d.Queries.N != 40 || !strings.Contains(d.QuerySource, "40 rows held out of 400") {
		t.Fatalf("base %d, queries %d, %q", d.Base.N, d.Queries.N, d.QuerySource)
	}
	// Row i of the file is red when i%4 == 0: the base rows kept in file
	// order are HoldOut's, so check by value.
	_, _, bRows, _, err := dataset.HoldOut(m, 40, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range bRows {
		if d.Match.Allowed(engine.ID(i)) != (r%4 == 0) {
			t.Fatalf("base row %d (file row %d): match %t", i, r, d.Match.Allowed(engine.ID(i)))
		}
	}
	s, err := Load(context.Background(), writeFvecs(t, m), LoadOptions{K: 10, Queries: 40, Seed: 3, Selectivity: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Match.Count(); got != 36 {
		t.Errorf("selectivity 0.1 of 360 rows matched %d", got)
	}
}

// TestLoadByName: a data set's name opens as lab/dataset resolves it —
// glove-3k, compiled in, with no file (as in a browser), its own 100
// queries and its metric; an unknown name is the OS's not-found error.
func TestLoadByName(t *testing.T) {
	t.Setenv("VECLAB_DATA", t.TempDir()) // glove-3k is not fetched there
	d, err := Load(context.Background(), "glove-3k", LoadOptions{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if d.Base.N != 3000 || d.Queries.N != 100 || d.Metric != engine.Cosine || !strings.Contains(d.Source, "glove-3k, compiled in") {
		t.Fatalf("base %d, queries %d, %v, %q", d.Base.N, d.Queries.N, d.Metric, d.Source)
	}
	if _, err := Load(context.Background(), "no-such-set", LoadOptions{K: 10}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an unknown name: %v", err)
	}
}

// TestRunKnobIsSmallest runs advise on a set whose recall curve is known
// by measuring every value: the emulated pgvector's hnsw.ef_search and
// Redis's EF_RUNTIME on 2,100 clustered 32-d rows, with 100 queries. The value found reads
// at least the target and is no larger than the smallest value from which
// every value reads within the tolerance of the target (the grid's
// answer); an unreachable target is reported as such, not as an error.
func TestRunKnobIsSmallest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two stores and measures a grid of ef values")
	}
	m := generated(t, 2200, 32)
	d, err := Load(context.Background(), writeFvecs(t, m), LoadOptions{K: 10, Queries: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const target = 0.95
	rep, err := Run(context.Background(), d, Options{K: 10, Target: target, Profiles: []string{"pgvector m=4 ef_construction=16", "redis m=4 ef_construction=16"}})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := dataset.ComputeTruth(d.Base, d.Queries, 10, d.Metric, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Rows {
		t.Run(row.Store, func(t *testing.T) {
			r := row.Unfiltered.Result
			if !r.Reached {
				t.Fatalf("not reached: %+v", r)
			}
			p, err := parseProfile(row.Store, d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := p.Build(d.Base, buildOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			lo, _, _ := knobRange(p, 10, d.Base.Dim, d.Base.N)
			grid := map[int]float64{}
			for v := lo; v <= 2*r.Value+8; v++ {
				m, err := measure(context.Background(), d, Options{K: 10, Workers: 2}, func(v int, q []float32) ([]engine.Result, error) { return s.WithEf(v).Search(q, 10) }, truth, v, false)
				if err != nil {
					t.Fatal(err)
				}
				grid[v] = m.Recall
			}
			if grid[r.Value] != r.At.Recall || grid[r.Value] < target {
				t.Errorf("found %d reads %.4f (the search read %.4f), want ≥ %.2f", r.Value, grid[r.Value], r.At.Recall, target)
			}
			// The grid's answer: the smallest value from which every
			// value on the grid reads at least target − tol.
			gridV := 2*r.Value + 8
			for v := 2*r.Value + 8; v >= lo && grid[v] >= target-rep.Tol; v-- {
				if grid[v] >= target {
					gridV = v
				}
			}
			if r.Value > gridV {
				t.Errorf("found %d, but every value from %d reads within %.4f of the target (grid %v)", r.Value, gridV, rep.Tol, grid)
			}
			t.Logf("%s: found %d (%.4f), grid's answer %d, %d measurements", row.Store, r.Value, r.At.Recall, gridV, len(r.Curve))
		})
	}
	un, err := Run(context.Background(), d, Options{K: 10, Target: 1, Profiles: []string{"pgvector m=2 ef_construction=4"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := un.Rows[0].Unfiltered.Result; r.Reached || !strings.Contains(un.Rows[0].Advice, "not reachable below 1000") {
		t.Errorf("target 1 on a 2-link graph: reached %t, advice %q", r.Reached, un.Rows[0].Advice)
	}
}

// TestRunStops: a context cancelled during a long step (here, once the
// first store's build reports progress) ends Run with the context's
// error at the next query or step, not after every store.
func TestRunStops(t *testing.T) {
	d, err := Load(context.Background(), writeFvecs(t, generated(t, 1500, 16)), LoadOptions{K: 10, Queries: 50})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := map[string]bool{}
	_, err = Run(ctx, d, Options{Progress: func(done, total int, what string) {
		steps[what] = true
		if strings.Contains(what, "build") {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	for s := range steps {
		if strings.Contains(s, "redis") {
			t.Errorf("ran on to %q after the cancel", s)
		}
	}
}

// TestRunPGArguments: the real pgvector (Options.PG) only stands beside
// an emulated pgvector on cosine data (Spring AI's table is
// vector_cosine_ops); anything else is refused before a graph is built,
// rather than left out of the report without a word. The DB is never
// used: the check comes first (TestAdvisePGEmbedded in cmd/veclab runs
// the real one).
func TestRunPGArguments(t *testing.T) {
	path := writeFvecs(t, generated(t, 300, 8))
	for _, c := range []struct {
		name   string
		metric string
		stores []string
		want   string
	}{
		{"l2 data", "l2", []string{"pgvector"}, "-pg with l2 data: the real pgvector's table is Spring AI's cosine one: give -metric cosine, or leave -pg out"},
		{"dot data", "dot", nil, "with dot data"},
		{"no pgvector store", "", []string{"redis", "qdrant"}, "-pg without a pgvector store to set the real pgvector beside: add pgvector to -stores, or leave -pg out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Load(context.Background(), path, LoadOptions{K: 10, Queries: 20, Metric: c.metric})
			if err != nil {
				t.Fatal(err)
			}
			built := false
			_, err = Run(context.Background(), d, Options{Profiles: c.stores, PG: &pglive.DB{}, Progress: func(_, _ int, what string) {
				built = built || strings.Contains(what, "build")
			}})
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) || built {
				t.Errorf("err %v (built: %v), want ErrInvalidArgument saying %q before any build", err, built, c.want)
			}
		})
	}
}

// TestRunQdrantQuantized: the Qdrant rows with quantization_config (the
// indexing threshold lowered so that 3,000 × 64 rows get graphs) search
// hnsw_ef, then, when hnsw_ef alone does not reach the target, Qdrant's
// oversampling with rescoring: int8's default returns the quantized
// scores (rescore = false, measured as such at oversampling 1), binary's
// rescores. The rows count the codes in their bytes per vector, say
// which quantization they are, and the value found reads the target.
func TestRunQdrantQuantized(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three Qdrant stores and searches their knobs")
	}
	m := generated(t, 3100, 64)
	d, err := Load(context.Background(), writeFvecs(t, m), LoadOptions{K: 10, Queries: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const low = " indexing_threshold_kb=100 full_scan_threshold_kb=100"
	const target = 0.99
	rep, err := Run(context.Background(), d, Options{K: 10, Target: target, Workers: 2,
		Profiles: []string{"qdrant" + low, "qdrant quantization=int8" + low, "qdrant quantization=binary" + low}})
	if err != nil {
		t.Fatal(err)
	}
	float := rep.Rows[0]
	for i, want := range []struct{ label, rescore string }{{"qdrant 1.19 int8", "rescore = false"}, {"qdrant 1.19 binary", ""}} {
		row := rep.Rows[i+1]
		t.Run(row.Store, func(t *testing.T) {
			if row.Label != want.label || row.Exact || row.Unfiltered.Knob != "hnsw_ef" {
				t.Errorf("label %q exact %t knob %q, want %q, indexed, hnsw_ef", row.Label, row.Exact, row.Unfiltered.Knob, want.label)
			}
			if row.BytesPerVector <= float.BytesPerVector {
				t.Errorf("%.0f B/vector, the float store %.0f: the codes are not counted", row.BytesPerVector, float.BytesPerVector)
			}
			t.Logf("%s: hnsw_ef default %.3f, best %.3f at %d; reached %t", row.Store, row.Unfiltered.AtDefault.Recall, row.Unfiltered.Result.Best.Recall, row.Unfiltered.Result.Best.Value, row.Unfiltered.Result.Reached)
			if row.Unfiltered.Result.Reached {
				if row.Oversample != nil {
					t.Error("oversampling searched though hnsw_ef reached the target")
				}
				return
			}
			o := row.Oversample
			if o == nil {
				t.Fatal("hnsw_ef did not reach the target and oversampling was not searched")
			}
			t.Logf("%s: %s default %.3f (%s), found %d → %.3f", row.Store, o.Knob, o.AtDefault.Recall, o.DefaultSetting, o.Result.Value, o.AtFound.Recall)
			if o.DefaultSetting != want.rescore || !strings.HasPrefix(o.Knob, "params.quantization.oversampling") {
				t.Errorf("knob %q default setting %q, want params.quantization.oversampling and %q", o.Knob, o.DefaultSetting, want.rescore)
			}
			if o.Result.Reached && o.AtFound.Recall < target-rep.Tol {
				t.Errorf("oversampling %d reads %.3f, below the target %.2f − %.4f", o.Result.Value, o.AtFound.Recall, target, rep.Tol)
			}
			if !strings.Contains(row.Advice, "with rescoring: ") {
				t.Errorf("advice says nothing of rescoring: %q", row.Advice)
			}
		})
	}
	t.Log("\n" + rep.String())
}

// TestLoadReader: a file's bytes read as LoadReader reads a dropped file
// in a browser give the Data Load gives of the file on disk (Parquet with
// its filter column, fvecs, npy, gzipped fvecs), and a bad one the same
// message naming the file.
func TestLoadReader(t *testing.T) {
	m := generated(t, 300, 8)
	var npy, gz bytes.Buffer
	if err := dataset.WriteNpy(&npy, m); err != nil {
		t.Fatal(err)
	}
	npyPath := filepath.Join(t.TempDir(), "vectors.npy")
	if err := os.WriteFile(npyPath, npy.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fv := writeFvecs(t, m)
	raw, err := os.ReadFile(fv)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	gzPath := fv + ".gz"
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	nan := generated(t, 300, 8)
	nan.Row(7)[2] = float32(math.NaN())
	for _, tc := range []struct {
		name string
		path string
		opt  LoadOptions
	}{
		{"parquet with a filter", writeParquet(t, m), LoadOptions{K: 10, Queries: 30, Filter: "colour=blue"}},
		{"fvecs", fv, LoadOptions{K: 10, Queries: 30}},
		{"npy", npyPath, LoadOptions{K: 10, Queries: 30, Selectivity: 0.1}},
		{"fvecs.gz", gzPath, LoadOptions{K: 10, Queries: 30}},
		{"NaN", writeFvecs(t, nan), LoadOptions{K: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, werr := Load(context.Background(), tc.path, tc.opt)
			b, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := LoadReader(context.Background(), tc.path, bytes.NewReader(b), int64(len(b)), tc.opt)
			if werr != nil || gerr != nil {
				if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
					t.Fatalf("Load: %v\nLoadReader: %v", werr, gerr)
				}
				return
			}
			if got.Base.N != want.Base.N || got.Queries.N != want.Queries.N || !slices.Equal(got.Base.Data, want.Base.Data) || !slices.Equal(got.Queries.Data, want.Queries.Data) ||
				got.Source != want.Source || got.QuerySource != want.QuerySource || got.FilterDesc != want.FilterDesc || got.Selectivity() != want.Selectivity() {
				t.Errorf("LoadReader: %d+%d rows, %q, %q, %q; Load: %d+%d, %q, %q, %q", got.Base.N, got.Queries.N, got.Source, got.QuerySource, got.FilterDesc, want.Base.N, want.Queries.N, want.Source, want.QuerySource, want.FilterDesc)
			}
		})
	}
	if _, err := LoadReader(context.Background(), "notes.txt", bytes.NewReader([]byte("hello")), 5, LoadOptions{K: 10}); err == nil || err.Error() != "notes.txt: not a file advise reads here: give a Parquet, .fvecs, .bvecs, .npy or IDX file" {
		t.Errorf("a text file: %v", err)
	}
}
