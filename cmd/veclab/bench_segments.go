package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/segbench"
)

func init() {
	register(&command{
		name:    "bench segments",
		summary: "the segmented collection: parallel vs single-threaded ingest, 64/16/4/1 segments, sequential vs concurrent vs shared-bound search",
		run:     runBenchSegments,
	})
}

// benchSegmentsFlags are the flags of `veclab bench segments`, a front end
// over lab/experiment/segbench.Run (the measurements of E16, E18 and E20),
// so a notebook and this command run the same code.
type benchSegmentsFlags struct {
	scale experiment.Scale
	seed  uint64
	cfg   segbench.Config
	data  string
}

func parseBenchSegments(args []string, stderr io.Writer) (*benchSegmentsFlags, error) {
	fs := flag.NewFlagSet("bench segments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchSegmentsFlags{scale: experiment.Article, cfg: segbench.DefaultConfig()}
	c := &f.cfg
	f.scale.Name = "custom"
	fs.IntVar(&f.scale.N, "n", 200000, "documents")
	fs.IntVar(&f.scale.Dim, "dim", 384, "dimensions")
	fs.IntVar(&f.scale.Clusters, "clusters", 40, "Gaussian clusters of the data set")
	fs.IntVar(&f.scale.Queries, "queries", 100, "timed queries")
	fs.IntVar(&f.scale.K, "k", c.K, "results per query (recall@k; the article: 100)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the data set and the graphs")
	fs.IntVar(&c.Ef, "ef", c.Ef, "per-segment ef of the segment-count and ingest rows (Elasticsearch's num_candidates default 1.5·k)")
	efs := fs.String("efs", "100,150,200,300,500", "ef sweep of the search-mode comparison")
	counts := fs.String("segments", "64,16,4,1", "segment counts, largest first (each later one a force merge)")
	fs.IntVar(&c.ModeSegments, "mode-segments", c.ModeSegments, "segments of the search-mode comparison")
	fs.IntVar(&c.Writers, "writers", 0, "parallel writers of the ingest comparison (0: one per core)")
	fs.IntVar(&c.Flush, "flush", 0, "shared indexing buffer in documents (0: n/8)")
	skip := fs.String("skip", "", "parts to skip: ingest, counts, modes (comma-separated)")
	fs.StringVar(&f.data, "data", "", "a real data set (a name from `veclab data list`, or a directory) instead of the generated one; -n and -queries cut it")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, badArg("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.Efs, err = parsePositiveInts("-efs", *efs); err != nil {
		return nil, err
	}
	if c.Counts, err = parsePositiveInts("-segments", *counts); err != nil {
		return nil, err
	}
	for _, p := range splitList(*skip) {
		switch p {
		case "ingest":
			c.SkipIngest = true
		case "counts":
			c.SkipCounts = true
		case "modes":
			c.SkipModes = true
		default:
			return nil, badArg("-skip: unknown part %q (ingest, counts, modes)", p)
		}
	}
	f.scale.Warmup = min(20, f.scale.Queries)
	if err := f.scale.Validate(); err != nil {
		return nil, err
	}
	if c.Ef < 1 || c.ModeSegments < 1 || c.Writers < 0 || c.Flush < 0 {
		return nil, badArg("-ef %d and -mode-segments %d must be positive, -writers %d and -flush %d non-negative",
			c.Ef, c.ModeSegments, c.Writers, c.Flush)
	}
	return f, nil
}

func runBenchSegments(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchSegments(args, stderr)
	if err != nil {
		return err
	}
	env, err := experiment.NewEnv(f.scale, f.seed)
	if err != nil {
		return err
	}
	env.Log = stderr
	env.Workers = env.Machine.Cores
	if f.data != "" {
		if err := env.UseData(f.data, ""); err != nil {
			return err
		}
		f.scale = env.Scale
	}
	f.cfg.K = f.scale.K
	fmt.Fprintf(stdout, "bench segments: %s, %d × %d, %d queries, top %d, seed %d; %s\n\n", f.scale.Name, f.scale.N, f.scale.Dim, f.scale.Queries, f.cfg.K, f.seed, env.Machine)
	rep, err := segbench.Run(env, f.cfg)
	if err != nil {
		return err
	}
	for _, t := range rep.Tables() {
		fmt.Fprintln(stdout, t.String())
	}
	return nil
}
