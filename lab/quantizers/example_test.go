package quantizers_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/quantizers"
)

// A notebook cell trains Lucene's int8 from the catalogue by name.
func ExampleTrain() {
	ds, err := dataset.Generate(dataset.Config{N: 300, Queries: 1, Dim: 16, Seed: 1})
	if err != nil {
		panic(err)
	}
	q, err := quantizers.Train("int8", ds.Base, engine.Cosine, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(quantizers.Names()[:3])
	fmt.Println(quantizers.Describe("int8"))
	fmt.Println(q.CodeSize(), "bytes a vector, against", 4*16)
	// Output:
	// [raw int8 int8-minmax]
	// Lucene int8 (7-bit codes, bounds from the confidence interval), with the per-vector correction
	// 20 bytes a vector, against 64
}
