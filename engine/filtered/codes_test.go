package filtered

import (
	"errors"
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// bbqCollection binds the fixture to BBQ codes (1-bit documents, 4-bit
// queries), as an Elasticsearch bbq_hnsw field.
func bbqCollection(t *testing.T) (*fixture, *Collection) {
	t.Helper()
	fx := getFixture(t)
	q, err := quant.TrainOSQ(fx.vectors, engine.Cosine, quant.OSQConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cs := quant.NewStore(q)
	cs.Reserve(fx.vectors.N)
	for i := 0; i < fx.vectors.N; i++ {
		if err := cs.Set(engine.ID(i), fx.vectors.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := fx.coll.WithCodes(cs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Codes() == nil || fx.coll.Codes() != nil || c.Graph() != fx.coll.Graph() {
		t.Fatal("WithCodes changed the original or lost the graph")
	}
	return fx, c
}

func TestInGraphCodes(t *testing.T) {
	fx, c := bbqCollection(t)
	const k = 10
	cases := []struct {
		name     string
		text     string
		ef       int
		rescore  int
		path     Strategy // on every query
		minRec   float64  // mean recall lower bound
		maxRec   float64  // mean recall upper bound (1: none)
		rescored bool
	}{
		// Rescoring every matching document (15 ≤ k' = 30) through the
		// exact fallback gives the float32 truth.
		{"tiny/rescore30", `bucket < 5`, 30, 30, Exact, 1, 1, true},
		// Quantized-only exact fallback: 1-bit codes misorder neighbours.
		{"tiny/norescore", `bucket < 5`, 30, 0, Exact, 0, 0.99, false},
		// 1-bit codes of 32 dims are crude: rescoring k' = 30 lifts recall
		// well above the quantized order (0.70 vs 0.39 here).
		{"sel50/rescore30", `bucket < 500`, 30, 30, InGraph, 0.6, 1, true},
		{"sel50/norescore", `bucket < 500`, 30, 0, InGraph, 0, 0.6, false},
		{"sel10/rescore30", `bucket < 100`, 30, 30, 0, 0.7, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cf, err := fx.store.CompileString(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			var rec float64
			for qi := 0; qi < fx.queries.N; qi++ {
				q := fx.queries.Row(qi)
				want := truth(t, fx.coll, q, cf, k)
				got, st, err := c.Search(Request{Query: q, K: k, Filter: cf, Strategy: InGraph, Params: Params{Ef: tc.ef, Rescore: tc.rescore}})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != min(k, len(cf.IDs())) {
					t.Fatalf("query %d: %d hits", qi, len(got))
				}
				if tc.path != 0 && st.Path != tc.path {
					t.Fatalf("query %d: path %v, want %v", qi, st.Path, tc.path)
				}
				if tc.rescored != (st.Rescored > 0) || st.Rescored > max(tc.rescore, k) {
					t.Fatalf("query %d: %d rescored with rescore %d", qi, st.Rescored, tc.rescore)
				}
				if st.DistComps <= st.Rescored {
					t.Fatalf("query %d: %d distances, %d rescored: no quantized scores", qi, st.DistComps, st.Rescored)
				}
				for i, r := range got {
					if !cf.Allowed(r.ID) {
						t.Fatalf("query %d: %d not allowed", qi, r.ID)
					}
					if i > 0 && r.Dist < got[i-1].Dist {
						t.Fatalf("query %d: out of order at %d", qi, i)
					}
					if tc.rescored {
						// Rescored distances are the float32 ones.
						exact := fx.coll.dist(normalized(q), fx.vectors.Row(int(r.ID)))
						if r.Dist != exact {
							t.Fatalf("query %d: %d has distance %v, float32 %v", qi, r.ID, r.Dist, exact)
						}
					}
				}
				rec += recall(got, want)
			}
			rec /= float64(fx.queries.N)
			if rec < tc.minRec || rec > tc.maxRec {
				t.Errorf("recall %.3f not in [%.2f, %.2f]", rec, tc.minRec, tc.maxRec)
			}
			t.Logf("recall %.3f", rec)
		})
	}
}

func normalized(q []float32) []float32 {
	q = append([]float32(nil), q...)
	if err := vec.Normalize(q); err != nil {
		panic(err)
	}
	return q
}

func TestWithCodesBadInput(t *testing.T) {
	fx := getFixture(t)
	q, err := quant.TrainOSQ(fx.vectors, engine.Cosine, quant.OSQConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cs := quant.NewStore(q)
	cs.Reserve(10)
	for i := 0; i < 10; i++ {
		if err := cs.Set(engine.ID(i), fx.vectors.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fx.coll.WithCodes(cs); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("10 codes for %d vectors: err %v", fx.vectors.N, err)
	}
	_, c := bbqCollection(t)
	for _, p := range []Params{{Rescore: -1}} {
		if _, _, err := c.Search(Request{Query: fx.queries.Row(0), K: 10, Strategy: InGraph, Params: p}); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Fatalf("%v: err %v", fmt.Sprint(p), err)
		}
	}
}
