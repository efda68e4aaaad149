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

// Originals stored as bfloat16 take half the bytes of float32 ones; the
// rescored distance is to the rounded vector.
func ExampleNewBFloat16Slab() {
	m := vec.NewMatrix(2, 768)
	m.Row(0)[0], m.Row(1)[0] = 1, 1.00390625 // 1 + 2⁻⁸ rounds to 1 in bfloat16
	s, _ := rescore.NewBFloat16Slab(m)
	r, _ := rescore.New(s, engine.L2, rescore.Options{})
	q := make([]float32, 768)
	top, st, _ := r.Rescore(nil, q, []engine.Result{{ID: 0}, {ID: 1}}, 2)
	fmt.Println(s.Bytes()/s.Len(), top, st.IO.Bytes)
	// Output: 1536 [{0 1} {1 1}] 3072
}
