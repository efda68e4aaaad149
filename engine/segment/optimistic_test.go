package segment

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vfs"
)

// TestOptimisticK pins Lucene 10.3+'s per-segment k
// (AbstractKnnVectorQuery.perLeafTopKCalculation) on the segments the
// article's load leaves: nine refreshes of 3,039 documents and a last one
// of 2,649 (30,000 in all). By hand, for k = 15 and p = 3039/30000:
// k·p = 1.5195, k·p·(1−p) = 1.36557, 16·√1.36557 = 18.697, sum 20.217 → 20;
// p = 2649/30000: 1.3245 + 16·√1.20755 = 1.3245 + 17.582 = 18.907 → 18.
// For k = 30 (bbq_hnsw's k' = ⌈10·3⌉): 3.039 + 16·√2.7312 = 29.481 → 29
// and 2.649 + 16·√2.4151 = 27.514 → 27. One segment holding everything
// (p = 1) gets k itself; a share never drops below 1.
func TestOptimisticK(t *testing.T) {
	var snap []*segment
	for range 9 {
		snap = append(snap, &segment{n: 3039})
	}
	snap = append(snap, &segment{n: 2649})
	for _, c := range []struct{ k, big, last int }{{15, 20, 18}, {30, 29, 27}} {
		got := optimisticK(snap, c.k)
		for i, g := range got {
			want := c.big
			if i == len(got)-1 {
				want = c.last
			}
			if g != want {
				t.Errorf("k=%d, segment %d of %d docs: k_leaf %d, want %d", c.k, i, snap[i].n, g, want)
			}
		}
	}
	if got := optimisticK([]*segment{{n: 100}}, 15); got[0] != 15 {
		t.Errorf("one segment: k_leaf %d, want 15", got[0])
	}
	if got := optimisticK([]*segment{{n: 1}, {n: 1 << 20}}, 1); got[0] != 1 {
		t.Errorf("a tiny segment: k_leaf %d, want 1", got[0])
	}
}

// TestReentry works Lucene's re-entry rule by hand on three segments'
// first-pass hits (distances, nearest first):
//
//	A: 1, 4        (its k_leaf was 2)
//	B: 2.25, 25, 36, 49
//	C: 0.25, 0.36
//
// kk = 2: the merged top two are 0.25, 0.36 (both C's); only C's worst
// (0.36) is within them, so only C is re-entered. kk = 4: top four end at
// 2.25; A's worst (4) and B's (49) are beyond, C is in. kk = 5: the fifth
// is A's 4 itself, and a tie re-enters (Lucene: score ≥ minTopKScore), so
// A and C are. Only one segment with hits, or none at all, re-enters
// nothing.
func TestReentry(t *testing.T) {
	res := func(ds ...float32) []engine.Result {
		out := make([]engine.Result, len(ds))
		for i, d := range ds {
			out[i] = engine.Result{ID: engine.ID(10 + i), Dist: d}
		}
		return out
	}
	out := []segResult{{res: res(1, 4)}, {res: res(2.25, 25, 36, 49)}, {res: res(0.25, 0.36)}}
	for _, c := range []struct {
		kk   int
		want []bool // re-entered
	}{{2, []bool{false, false, true}}, {4, []bool{false, false, true}}, {5, []bool{true, false, true}}} {
		seeds := reentry(out, c.kk)
		if seeds == nil {
			t.Fatalf("kk=%d: no re-entry", c.kk)
		}
		for i, w := range c.want {
			if (seeds[i] != nil) != w {
				t.Errorf("kk=%d: segment %d re-entered %v, want %v", c.kk, i, seeds[i] != nil, w)
			}
		}
		if want := []engine.ID{10, 11}; !slices.Equal(seeds[2], want) {
			t.Errorf("kk=%d: C's seeds %v, want its first-pass hits %v", c.kk, seeds[2], want)
		}
	}
	if s := reentry([]segResult{{res: res(1)}, {}}, 1); s == nil || s[0] == nil || s[1] != nil {
		t.Errorf("one segment with hits of two: %v, want it re-entered", s)
	}
	if s := reentry([]segResult{{res: res(1)}}, 1); s != nil {
		t.Errorf("one segment: %v, want no re-entry", s)
	}
	if s := reentry([]segResult{{}, {}}, 1); s != nil {
		t.Errorf("no hits: %v, want no re-entry", s)
	}
}

// TestOptimisticSearch runs the optimistic collection on a collection of
// three segments on a line (query at 0, squared L2):
//
//	A: keys 0–3 at 1, 2, 3, 4      → 1, 4, 9, 16
//	B: keys 4–7 at 1.5, 5, 6, 7    → 2.25, 25, 36, 49
//	C: keys 8–9 at 0.5, 0.6        → 0.25, 0.36
//
// K = 2, ef = 3: the shares are 4/10 (k_leaf 14) and 2/10 (11), so the
// first pass returns every document; the merged top two are C's, C alone
// is re-entered (seeded, for ef = 3) and the answer is keys 8, 9 at 0.25
// and 0.36. Sequential and concurrent give the same hits; SharedBound
// with Optimistic is refused.
func TestOptimisticSearch(t *testing.T) {
	cfg := Config{FS: vfs.NewMem(), Dir: "coll", Dim: 2, Metric: engine.L2, Graph: hnsw.Config{M: 4, EfConstruction: 16},
		BuildWorkers: 1, Seed: 7, FlushDocs: 1 << 30}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	xs := [][]float32{{1, 2, 3, 4}, {1.5, 5, 6, 7}, {0.5, 0.6}}
	key := uint64(0)
	for _, seg := range xs {
		var ds []Doc
		for _, x := range seg {
			ds = append(ds, Doc{Key: key, Vector: []float32{x, 0}})
			key++
		}
		if err := c.Add(ds); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.Segments()); n != 3 {
		t.Fatalf("%d segments, want 3", n)
	}
	q := []float32{0, 0}
	for _, mode := range []Mode{Sequential, Concurrent} {
		hs, st, err := c.Search(q, Options{K: 2, Ef: 3, Optimistic: true, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := keys(hs); !slices.Equal(got, []uint64{8, 9}) || hs[0].Dist != 0.25 || hs[1].Dist != float32(0.6)*float32(0.6) {
			t.Fatalf("mode %v: hits %v %v, want keys [8 9] at 0.25, 0.36", mode, got, hs)
		}
		if st.Segments != 3 {
			t.Fatalf("mode %v: %d segments searched, want 3", mode, st.Segments)
		}
	}
	// The re-entry is visible in the work: C is searched twice.
	_, once, _ := c.Search(q, Options{K: 2, Ef: 3})
	_, twice, _ := c.Search(q, Options{K: 2, Ef: 3, Optimistic: true})
	if twice.DistComps <= once.DistComps {
		t.Errorf("optimistic search: %d distances, plain %d; want more (C re-entered)", twice.DistComps, once.DistComps)
	}
	if _, _, err := c.Search(q, Options{K: 2, Optimistic: true, SharedBound: true}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("Optimistic with SharedBound: %v, want ErrInvalidArgument", err)
	}
}
