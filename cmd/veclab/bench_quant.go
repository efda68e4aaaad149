package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/quantizers"
)

func init() {
	register(&command{
		name:    "bench quant",
		summary: "recall@10 of raw, int8, int4 and 1/2/4-bit OSQ codes, flat and through HNSW, by oversample with rescoring (E10, E22–E24)",
		run:     runBenchQuant,
	})
}

// runBenchQuant is a front end over lab/bench.Quant: it reads the flags,
// loads the data set and prints the report.
func runBenchQuant(args []string, stdout, stderr io.Writer) error {
	if err := benchQuantMain(args, stdout, stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		return err // main prints "veclab bench quant: " before it
	}
	return nil
}

func benchQuantMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench quant", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := bench.DefaultQuantConfig()
	var n, queries, dim int
	fs.IntVar(&n, "n", dataset.DefaultN, "base vectors")
	fs.IntVar(&queries, "queries", dataset.DefaultQueries, "queries")
	fs.IntVar(&dim, "dim", dataset.DefaultDim, "dimensions")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "data set and training seed")
	fs.IntVar(&cfg.K, "k", cfg.K, "results per query (recall@k)")
	over := fs.String("oversample", "1,1.5,3,5", "oversample factors: gather ⌈o·k⌉ by code distance, rescore with float32, keep k")
	only := fs.String("only", "", "comma-separated quantizers to run (default all: "+strings.Join(quantizers.Names(), ",")+")")
	fs.BoolVar(&cfg.Flat, "flat", true, "flat scan over codes (isolates the quantizer)")
	fs.BoolVar(&cfg.Graph, "hnsw", true, "HNSW built and searched with the codes (int8_hnsw / bbq_hnsw emulation)")
	fs.IntVar(&cfg.M, "m", cfg.M, "HNSW m (Lucene/ES default 16; layer 0 gets 2·m, new nodes 2·m links as Lucene)")
	fs.IntVar(&cfg.EfConstruction, "ef-construction", cfg.EfConstruction, "HNSW ef_construction (Lucene/ES default 100)")
	fs.IntVar(&cfg.NumCandidates, "num-candidates", 0, "HNSW beam; 0 = ES default ⌈1.5·k⌉, raised to the oversampled ⌈o·k⌉")
	fs.IntVar(&cfg.Workers, "workers", 0, "HNSW build goroutines (0 = all cores; 1 = deterministic graph)")
	fs.BoolVar(&cfg.Disk, "disk", false, "rescore from an on-disk vector file (engine/store, pread) instead of RAM")
	fs.BoolVar(&cfg.Cold, "cold", false, "with -disk: evict the file from the page cache before every rescoring call (each reads from the device)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data != "" && !flagSet(fs, "queries") {
		queries = 0 // all of the real set's queries
	}
	if fs.NArg() > 0 {
		return badArg("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.Oversample, err = parseFloats("-oversample", *over); err != nil {
		return err
	}
	cfg.Only = splitList(*only)
	if err := cfg.Validate(); err != nil {
		return err
	}
	if *data == "" && (n < 1 || queries < 1 || dim < 1) {
		// The generator reads 0 as "the default", so reject it here.
		return badArg("-n %d, -queries %d, -dim %d must be ≥ 1", n, queries, dim)
	}
	fmt.Fprintf(stderr, "bench quant: data set and exact truth…\n")
	bd, err := loadBenchData(*data, dataset.Config{N: n, Queries: queries, Dim: dim, Seed: cfg.Seed}, queries, cfg.K, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "data set: %s\n", bd.desc)
	rep, err := bench.Quant(bd.ds, bd.truth, bd.metric, cfg, stderr)
	if err != nil {
		return err
	}
	rep.WriteText(stdout)
	return nil
}
