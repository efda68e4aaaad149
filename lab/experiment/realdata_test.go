package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// TestUseDataGloVe runs the quantization experiments' measurement on the
// checked-in GloVe vectors (compiled in as glove-3k): the whole set with its
// cached truth, then its first 2,000 rows with a truth of their own.
func TestUseDataGloVe(t *testing.T) {
	for _, n := range []int{0, 2000} {
		env, err := NewEnv(Scale{Name: "x", N: max(n, 100), Dim: 1, Clusters: 1, Queries: 20, Warmup: 5, K: 10, Batch: 250}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			env.Scale.N = 0 // the whole set
		}
		if err := env.UseData("glove-3k", t.TempDir()); err != nil {
			t.Fatal(err)
		}
		wantN := 3000
		if n > 0 {
			wantN = n
		}
		if env.Scale.N != wantN || env.Scale.Dim != 100 || env.Scale.Queries != 20 || env.Metric() != engine.Cosine || env.DataName() != "glove-3k" {
			t.Fatalf("n=%d: scale %v, metric %s, name %s", n, env.Scale, env.Metric(), env.DataName())
		}
		raw, err := QuantFlat(env, "raw", []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		if raw.RecallNone < 0.999 {
			t.Fatalf("n=%d: float32 flat scan recall %v against the truth, want exact", n, raw.RecallNone)
		}
		bbq, err := QuantFlat(env, "bbq", []float64{1, 10})
		if err != nil {
			t.Fatal(err)
		}
		if !(bbq.RecallNone < 0.9 && bbq.RecallOver[1] > bbq.RecallNone) {
			t.Fatalf("n=%d: bbq recall %v, ×10 %v: want a 1-bit loss on GloVe that rescoring reduces", n, bbq.RecallNone, bbq.RecallOver[1])
		}
		ds, _ := env.Dataset()
		if len(ds.Meta) != wantN || len(ds.Matching(func(d dataset.Doc) bool { return d.Category == "c3" })) == 0 {
			t.Fatalf("n=%d: no metadata for the filtered experiments", n)
		}
	}
}

// TestUseDataL2 checks that a real set's metric reaches the experiments:
// under L2 on vectors of different lengths, a cosine flat scan would
// disagree with the L2 truth.
func TestUseDataL2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mk := func(n int) *vec.Matrix {
		m := vec.NewMatrix(n, 8)
		for i := range m.Data {
			m.Data[i] = float32(r.IntN(256))
		}
		return m
	}
	dir := filepath.Join(t.TempDir(), "l2set")
	if err := dataset.WriteLayout(dir, dataset.Layout{Base: mk(500), Queries: mk(30), Manifest: dataset.Manifest{Name: "l2set", Metric: "l2"}}); err != nil {
		t.Fatal(err)
	}
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.UseData(dir, ""); err != nil {
		t.Fatal(err)
	}
	if env.Metric() != engine.L2 || env.Scale.N != 500 || env.Scale.Queries != 20 {
		t.Fatalf("metric %s scale %v", env.Metric(), env.Scale)
	}
	raw, err := QuantFlat(env, "raw", []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if raw.RecallNone < 0.999 {
		t.Fatalf("L2 flat scan recall %v, want exact", raw.RecallNone)
	}
	if p := env.fill(profile.Profile{}); p.Metric != engine.L2 {
		t.Fatalf("profiles get metric %s on an L2 set", p.Metric)
	}
	if err := env.UseData(filepath.Join(t.TempDir(), "missing"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
}

// TestSmallestOversample checks the reading shared by QuantSets.Needed
// and QuantFrontier: the codes alone, the first factor reaching the
// target, or none.
func TestSmallestOversample(t *testing.T) {
	r := QuantResult{Name: "q", RecallNone: 0.8, Oversample: []float64{1, 2, 5}, RecallOver: []float64{0.85, 0.95, 0.99}}
	for _, c := range []struct {
		target float64
		want   float64
		ok     bool
		text   string
	}{
		{0.8, 0, true, "none"},
		{0.81, 1, true, "×1"},
		{0.9, 2, true, "×2"},
		{0.95, 2, true, "×2"},
		{0.96, 5, true, "×5"},
		{0.99, 5, true, "×5"},
		{0.995, 0, false, "—"},
	} {
		o, ok := smallestOversample(r, c.target)
		if o != c.want || ok != c.ok || neededText(r, c.target) != c.text {
			t.Errorf("target %v: %v, %v, %q; want %v, %v, %q", c.target, o, ok, neededText(r, c.target), c.want, c.ok, c.text)
		}
	}
	if _, ok := smallestOversample(QuantResult{}, 0.5); ok {
		t.Error("a result never measured reaches a target")
	}
}

// TestQuantSetsTables runs two quantizers on two data sets (generated and
// the compiled-in GloVe) and checks that the tables and charts lay them
// out by set, with the figures QuantFlat gives.
func TestQuantSetsTables(t *testing.T) {
	gen := small(t)
	glove, err := NewEnv(Scale{Name: "x", N: 1000, Dim: 1, Clusters: 1, Queries: 10, Warmup: 0, K: 10, Batch: 250}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := glove.UseData("glove-3k", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	over := []float64{1, 3}
	sets := &RealSets{Names: []string{"generated", "glove-3k"}, Envs: map[string]*Env{"generated": gen, "glove-3k": glove}}
	qs, err := MeasureQuantSets(sets, []string{"raw", "bbq"}, over)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs.Sets) != 2 || qs.Sets[0] != "generated" || qs.Sets[1] != "glove-3k" {
		t.Fatalf("sets %v", qs.Sets)
	}
	want, err := QuantFlat(glove, "bbq", over)
	if err != nil {
		t.Fatal(err)
	}
	tb := qs.Table("t", "bbq", "raw", "absent")
	if len(tb.Rows) != 4 || tb.Rows[0][1].String() != "generated" || tb.Rows[1][1].String() != "glove-3k" || tb.Rows[2][0].String() != "raw" {
		t.Fatalf("table rows:\n%s", tb)
	}
	if got := tb.Rows[1][tb.Column("×3")].Float; got != want.RecallOver[1] {
		t.Errorf("glove bbq ×3 = %v in the table, QuantFlat gives %v", got, want.RecallOver[1])
	}
	need := qs.Needed([]float64{0.9, 0.999}, "raw", "bbq")
	if len(need.Columns) != 5 || need.Columns[3].Header != "glove-3k 0.9" {
		t.Fatalf("needed columns: %v", need.Columns)
	}
	if c, _ := need.Lookup("raw", "generated 0.999"); c.String() != "none" {
		t.Errorf("raw float32 needs %q to reach 0.999, want none (exact scan)", c.String())
	}
	if c, _ := need.Lookup("bbq", "glove-3k 0.9"); c.String() != neededText(want, 0.9) {
		t.Errorf("bbq on glove needs %q, QuantFlat's result reads %q", c.String(), neededText(want, 0.9))
	}
	if err := qs.Chart("c", "bbq").Err(); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		sets  *RealSets
		names []string
		over  []float64
	}{
		{nil, []string{"raw"}, over},
		{&RealSets{}, []string{"raw"}, over},
		{sets, nil, over},
		{sets, []string{"raw"}, []float64{0.5}},
		{&RealSets{Names: []string{"absent"}}, []string{"raw"}, over},
	} {
		if _, err := MeasureQuantSets(c.sets, c.names, c.over); !errors.Is(err, errBadArgument) {
			t.Errorf("MeasureQuantSets(%+v, %v, %v): %v, want ErrBadArgument", c.sets, c.names, c.over, err)
		}
	}
}

// TestSetRunsTables lays out two sets' runs, built by hand: one column per
// set in the given order, the article's figures beside them.
func TestSetRunsTables(t *testing.T) {
	ms := func(labels []string, recalls ...float64) []Measurement {
		var out []Measurement
		for i, r := range recalls {
			out = append(out, Measurement{Label: labels[i], Recall: r})
		}
		return out
	}
	stores := []string{"pgvector", "Redis", "Qdrant", "Elasticsearch"}
	types := []string{"bbq_hnsw", "int8_hnsw", "hnsw"}
	rs := SetRuns{
		{Name: "generated", Docs: 2000, K: 10, E02: ms(stores, 0.9, 0.6, 1, 0.3), E10: ms(types, 0.3, 0.7, 0.75), E10Filtered: ms(types, 0.4, 0.8, 0.85),
			IVF: []DiskPoint{{Recall: 0.5, QPS: 100}}, HNSW: []DiskPoint{{Recall: 0.4, QPS: 50}}},
		{Name: "glove-3k", Docs: 2000, K: 10, E02: ms(stores, 0.97, 0.84, 0.99, 0.86), E10: ms(types, 0.5, 0.86, 0.89), E10Filtered: ms(types, 0.6, 0.9, 0.95)},
	}
	e02t := rs.E02Table()
	if e02t.Title != "E02 recall@10 on each store's defaults, 2000 documents per set" || len(e02t.Rows) != 4 {
		t.Fatalf("E02 table:\n%s", e02t)
	}
	check := func(what string, got any, want string) {
		t.Helper()
		if s := fmt.Sprint(got); s != want {
			t.Errorf("%s = %s, want %s", what, s, want)
		}
	}
	c, _ := e02t.Lookup("pgvector", "article")
	check("E02 pgvector article", c, fmt.Sprint(e02.articleValue("pgvector", "recall@10")))
	c, _ = e02t.Lookup("Redis", "glove-3k")
	check("E02 Redis glove-3k", c, "0.840")
	c, _ = e02t.Lookup("Elasticsearch", "generated")
	check("E02 Elasticsearch generated", c, "0.300")
	e10t := rs.E10Table()
	if len(e10t.Rows) != 3 || len(e10t.Columns) != 7 {
		t.Fatalf("E10 table:\n%s", e10t)
	}
	c, _ = e10t.Lookup("int8_hnsw", "glove-3k filtered")
	check("E10 int8_hnsw glove-3k filtered", c, "0.900")
	c, _ = e10t.Lookup("hnsw", "article filtered")
	check("E10 hnsw article filtered", c, "1.000")
	for _, ch := range []interface{ Err() error }{rs.E02Bars(), rs.E10Bars()} {
		if err := ch.Err(); err != nil {
			t.Error(err)
		}
	}
	if len(rs.E26Chart().Series) != 4 || len(rs.E26Tables()) != 2 {
		t.Errorf("E26: %d series, %d tables; want 4 and 2", len(rs.E26Chart().Series), len(rs.E26Tables()))
	}
}
