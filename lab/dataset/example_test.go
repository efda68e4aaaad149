package dataset_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
)

func ExampleGenerate() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 5, Dim: 16, Clusters: 8, Seed: 1})
	if err != nil {
		panic(err)
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "") // "" = no cache
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.Config)
	fmt.Println(ds.Base.N, "×", ds.Base.Dim, "base;", ds.Queries.N, "queries;", len(truth.At(0, 10)), "neighbours each")
	// Output:
	// n=2000 queries=5 dim=16 clusters=8 spread=1 seed=1
	// 2000 × 16 base; 5 queries; 10 neighbours each
}
