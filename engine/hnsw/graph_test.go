package hnsw

import (
	"testing"

	"github.com/veclab/veclab/engine"
)

// checkGraph verifies the structural invariants the package doc promises.
func checkGraph(t *testing.T, ix *Index) {
	t.Helper()
	n := ix.Len()
	for id := engine.ID(0); int(id) < n; id++ {
		for l := 0; l <= ix.Level(id); l++ {
			nb := ix.Neighbors(l, id)
			capacity := ix.M()
			if l == 0 {
				capacity = ix.M0()
			}
			if len(nb) > capacity {
				t.Fatalf("node %d layer %d: %d links > %d", id, l, len(nb), capacity)
			}
			seen := map[engine.ID]bool{}
			for _, x := range nb {
				if x == id || seen[x] || int(x) >= n || ix.Level(x) < l {
					t.Fatalf("node %d layer %d: bad link %d in %v", id, l, x, nb)
				}
				seen[x] = true
			}
		}
	}
	if n > 0 && ix.Level(ix.EntryPoint()) != ix.MaxLevel() {
		t.Fatal("entry point not on the top layer")
	}
}

func TestGraphPolicies(t *testing.T) {
	const n, dim = 1500, 16
	for _, tc := range []struct {
		name     string
		cfg      Config
		fullFrac float64 // minimum share of layer-0 lists at capacity
		maxFull  float64 // maximum share
	}{
		// keepPruned and 2·M links for a new node keep layer-0 lists full.
		{"pgvector", PgvectorConfig(dim, engine.Cosine, 8, 32), 0.95, 1},
		// hnswlib's pruned lists vary in length.
		{"hnswlib", HnswlibConfig(dim, engine.Cosine, 8, 32), 0, 0.5},
		// Simple keeps the nearest: lists fill once reverse links arrive.
		{"simple", Config{Dim: dim, M: 8, EfConstruction: 32, Selection: Simple}, 0.1, 0.9},
	} {
		for _, workers := range []int{1, 2} {
			cfg := tc.cfg
			cfg.Workers = workers
			ix, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.AddBatch(seqKeys(n), clustered(n, dim, 6, 0.5, 31)); err != nil {
				t.Fatal(err)
			}
			checkGraph(t, ix)
			full := 0
			for id := engine.ID(0); id < n; id++ {
				if ix.Degree(0, id) == ix.M0() {
					full++
				}
			}
			frac := float64(full) / n
			t.Logf("%s workers=%d: %.2f of layer-0 lists full", tc.name, workers, frac)
			if frac < tc.fullFrac || frac > tc.maxFull {
				t.Errorf("%s workers=%d: %.2f of layer-0 lists at capacity, want %.2f…%.2f", tc.name, workers, frac, tc.fullFrac, tc.maxFull)
			}
		}
	}
}
