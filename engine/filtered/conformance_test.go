package filtered

import (
	"errors"
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
)

// TestContract runs the conformance suite through Query for every
// strategy that promises k results when k documents match: the suite's
// filters are an *engine.Bitset (a known matching set) and an opaque
// FilterFunc (allow nothing). PostFilter is left out on purpose: pgvector
// without iterative scans returns fewer than k rows under a selective
// filter, which is what E-series experiments measure, not a defect.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		s     Strategy
		floor float64
	}{
		{InGraph, 0.9}, {Exact, 1}, {QdrantPlanner, 0.9}, {RedisHybrid, 0.9}, {ACORNGamma, 0.9},
		// pgvector's iterative scans keep the first k passing rows, not
		// the best k, and strict_order also drops every row found after a
		// farther one (see iterative): 0.86 and 0.84 of the top 10 under
		// Dot with a 10 % filter.
		{IterativeRelaxed, 0.8}, {IterativeStrict, 0.8},
		// ACORN-1 walks the ordinary M = 12 graph two hops at a time
		// (the paper's lower-recall, cheaper variant): 0.89 under Dot.
		{ACORN1, 0.85},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			indextest.RunWith(t, indextest.Options{MinRecall: tc.floor}, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
				return indextest.Contract(contractCollection(t, dim, m, vs, tc.s), 0)
			})
		})
	}
}

func contractCollection(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix, s Strategy) *Collection {
	t.Helper()
	cfg := hnsw.HnswlibConfig(dim, m, 12, 64)
	cfg.Workers = 1
	g, err := hnsw.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, vs.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if vs.N > 0 {
		if err := g.AddBatch(keys, vs); err != nil {
			t.Fatal(err)
		}
	}
	meta, err := filter.NewStore(filter.Schema{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meta.Add(make([]filter.Doc, vs.N)...); err != nil {
		t.Fatal(err)
	}
	o := Options{Metric: m, Graph: g, M: 12}
	if vs.N > 0 {
		// The collection's vectors are the graph's (unit length under
		// Cosine, as New requires). γ = 10 is the paper's 1/s for the
		// suite's 10 % filter (γ = 4 left it at 0.87).
		if o.ACORN, err = BuildACORN(g.Vectors(), m, ACORNConfig{M: 12, Gamma: 10, Seed: 5, MinSelectivity: 0.01}); err != nil {
			t.Fatal(err)
		}
		// Qdrant's full_scan_threshold of 10,000 KB of vectors, its default.
		o.Plan = &Plan{Strategy: s, Params: Params{Ef: 100, FullScanThreshold: 10000 * 1024 / (4 * dim)}}
	}
	c, err := New(g.Vectors(), meta, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestQueryFilters checks how Query maps each kind of engine.Filter: a
// compiled filter answers as Search with it does, an opaque predicate as
// the bitset of the same set (exact plan), and a bad plan or a filter
// compiled for another collection is refused.
func TestQueryFilters(t *testing.T) {
	f := getFixture(t)
	cf, err := f.store.CompileString("category == 'c3' && bucket < 500")
	if err != nil {
		t.Fatal(err)
	}
	bits := cf.Bitset()
	opaque := engine.FilterFunc(bits.Allowed)
	exact, err := f.coll.WithPlan(Plan{Strategy: Exact})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < f.queries.N; i++ {
		q := f.queries.Row(i)
		want, _, err := f.coll.Search(Request{Query: q, K: 10, Filter: cf.Clone(), Strategy: InGraph, Params: Params{Ef: 64}})
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := f.coll.Query(q, engine.Request{K: 10, Breadth: 64, Filter: cf})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || st.DistComps == 0 {
			t.Fatalf("query %d: Query with a compiled filter %v (%d distances), Search %v", i, got, st.DistComps, want)
		}
		a, _, err1 := exact.Query(q, engine.Request{K: 10, Filter: bits})
		b, _, err2 := exact.Query(q, engine.Request{K: 10, Filter: opaque})
		if err1 != nil || err2 != nil || fmt.Sprint(a) != fmt.Sprint(b) || len(a) != 10 {
			t.Fatalf("query %d: bitset %v (%v), opaque %v (%v)", i, a, err1, b, err2)
		}
	}
	if cf.PayloadChecks() != 0 {
		t.Fatalf("Query counted into the caller's compiled filter (%d payload checks)", cf.PayloadChecks())
	}
	small, err := filter.NewStore(filter.Schema{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Add(filter.Doc{Meta: map[string]any{"category": "c3"}}); err != nil {
		t.Fatal(err)
	}
	other, err := small.CompileString("category == 'c3'")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.coll.Query(f.queries.Row(0), engine.Request{K: 5, Filter: other}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("filter compiled for another store: %v", err)
	}
	noGraph, err := New(f.vectors, f.store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if noGraph.Plan().Strategy != Exact {
		t.Fatalf("default plan without a graph: %v", noGraph.Plan())
	}
	for _, p := range []Plan{{Strategy: ACORNGamma}, {Strategy: QdrantGraph}, {Strategy: InGraph, Params: Params{Ef: -1}}} {
		if _, err := noGraph.WithPlan(p); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("plan %v on a collection without graphs: %v", p, err)
		}
	}
}
