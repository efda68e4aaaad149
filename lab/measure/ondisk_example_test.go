package measure_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/scratch"
)

// The cells of E26 (notebook 12), one step each, on a tenth of the
// article's data set: DiskBBQ's IVF swept by visit % and Qdrant's HNSW
// swept by ef, both rescoring from the same vector file. Timings vary;
// recall and reads do not. A cold measurement (E27, notebook 13) passes
// measure.Evict(vf) as Disk's before.
func ExampleSweepVisit() {
	// The data set and its exact top 100 (E26 reads recall@100).
	ds, err := dataset.Generate(dataset.Config{N: 3000, Queries: 20, Seed: 1})
	check(err)
	q, err := measure.Exact(ds, 100, engine.Cosine)
	check(err)

	// DiskBBQ's lists (~384 vectors each, 2-bit codes around each list's centroid).
	iv, err := ivf.Build(ds.Base, ivf.Config{Metric: engine.Cosine, Bits: 2, Seed: 1, Workers: 1})
	check(err)
	// Qdrant's graph, from the float32 vectors, walked with two_bits codes.
	bq, err := quant.TrainBinary(ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
	check(err)
	hn, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, M0: 32, NewNodeDegreeL0: 32, EfConstruction: 100, Seed: 1, Workers: 1})
	check(err)
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	check(hn.AddBatch(keys, ds.Base))
	check(hn.AttachCodes(quant.NewStore(bq)))

	// The originals in a vector file, read by both designs' rescoring.
	dir, err := scratch.New("veclab-example")
	check(err)
	defer dir.Remove()
	path := dir.Join("vectors.vec")
	check(store.WriteMatrixFS(dir.FS, path, ds.Base, engine.Cosine))
	vf, err := store.OpenFS(dir.FS, path, store.Options{})
	check(err)
	defer vf.Close()
	rs, err := rescore.New(vf, engine.Cosine, rescore.Options{})
	check(err)

	// Each index's query-time knob, oversample 1: the 100 best by code rescored.
	ivfPts, err := measure.SweepVisit(iv, []float64{2, 20}, 1, rs, q)
	check(err)
	hnswPts, err := measure.SweepEfDisk(hn, []int{100, 500}, 1, rs, q)
	check(err)
	for _, p := range append(ivfPts, hnswPts...) {
		fmt.Printf("%-9s recall@100 %.3f, %.0f rescoring reads/q\n", p.Label, p.Recall, p.Reads)
	}
	// Output:
	// visit=2%  recall@100 0.796, 100 rescoring reads/q
	// visit=20% recall@100 0.835, 100 rescoring reads/q
	// ef=100    recall@100 0.821, 100 rescoring reads/q
	// ef=500    recall@100 0.817, 100 rescoring reads/q
}
