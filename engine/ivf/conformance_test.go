package ivf

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

// conf is an IVF index under the suite; Reload writes its lists to a file
// and searches a rebuilt copy (same seed, one worker: the same centroids)
// whose lists are read from that file.
type conf struct {
	indextest.Searchable
	t    *testing.T
	cfg  Config
	data *vec.Matrix
	ix   *Index
}

func (c conf) Reload() (indextest.Searchable, error) {
	path := filepath.Join(c.t.TempDir(), "lists.ivf")
	if err := c.ix.WriteLists(path); err != nil {
		return nil, err
	}
	cp, err := Build(c.data, c.cfg)
	if err != nil {
		return nil, err
	}
	if err := cp.UseDiskLists(path, store.Options{}); err != nil {
		return nil, err
	}
	c.t.Cleanup(func() { cp.CloseLists() })
	return indextest.Contract(cp, 4), nil
}

// TestContract runs the conformance suite through engine.Index's Query:
// IVF-Flat (exact distances), spilled OSQ codes (estimated distances,
// unrescored), and hierarchical k-means. With 24 lists over 1,500
// vectors and nprobe 4 the probed lists hold about a sixth of the data;
// the iterative scan keeps a 10 % filter at K results.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  indextest.Options
	}{
		{"flat", Config{Nlist: 24}, indextest.Options{MinRecall: 0.9}},
		{"osq4 spill", Config{Nlist: 24, Bits: 4, Spill: true}, indextest.Options{MinRecall: 0.8, ApproxDistances: true}},
		{"hierarchical", Config{Hierarchical: true, ClusterSize: 64}, indextest.Options{MinRecall: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.RunWith(t, tc.opt, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
				cfg := tc.cfg
				cfg.Metric, cfg.Seed, cfg.Workers = m, 7, 1
				if vs.N == 0 {
					// IVF cannot train on nothing (Build refuses it with
					// ErrEmpty); an index trained elsewhere and never
					// filled is the empty one, and Query must say so.
					if _, err := Build(vs, cfg); !errors.Is(err, engine.ErrEmpty) {
						t.Fatalf("Build of no vectors: %v, want engine.ErrEmpty", err)
					}
					ix, err := Train(indextest.Clustered(200, dim, 4, 1), cfg)
					if err != nil {
						t.Fatal(err)
					}
					return indextest.Contract(ix, 4)
				}
				ix, err := Build(vs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				var _ engine.Index = ix
				return conf{Searchable: indextest.Contract(ix, 4), t: t, cfg: cfg, data: vs, ix: ix}
			})
		})
	}
}
