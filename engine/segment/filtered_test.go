package segment

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vfs"
)

// filteredCollection holds 1,200 clustered vectors in segs segments.
func filteredCollection(t *testing.T, segs int) (*Collection, *flat.Index) {
	t.Helper()
	data := indextest.Clustered(1200, testDim, 8, 1)
	c, err := Open(testConfig(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	per := data.N / segs
	for s := 0; s < segs; s++ {
		if err := c.Add(docs(data, s*per, (s+1)*per)); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.Segments()); n != segs {
		t.Fatalf("%d segments, want %d", n, segs)
	}
	exact, err := flat.New(data, flat.Config{Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	return c, exact
}

// TestFilteredSearchLeaves checks each segment's path under Lucene 10.3's
// getLeafResults, worked by hand (ef = 15, K = 5):
//
//   - two segments of 600, every 50th key (12 per segment): the optimistic
//     per-leaf k is (int)(7.5 + 16·√3.75) = 38 ≥ 12, so both are searched
//     exactly, first pass only (their 12th hit is beyond the merged 5th);
//   - one segment of 1,200, every 25th key (48): perLeafTopK = 15 < 48,
//     and ln(1200)·15 = 106 ≥ 48, so the reader scans the 48 exhaustively;
//   - one segment, every 4th key (300, 25 %): 106 < 300 walks the graph,
//     filtered under threshold 60 (25 < 60), plain under 0.
//
// The exact and exhaustive paths give the exact answer over the matches.
func TestFilteredSearchLeaves(t *testing.T) {
	q := indextest.Clustered(1200, testDim, 8, 1).Row(3)
	for _, c := range []struct {
		name       string
		segs, mod  int
		threshold  int
		optimistic bool
		want       filterPaths
		exact      bool
	}{
		{"two segments, 12 matches each", 2, 50, 60, true, filterPaths{exact: 2}, true},
		{"one segment, 48 matches", 1, 25, 60, false, filterPaths{exhaustive: 1}, true},
		{"one segment, 25 %, acorn", 1, 4, 60, false, filterPaths{filteredWalk: 1}, false},
		{"one segment, 25 %, fanout", 1, 4, 0, false, filterPaths{graph: 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			coll, ex := filteredCollection(t, c.segs)
			accept := func(key uint64) bool { return key%uint64(c.mod) == 0 }
			hs, st, err := coll.Search(q, Options{K: 5, Ef: 15, Optimistic: c.optimistic, Filter: accept, FilteredSearchThreshold: c.threshold})
			if err != nil {
				t.Fatal(err)
			}
			got := filterPaths{st.Exhaustive, st.FilteredWalk, st.Graph, st.ExactFallback}
			if got != c.want {
				t.Errorf("paths %+v, want %+v", got, c.want)
			}
			if len(hs) != 5 {
				t.Fatalf("%d hits, want 5", len(hs))
			}
			for _, h := range hs {
				if !accept(h.Key) {
					t.Errorf("hit %d does not match", h.Key)
				}
			}
			bits := engine.NewBitset(1200)
			for i := 0; i < 1200; i += c.mod {
				bits.Set(engine.ID(i))
			}
			want, _, err := ex.Query(q, engine.Request{K: 5, Filter: bits})
			if err != nil {
				t.Fatal(err)
			}
			r := recallKeys(hs, want)
			if c.exact && r != 1 || r < 0.8 {
				t.Errorf("recall %.2f against the exact top 5 of the matches", r)
			}
		})
	}
	coll, _ := filteredCollection(t, 1)
	for _, o := range []Options{{K: 5, Filter: func(uint64) bool { return true }, FilteredSearchThreshold: 101},
		{K: 5, Filter: func(uint64) bool { return true }, SharedBound: true}} {
		if _, _, err := coll.Search(q, o); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("threshold %d, shared bound %v: %v, want ErrInvalidArgument", o.FilteredSearchThreshold, o.SharedBound, err)
		}
	}
	// A filter that matches nothing answers nothing, without error.
	hs, _, err := coll.Search(q, Options{K: 5, Filter: func(uint64) bool { return false }})
	if err != nil || len(hs) != 0 {
		t.Errorf("empty filter: %d hits, %v", len(hs), err)
	}
}
