package hnsw

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// conf adapts an Index to the conformance suite (keys = row numbers, so
// dense ids are rows).
type conf struct{ ix *Index }

func (c conf) Len() int { return c.ix.Len() }
func (c conf) Search(q []float32, k int, allow engine.Filter) ([]engine.Result, error) {
	res, _, err := c.ix.Query(q, engine.Request{K: k, Breadth: 100, Filter: allow})
	return res, err
}
func (c conf) Reload() (indextest.Searchable, error) {
	m := vfs.NewMem()
	if err := c.ix.Save(m, "ix"); err != nil {
		return nil, err
	}
	ld, err := Load(m, "ix")
	if err != nil {
		return nil, err
	}
	return conf{ld}, nil
}

func TestConformance(t *testing.T) {
	for _, name := range []string{"hnswlib", "pgvector"} {
		t.Run(name, func(t *testing.T) {
			indextest.Run(t, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
				cfg := HnswlibConfig(dim, m, 12, 64)
				if name == "pgvector" {
					cfg = PgvectorConfig(dim, m, 12, 64)
				}
				// Single-threaded: the graph, and so the recall the suite
				// checks, is the same on every run (a parallel build under
				// -race interleaves differently and moved recall across the
				// floor). Parallel builds are covered by their own tests.
				cfg.Workers = 1
				ix, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := ix.AddBatch(seqKeys(vs.N), vs); err != nil {
					t.Fatal(err)
				}
				return conf{ix}
			})
		})
	}
}

// TestContract runs the suite through engine.Index's Query, with the
// check that a shared bound prunes.
func TestContract(t *testing.T) {
	indextest.RunWith(t, indextest.Options{Bound: true}, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
		cfg := HnswlibConfig(dim, m, 12, 64)
		cfg.Workers = 1
		ix, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.AddBatch(seqKeys(vs.N), vs); err != nil {
			t.Fatal(err)
		}
		var _ engine.Index = ix
		return indextest.Contract(ix, 100)
	})
}
