package e26_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e26"
)

// Notebook 12: DiskBBQ's IVF against HNSW over the same 2-bit codes
// (E26), on local disk and on simulated devices.
func ExampleSweeps() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	nq := experiment.SimulatedQueries(env.Scale)
	iv, err := experiment.IVFCodes(env, 2)
	check(err)
	fmt.Println(iv.Nlist())
	ivfPts, hnswPts, err := e26.Sweeps(env, "local", 1, e26.Visit, e26.Ef, env.Scale.Queries)
	check(err)
	fmt.Println(e26.Table(env, "local", 1, ivfPts, hnswPts))
	fmt.Println(e26.Chart("E26 local (lab)", ivfPts, hnswPts).Err())
	a, b, err := e26.Sweeps(env, "gp3", 1, []float64{5}, []int{200}, nq)
	check(err)
	runs := []e26.StorageRun{{Storage: "local", IVF: ivfPts, HNSW: hnswPts}, {Storage: "gp3", IVF: a, HNSW: b}}
	byStorage, storageChart := e26.ByStorage(runs)
	fmt.Println(byStorage, storageChart.Err())
	o3IVF, _, err := e26.Sweeps(env, "local", 3, e26.Visit, e26.Ef, env.Scale.Queries)
	check(err)
	centring, err := e26.Centring(env, 5)
	check(err)
	fmt.Println(centring)
	// The rescoring budget: one point per oversample (the notebook measures
	// them with measure.Disk on a gp3-modelled vector file).
	bi, bh, err := e26.Sweeps(env, "gp3", 3, []float64{3}, []int{300}, nq)
	check(err)
	bud := &e26.Budget{Storage: "gp3", Queries: nq, IVF: bi, HNSW: bh}
	fmt.Println(bud.Table())
	ceiling, err := e26.Ceiling(env, e26.ArticleDim)
	check(err)
	fmt.Println(e26.Verdicts(env, e26.Results{LocalIVF: ivfPts, LocalHNSW: hnswPts, Over3IVF: o3IVF,
		Net: "gp3", NetIVF: a, NetHNSW: b, Budget: bud, Ceiling: ceiling}))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
