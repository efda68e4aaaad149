package hnsw

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestSearchTrace checks that a traced search is the search: same results
// and statistics as Search, and a trace whose hops and scored nodes obey
// the walk's rules (each greedy hop a neighbour of the last and closer to
// the query, layer 0 expanding only visited nodes).
func TestSearchTrace(t *testing.T) {
	for _, m := range []engine.Metric{engine.L2, engine.Cosine} {
		ix := smallIndex(t, 400, 2, Config{M: 4, EfConstruction: 32, Metric: m, Workers: 1})
		if ix.MaxLevel() < 2 {
			t.Fatalf("%v: graph has %d layers above 0; the test wants a few", m, ix.MaxLevel())
		}
		s := ix.NewSearcher()
		for qi, q := range [][]float32{{0.3, -0.2}, {-1, 0.5}, {0.01, 0.9}} {
			for _, ef := range []int{1, 10, 40} {
				want, err := s.Search(q, engine.Request{K: 5, Breadth: ef})
				if err != nil {
					t.Fatal(err)
				}
				want = slices.Clone(want)
				wantStats := s.Stats()
				tr, err := s.SearchTrace(q, engine.Request{K: 5, Breadth: ef})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(tr.Results, want) || tr.Stats != wantStats {
					t.Fatalf("%v q%d ef=%d: traced search gave %v %+v, Search %v %+v", m, qi, ef, tr.Results, tr.Stats, want, wantStats)
				}
				checkTrace(t, ix, q, tr)
				// The recorder is off again: Search still allocates nothing.
				if s.tr != nil {
					t.Fatal("SearchTrace left its recorder on")
				}
			}
		}
	}
}

func checkTrace(t *testing.T, ix *Index, q []float32, tr *Trace) {
	t.Helper()
	prep, _ := ix.PrepareQuery(nil, q)
	if tr.Entry != ix.EntryPoint() || len(tr.Layers) != ix.MaxLevel()+1 {
		t.Fatalf("entry %d (index: %d), %d layers (index: %d)", tr.Entry, ix.EntryPoint(), len(tr.Layers), ix.MaxLevel()+1)
	}
	hops, comps := 0, 0
	cur := tr.Entry
	for i, l := range tr.Layers {
		if l.Level != ix.MaxLevel()-i {
			t.Fatalf("layer %d of the trace is level %d", i, l.Level)
		}
		hops += len(l.Expanded)
		comps += len(l.Visited)
		if len(l.Expanded) == 0 || l.Expanded[0] != cur {
			t.Fatalf("level %d starts at %v, the layer above ended at %d", l.Level, l.Expanded, cur)
		}
		if l.Level > 0 {
			for j := 1; j < len(l.Expanded); j++ {
				a, b := l.Expanded[j-1], l.Expanded[j]
				if !slices.Contains(ix.Neighbors(l.Level, a), b) {
					t.Fatalf("level %d: hop %d→%d is not an edge", l.Level, a, b)
				}
				if ix.QueryDistance(prep, b) >= ix.QueryDistance(prep, a) {
					t.Fatalf("level %d: hop %d→%d does not get closer", l.Level, a, b)
				}
			}
			cur = l.Expanded[len(l.Expanded)-1]
			continue
		}
		seen := map[engine.ID]bool{}
		for _, id := range l.Visited {
			if seen[id] {
				t.Fatalf("layer 0 scored %d twice", id)
			}
			seen[id] = true
		}
		for _, id := range l.Expanded {
			if !seen[id] {
				t.Fatalf("layer 0 expanded %d, which it never scored", id)
			}
		}
		for _, r := range tr.Results {
			if !seen[r.ID] {
				t.Fatalf("result %d was never scored", r.ID)
			}
		}
		if len(l.Visited) != tr.Stats.Visited {
			t.Fatalf("layer 0 scored %d nodes, Stats.Visited = %d", len(l.Visited), tr.Stats.Visited)
		}
	}
	if hops != tr.Stats.Hops || comps != tr.Stats.DistComps {
		t.Fatalf("trace has %d hops and %d scored nodes, stats %+v", hops, comps, tr.Stats)
	}
	p := tr.Path()
	if p[0] != tr.Entry || p[len(p)-1] != tr.Layers[len(tr.Layers)-1].Expanded[0] {
		t.Fatalf("path %v does not run from the entry %d to layer 0's start", p, tr.Entry)
	}
	if _, ok := tr.Layer(0); !ok {
		t.Fatal("Layer(0) not found")
	}
	if _, ok := tr.Layer(ix.MaxLevel() + 1); ok {
		t.Fatal("Layer above the top found")
	}
}

func TestSearchTraceErrors(t *testing.T) {
	empty, err := New(Config{Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := empty.NewSearcher().SearchTrace([]float32{1, 0}, engine.Request{K: 1, Breadth: 10}); !errors.Is(err, engine.ErrEmpty) {
		t.Fatalf("empty index: %v", err)
	}
	ix := smallIndex(t, 50, 2, Config{M: 4, Workers: 1})
	s := ix.NewSearcher()
	if _, err := s.SearchTrace([]float32{1, 0, 0}, engine.Request{K: 1, Breadth: 10}); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("wrong dimension: %v", err)
	}
	if _, err := s.SearchTrace([]float32{1, 0}, engine.Request{K: 0, Breadth: 10}); err == nil {
		t.Fatal("k = 0 accepted")
	}
	if s.tr != nil {
		t.Fatal("a failed SearchTrace left its recorder on")
	}
}
