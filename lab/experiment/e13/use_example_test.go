package e13_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/lab/experiment"
)

// Notebook 07 builds its HNSW graph with Qdrant's two_bits codes in its
// own cells, then hands it to E13–E15's bookkeeping, which measures that
// graph instead of building a second one.
func Example_useHNSWCodes() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Close()
	ds, err := env.Dataset()
	if err != nil {
		fmt.Println(err)
		return
	}
	twoBits, err := quant.TrainBinary(ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
	if err != nil {
		fmt.Println(err)
		return
	}
	graph, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, M0: 32, NewNodeDegreeL0: 32, EfConstruction: 100, Seed: 1, Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	keys := make([]uint64, ds.Base.N) // row i under key i
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := graph.AddBatch(keys, ds.Base); err != nil {
		fmt.Println(err)
		return
	}
	if err := graph.AttachCodes(quant.NewStore(twoBits)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(experiment.UseHNSWCodes(env, graph, 2))
	hn, err := experiment.HNSWCodes(env, 2)
	fmt.Println(hn.Index == graph, err)
	// Output:
	// <nil>
	// true <nil>
}
