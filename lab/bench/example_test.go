package bench_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
)

// ExampleIVF measures float32 and 4-bit posting lists at two nprobe
// settings, without the I/O table: what a notebook cell runs, and what
// `veclab bench ivf -bits 0,4 -nprobe 1,5 -visit "" -io-bits 0` prints
// as text. Recall depends only on the seeds; the timings beside it in
// rep.Sweep do not.
func ExampleIVF() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Dim: 32, Clusters: 8, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	truth, err := dataset.Truth(ds, 100, engine.Cosine, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := bench.DefaultIVFConfig()
	cfg.Bits, cfg.Nprobes, cfg.Visits, cfg.IOBits, cfg.Warmup = []int{0, 4}, []int{1, 5}, nil, 0, 2
	rep, err := bench.IVF(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d lists\n", rep.Config.Nlist)
	for _, p := range rep.Sweep {
		fmt.Printf("%s %s: recall@10 %.2f, %.0f lists probed\n", bench.CodesName(p.Bits), p.Setting, p.Recall10, p.Lists)
	}
	// Output:
	// 5 lists
	// float32 nprobe=1: recall@10 0.99, 1 lists probed
	// float32 nprobe=5: recall@10 1.00, 5 lists probed
	// osq-4bit nprobe=1: recall@10 0.99, 1 lists probed
	// osq-4bit nprobe=5: recall@10 1.00, 5 lists probed
}
