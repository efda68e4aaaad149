package e27_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e27"
)

// Notebook 13: what each design keeps in RAM (E27), both on a simulated
// device, and the disk-resident HNSW's cost model.
func ExampleMeasure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	iv, err := experiment.IVFCodes(env, 2)
	check(err)
	hn, err := experiment.HNSWCodes(env, 2)
	check(err)
	mem, err := e27.MemoryBudget(iv, hn.Index, 1)
	check(err)
	fmt.Println(mem.Table)
	ps, err := e27.Measure(env, 5, 100, 3, "gp3")
	check(err)
	fmt.Println(e27.Table(env, 5, 100, 3, ps, mem.IVFResident, mem.HNSWCodes+mem.HNSWLinks))
	model, err := e27.DiskHNSWModel(env, hn.Index, ps[len(ps)-1], []int{100, 200}, 3, "gp3", 20)
	check(err)
	fmt.Println(model.Table(), model.Chart("gp3").Err())
	fmt.Println(e27.Verdicts(env, ps, iv.Nlist(), model))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
