package rescore_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
)

func Example() {
	m := vec.NewMatrix(3, 2)
	copy(m.Data, []float32{0, 0, 5, 5, 1, 1})
	r, _ := rescore.New(rescore.NewSlab(m), engine.L2, rescore.Options{})
	// Candidates from an approximate search, with approximate distances.
	cands := []engine.Result{{ID: 1, Dist: 0.1}, {ID: 2, Dist: 0.5}}
	top, st, _ := r.Rescore(nil, []float32{1, 1}, cands, 1)
	fmt.Println(top, st.Candidates)
	// Output: [{2 0}] 2
}
