package nested

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
)

// TestContract runs the conformance suite through Query with one passage
// per parent, so parent ids are the suite's row numbers and the nearest
// parents are the nearest rows; the filter is then over parents too.
// (Several passages per parent are TestParents' business.)
func TestContract(t *testing.T) {
	indextest.Run(t, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
		cfg := hnsw.HnswlibConfig(dim, m, 12, 64)
		cfg.Workers = 1
		g, err := hnsw.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, vs.N)
		parents := make([]uint32, vs.N)
		for i := range keys {
			keys[i], parents[i] = uint64(i), uint32(i)
		}
		if vs.N > 0 {
			if err := g.AddBatch(keys, vs); err != nil {
				t.Fatal(err)
			}
		}
		x, err := New(g.Vectors(), parents, m, g)
		if err != nil {
			t.Fatal(err)
		}
		return indextest.Contract(x, 100)
	})
}

// TestQueryParents checks Query over several passages per parent: parent
// ids, each parent once, only allowed parents (every third), at the
// distance of the parent's nearest passage, and recall of the filtered
// exact parents.
func TestQueryParents(t *testing.T) {
	x, qs := build(t)
	const k = 10
	allow := engine.FilterFunc(func(id engine.ID) bool { return id%3 == 0 })
	var rec float64
	for i := 0; i < qs.N; i++ {
		q := qs.Row(i)
		got, st, err := x.Query(q, engine.Request{K: k, Breadth: 60, Filter: allow})
		if err != nil {
			t.Fatal(err)
		}
		if st.DistComps == 0 {
			t.Fatal("no distance computations counted")
		}
		all, err := x.ExactParents(q, x.Len())
		if err != nil {
			t.Fatal(err)
		}
		best := map[engine.ID]float32{}
		var want []engine.ID
		for _, h := range all {
			best[engine.ID(h.Parent)] = h.Dist
			if allow(engine.ID(h.Parent)) && len(want) < k {
				want = append(want, engine.ID(h.Parent))
			}
		}
		if len(got) != k {
			t.Fatalf("query %d: %d parents, want %d", i, len(got), k)
		}
		seen := map[engine.ID]bool{}
		for j, r := range got {
			if !allow(r.ID) || seen[r.ID] || int(r.ID) >= x.Len() {
				t.Fatalf("query %d result %d: parent %d (allowed %v, repeated %v)", i, j, r.ID, allow(r.ID), seen[r.ID])
			}
			seen[r.ID] = true
			if r.Dist != best[r.ID] {
				t.Fatalf("query %d: parent %d at %v, its nearest passage is at %v", i, r.ID, r.Dist, best[r.ID])
			}
		}
		for _, id := range want {
			if seen[id] {
				rec++
			}
		}
	}
	rec /= float64(qs.N * k)
	t.Logf("filtered parent recall@%d = %.3f", k, rec)
	if rec < 0.9 {
		t.Fatalf("filtered parent recall@%d = %.3f < 0.9", k, rec)
	}
}
