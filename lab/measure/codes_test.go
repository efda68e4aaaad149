package measure_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/quantizers"
)

// codes trains the named quantizer on ds and encodes every vector.
func codes(t testing.TB, ds *dataset.Dataset, name string) engine.Index {
	t.Helper()
	q, err := quantizers.Train(name, ds.Base, engine.Cosine, 1)
	if err != nil {
		t.Fatal(err)
	}
	if q == nil { // raw: the float32 vectors themselves
		ix, err := flat.New(ds.Base, flat.Config{Metric: engine.Cosine})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	st := quant.NewStore(q)
	st.Reserve(ds.Base.N)
	for i := 0; i < ds.Base.N; i++ {
		if err := st.Set(engine.ID(i), ds.Base.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestSweepRescore: raw codes are exact with or without rescoring; 1-bit
// codes lose recall that rescoring wins back, more with a larger
// oversample; the table reads the sweeps in the columns the experiments'
// verdicts read; bad arguments are errors in the caller's terms.
func TestSweepRescore(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{0, 1, 5}
	raw, err := measure.SweepRescore(codes(t, ds, "raw"), ds.Base, xs, queries)
	if err != nil {
		t.Fatal(err)
	}
	bbq, err := measure.SweepRescore(codes(t, ds, "bbq"), ds.Base, xs, queries)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range raw {
		if r.Recall != 1 || r.Label != fmt.Sprint(xs[i]) {
			t.Errorf("raw ×%v: label %q recall %.3f, want %v and 1", xs[i], r.Label, r.Recall, xs[i])
		}
	}
	if !(bbq[0].Recall < 1 && bbq[0].Recall <= bbq[1].Recall && bbq[1].Recall < bbq[2].Recall) {
		t.Errorf("bbq recall none %.3f, ×1 %.3f, ×5 %.3f: want below 1 and rising with the oversample", bbq[0].Recall, bbq[1].Recall, bbq[2].Recall)
	}
	tb, err := measure.BesideCodes("codes", ds.Base.Dim, []string{"raw", "bbq"}, [][]measure.Result{raw, bbq},
		[]measure.Figure{{Row: "bbq", Measure: "compression", Value: 32, Unit: "×"}, {Row: "bbq", Measure: "recall", Value: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		header string
		want   float64
	}{
		{"recall@10 no rescoring", bbq[0].Recall},
		{"rescored ×5 (50 cands)", bbq[2].Recall},
		{"bytes/vector", bbq[0].BytesPerVector},
		{"compression", float64(4*ds.Base.Dim) / bbq[0].BytesPerVector},
	} {
		ci := tb.Column(tc.header + " (lab)")
		if tc.header == "compression" {
			ci = tb.Column("compression × (lab)")
		}
		if ci < 0 {
			t.Fatalf("no column %q in %v", tc.header, tb)
		}
		if c := tb.Cell(1, ci); c.Float != tc.want {
			t.Errorf("bbq %s = %v, want %v", tc.header, c.Float, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		codes engine.Index
		vecs  *vec.Matrix
		xs    []float64
		want  error
	}{
		{"no index", nil, ds.Base, xs, engine.ErrInvalidArgument},
		{"no oversample", codes(t, ds, "raw"), ds.Base, nil, engine.ErrInvalidArgument},
		{"oversample 0.5", codes(t, ds, "raw"), ds.Base, []float64{0.5}, engine.ErrInvalidArgument},
		{"other vectors", codes(t, ds, "raw"), vec.NewMatrix(3, ds.Base.Dim), xs, engine.ErrDimension},
	} {
		if _, err := measure.SweepRescore(tc.codes, tc.vecs, tc.xs, queries); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := measure.BesideCodes("t", ds.Base.Dim, []string{"raw", "bbq"}, [][]measure.Result{raw, bbq[:2]}, nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("sweeps of different oversamples: err = %v, want ErrInvalidArgument", err)
	}
}

// Elasticsearch's bbq (1-bit codes, 4-bit query) trained on the data,
// every vector encoded, then searched with rescoring: the oversample wins
// back the recall the codes lose.
func ExampleSweepRescore() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)
	q, err := quantizers.Train("bbq", ds.Base, engine.Cosine, 1)
	check(err)
	codes := quant.NewStore(q)
	codes.Reserve(ds.Base.N)
	for i := 0; i < ds.Base.N; i++ {
		check(codes.Set(engine.ID(i), ds.Base.Row(i)))
	}
	sweep, err := measure.SweepRescore(codes, ds.Base, []float64{0, 3, 10}, queries)
	check(err)
	fmt.Printf("%.0f B a vector instead of %d\n", sweep[0].BytesPerVector, 4*ds.Base.Dim)
	fmt.Println("rescoring ×3 beats codes alone:", sweep[1].Recall > sweep[0].Recall)
	fmt.Println("×10 beats ×3:", sweep[2].Recall > sweep[1].Recall)
	// Output:
	// 62 B a vector instead of 1536
	// rescoring ×3 beats codes alone: true
	// ×10 beats ×3: true
}
