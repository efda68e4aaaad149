package e13

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/lab/experiment"
)

// TestUseHNSWCodes: a graph built in a notebook's cells, handed over with
// experiment.UseHNSWCodes, is the index E13–E15's bookkeeping gets from
// experiment.HNSWCodes (no second build); an index that is not one over the data set with codes
// attached is refused with the reason.
func TestUseHNSWCodes(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ds, err := env.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	build := func(keyOf func(i int) uint64, attach bool) *hnsw.Index {
		ix, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, M0: 32, NewNodeDegreeL0: 32, EfConstruction: 100, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, ds.Base.N)
		for i := range keys {
			keys[i] = keyOf(i)
		}
		if err := ix.AddBatch(keys, ds.Base); err != nil {
			t.Fatal(err)
		}
		if attach {
			q, err := quant.TrainBinary(ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.AttachCodes(quant.NewStore(q)); err != nil {
				t.Fatal(err)
			}
		}
		return ix
	}
	row := func(i int) uint64 { return uint64(i) }
	graph := build(row, true)
	for _, tc := range []struct {
		name string
		ix   *hnsw.Index
		bits int
	}{
		{"no index", nil, 2},
		{"no codes", build(row, false), 2},
		{"keys not the rows", build(func(i int) uint64 { return uint64(ds.Base.N - 1 - i) }, true), 2},
		{"3 bits", graph, 3},
	} {
		if err := experiment.UseHNSWCodes(env, tc.ix, tc.bits); !errors.Is(err, experiment.ErrBadArgument) {
			t.Errorf("%s: %v, want ErrBadArgument", tc.name, err)
		}
	}
	if err := experiment.UseHNSWCodes(env, graph, 2); err != nil {
		t.Fatal(err)
	}
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil || hn.Index != graph || hn.Codes != graph.Codes() {
		t.Fatalf("HNSWCodes after UseHNSWCodes: %v, %v; want the graph handed over", hn, err)
	}
}
