package flat_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
)

func ExampleIndex_Search() {
	m := vec.NewMatrix(0, 2)
	for _, v := range [][]float32{{1, 0}, {0, 1}, {1, 1}, {-1, 0}} {
		m.Append(v)
	}
	x, err := flat.New(m, flat.Config{Metric: engine.L2})
	if err != nil {
		panic(err)
	}
	res, stats, err := x.Search([]float32{0.9, 0.2}, 2, nil)
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("id %d dist %.2f\n", r.ID, r.Dist)
	}
	fmt.Println("distance computations:", stats.DistComps)
	// Output:
	// id 0 dist 0.05
	// id 2 dist 0.65
	// distance computations: 4
}
