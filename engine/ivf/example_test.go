package ivf_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
)

func Example() {
	// Two tight groups of 2-d points.
	m := vec.NewMatrix(0, 2)
	for i := 0; i < 50; i++ {
		f := float32(i) / 1000
		m.Append([]float32{1 + f, f})
		m.Append([]float32{-1 - f, 5 + f})
	}
	// 2-bit codes per list, rescored with the full vectors kept in RAM.
	ix, err := ivf.Build(m, ivf.Config{Nlist: 2, Metric: engine.L2, Bits: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	rs, _ := rescore.New(rescore.NewSlab(m), engine.L2, rescore.Options{})
	res, st, err := ix.SearchWith([]float32{1, 0}, ivf.SearchOptions{K: 1, Nprobe: 1, Oversample: 3, Rescorer: rs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res[0].ID, st.ListsProbed, st.Scanned, st.Candidates)
	// Output: 0 1 50 3
}
