package nested

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
)

// TestNaiveView: the Naive view answers what SearchNaive answers (parent
// ids, at most K, the workaround's k′ truncated to K) and refuses what
// the naive plan does not take.
func TestNaiveView(t *testing.T) {
	x, qs := build(t)
	const k = 10
	q := qs.Row(0)
	for _, tc := range []struct {
		name     string
		passages int
		asked    int
	}{
		{"naive", 0, k},
		{"k' = 45", 45, 45},
		{"below k asks k", 3, k},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st, err := Naive{X: x, Passages: tc.passages}.Query(q, engine.Request{K: k, Breadth: 20})
			if err != nil {
				t.Fatal(err)
			}
			hits, st2, err := x.SearchNaive(q, tc.asked, 20)
			if err != nil {
				t.Fatal(err)
			}
			hits = hits[:min(len(hits), k)]
			var want []engine.ID
			for _, h := range hits {
				want = append(want, engine.ID(h.Parent))
			}
			var ids []engine.ID
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if !slices.Equal(ids, want) || st.DistComps != st2.DistComps {
				t.Fatalf("Naive{%d} = %v (%d distances), SearchNaive(%d) = %v (%d)", tc.passages, ids, st.DistComps, tc.asked, want, st2.DistComps)
			}
			if len(got) > k {
				t.Fatalf("%d results for K=%d", len(got), k)
			}
		})
	}
	if n := (Naive{X: x}); n.Len() != x.Len() || n.Dim() != x.Dim() || n.BytesPerVector() != x.BytesPerVector() {
		t.Errorf("Naive Len/Dim/bytes %d/%d/%v, index %d/%d/%v", n.Len(), n.Dim(), n.BytesPerVector(), x.Len(), x.Dim(), x.BytesPerVector())
	}
	// 32 dimensions of float32, a 4-byte parent id, and the graph's links.
	if b, links := x.BytesPerVector(), x.graph.(*hnsw.Index).GraphBytesPerVector(); b != 4*32+4+links || links <= 0 {
		t.Errorf("BytesPerVector %v, want 4·32 + 4 + %v of links", b, links)
	}
	for _, tc := range []struct {
		name string
		n    Naive
		r    engine.Request
	}{
		{"no index", Naive{}, engine.Request{K: k}},
		{"negative passages", Naive{X: x, Passages: -1}, engine.Request{K: k}},
		{"k 0", Naive{X: x}, engine.Request{K: 0}},
		{"filter", Naive{X: x}, engine.Request{K: k, Filter: engine.FilterFunc(func(engine.ID) bool { return true })}},
	} {
		if _, _, err := tc.n.Query(q, tc.r); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", tc.name, err)
		}
	}
}
