package ivfpq_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/ivfpq"
	"github.com/veclab/veclab/engine/quant"
)

// IVFADC: 16 cells, residuals coded in 8 bytes (8 sub-spaces of 4
// dimensions, 256 centroids each), 4 cells probed per query.
func ExampleBuild() {
	data := indextest.Clustered(2000, 32, 8, 1)
	ix, err := ivfpq.Build(data, ivfpq.Config{Nlist: 16, Nprobe: 4, PQ: quant.PQConfig{M: 8}, Metric: engine.L2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ix.Len(), "vectors,", ix.BytesPerVector(), "bytes each (code and id)")
	res, _, _ := ix.Query(data.Row(7), engine.Request{K: 3})
	fmt.Println(res[0].ID) // a vector's nearest code is its own

	_, err = ivfpq.Build(data, ivfpq.Config{Nlist: 16, PQ: quant.PQConfig{M: 5}})
	fmt.Println(err)
	// Output:
	// 2000 vectors, 12 bytes each (code and id)
	// 7
	// ivfpq: config: [quant: product quantizer config: [M = 5 sub-spaces must divide the dimension 32 (divisors near it: 4, 8)]]: engine: invalid argument
}
