package nested

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
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
	if n := (Naive{X: x}); n.Len() != x.Len() || n.Dim() != x.Dim() {
		t.Errorf("Naive Len/Dim %d/%d, index %d/%d", n.Len(), n.Dim(), x.Len(), x.Dim())
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
