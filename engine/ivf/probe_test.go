package ivf

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestProbeOrderAndList: ProbeOrder names the lists a search scans (their
// sizes add up to the search's Scanned, and every result is in one of
// them), nearest centroid first; List holds each vector exactly once
// without spill; bad arguments are errors.
func TestProbeOrderAndList(t *testing.T) {
	x, qs := clustered(2000, 10, 16, 8, 3)
	for _, metric := range []engine.Metric{engine.L2, engine.Cosine, engine.Dot} {
		ix, err := Build(x, Config{Nlist: 20, Metric: metric, Seed: 3, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, x.N)
		sizes := ix.ListSizes()
		for j := 0; j < ix.Nlist(); j++ {
			ids, err := ix.List(j)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != sizes[j] {
				t.Fatalf("%v: list %d holds %d ids, ListSizes says %d", metric, j, len(ids), sizes[j])
			}
			for _, id := range ids {
				seen[id]++
			}
		}
		if slices.ContainsFunc(seen, func(c int) bool { return c != 1 }) {
			t.Fatalf("%v: a vector is not in exactly one list", metric)
		}
		for qi := 0; qi < qs.N; qi++ {
			q := qs.Row(qi)
			for _, n := range []int{1, 3, 20, 50} {
				order, err := ix.ProbeOrder(q, n)
				if err != nil {
					t.Fatal(err)
				}
				if len(order) != min(n, ix.Nlist()) {
					t.Fatalf("%v: %d lists for n = %d", metric, len(order), n)
				}
				res, st, err := ix.Search(q, 5, n)
				if err != nil {
					t.Fatal(err)
				}
				scanned, probed := 0, map[engine.ID]bool{}
				for _, j := range order {
					scanned += sizes[j]
					ids, _ := ix.List(j)
					for _, id := range ids {
						probed[id] = true
					}
				}
				if scanned != st.Scanned {
					t.Errorf("%v, nprobe %d: the probed lists hold %d, the search scanned %d", metric, n, scanned, st.Scanned)
				}
				for _, r := range res {
					if !probed[r.ID] {
						t.Errorf("%v, nprobe %d: result %d is in no probed list", metric, n, r.ID)
					}
				}
			}
		}
	}
	ix, err := Build(x, Config{Nlist: 20, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"n 0", func() error { _, err := ix.ProbeOrder(qs.Row(0), 0); return err }()},
		{"short query", func() error { _, err := ix.ProbeOrder([]float32{1}, 1); return err }()},
		{"list -1", func() error { _, err := ix.List(-1); return err }()},
		{"list Nlist", func() error { _, err := ix.List(20); return err }()},
	} {
		if tc.err == nil || !(errors.Is(tc.err, engine.ErrInvalidArgument) || errors.Is(tc.err, engine.ErrDimension)) {
			t.Errorf("%s: error %v", tc.name, tc.err)
		}
	}
}
