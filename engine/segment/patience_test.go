package segment

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vfs"
)

// TestPatienceSearch checks that Options.Patience reaches every walk of
// a search over several segments (Elasticsearch 9.3+'s default early
// exit, engine.Request.Patience): with a wide beam the optimistic
// collection, with and without a filter, scores fewer vectors than
// without it and still returns K hits; with the shared bound it is
// refused.
func TestPatienceSearch(t *testing.T) {
	const dim, perSeg, segs, k = 16, 2000, 3, 10
	cfg := Config{FS: vfs.NewMem(), Dir: "coll", Dim: dim, Metric: engine.L2, Graph: hnsw.Config{M: 8, EfConstruction: 64},
		BuildWorkers: 1, Seed: 7, FlushDocs: 1 << 30}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	key := uint64(0)
	for range segs {
		ds := make([]Doc, perSeg)
		for i := range ds {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			ds[i] = Doc{Key: key, Vector: v}
			key++
		}
		if err := c.Add(ds); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	even := func(key uint64) bool { return key%2 == 0 }
	// The filtered beam is narrower so that each segment's share is
	// walked, not scanned (ln(2000)·78 < 1000 accepted).
	for _, f := range []struct {
		name string
		fn   func(uint64) bool
		ef   int
	}{{"unfiltered", nil, 200}, {"filtered", even, 60}} {
		var plain, patient int
		for i := 0; i < 20; i++ {
			q := make([]float32, dim)
			for j := range q {
				q[j] = float32(rng.NormFloat64())
			}
			o := Options{K: k, Ef: f.ef, Optimistic: true, Filter: f.fn}
			_, st, err := c.Search(q, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Patience = true
			hs, pst, err := c.Search(q, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != k {
				t.Fatalf("%s: %d patient hits, want %d", f.name, len(hs), k)
			}
			plain += st.DistComps
			patient += pst.DistComps
		}
		t.Logf("%s: %d distances without patience, %d with", f.name, plain, patient)
		if patient >= plain {
			t.Errorf("%s: patience scored %d, without %d; want fewer", f.name, patient, plain)
		}
	}
	if _, _, err := c.Search(make([]float32, dim), Options{K: k, Patience: true, SharedBound: true}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("Patience with SharedBound: %v, want ErrInvalidArgument", err)
	}
}
