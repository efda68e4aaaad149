package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

func init() {
	register(&command{
		name:    "bench segments",
		summary: "the segmented collection: parallel vs single-threaded ingest, 64/16/4/1 segments, sequential vs concurrent vs shared-bound search",
		run:     runBenchSegments,
	})
}

// benchSegmentsFlags are the flags of `veclab bench segments`. The
// measurements are lab/experiment's (E16, E18, E20), so a notebook and this
// command run the same code.
type benchSegmentsFlags struct {
	scale   experiment.Scale
	seed    uint64
	ef      int
	efs     []int
	counts  []int
	shared  int
	writers int
	flush   int
	reps    int
	skip    map[string]bool
	data    string
}

func parseBenchSegments(args []string, stderr io.Writer) (*benchSegmentsFlags, error) {
	fs := flag.NewFlagSet("bench segments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchSegmentsFlags{scale: experiment.Article}
	f.scale.Name = "custom"
	fs.IntVar(&f.scale.N, "n", 200000, "documents")
	fs.IntVar(&f.scale.Dim, "dim", 384, "dimensions")
	fs.IntVar(&f.scale.Clusters, "clusters", 40, "Gaussian clusters of the data set")
	fs.IntVar(&f.scale.Queries, "queries", 100, "timed queries")
	fs.IntVar(&f.scale.K, "k", 100, "results per query (recall@k; the article: 100)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the data set and the graphs")
	fs.IntVar(&f.ef, "ef", 150, "per-segment ef of the segment-count and ingest rows (Elasticsearch's num_candidates default 1.5·k)")
	efs := fs.String("efs", "100,150,200,300,500", "ef sweep of the search-mode comparison")
	counts := fs.String("segments", "64,16,4,1", "segment counts, largest first (each later one a force merge)")
	fs.IntVar(&f.shared, "mode-segments", 16, "segments of the search-mode comparison")
	fs.IntVar(&f.writers, "writers", 0, "parallel writers of the ingest comparison (0: one per core)")
	fs.IntVar(&f.flush, "flush", 0, "shared indexing buffer in documents (0: n/8)")
	fs.IntVar(&f.reps, "reps", 3, "passes over the queries per row")
	skip := fs.String("skip", "", "parts to skip: ingest, counts, modes (comma-separated)")
	fs.StringVar(&f.data, "data", "", "a real data set (a name from `veclab data list`, or a directory) instead of the generated one; -n and -queries cut it")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if f.efs, err = bench.ParsePositiveInts("-efs", *efs); err != nil {
		return nil, err
	}
	if f.counts, err = bench.ParsePositiveInts("-segments", *counts); err != nil {
		return nil, err
	}
	f.skip = map[string]bool{}
	for _, p := range strings.Split(*skip, ",") {
		switch p = strings.TrimSpace(p); p {
		case "":
		case "ingest", "counts", "modes":
			f.skip[p] = true
		default:
			return nil, fmt.Errorf("-skip: unknown part %q (ingest, counts, modes)", p)
		}
	}
	f.scale.Warmup = min(20, f.scale.Queries)
	if err := f.scale.Validate(); err != nil {
		return nil, err
	}
	if f.ef < 1 || f.shared < 1 || f.reps < 1 || f.writers < 0 || f.flush < 0 {
		return nil, fmt.Errorf("-ef, -mode-segments and -reps must be positive, -writers and -flush non-negative")
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
	k := f.scale.K
	fmt.Fprintf(stdout, "bench segments: %s, %d × %d, %d queries, top %d, seed %d; %s\n\n", f.scale.Name, f.scale.N, f.scale.Dim, f.scale.Queries, k, f.seed, env.Machine)

	if !f.skip["ingest"] {
		w := f.writers
		if w == 0 {
			w = max(env.Machine.Cores, 2)
		}
		flush := f.flush
		if flush == 0 {
			flush = max(f.scale.N/8, 1)
		}
		res, err := experiment.E18Measure(env, w, flush, k, f.ef)
		if err != nil {
			return err
		}
		t := table.New(fmt.Sprintf("Ingest: %d parallel writers vs one, a shared buffer of %d documents, each segment's graph built on one goroutine; queries at ef %d", w, flush, f.ef),
			table.Col("index, ingest", ""), table.Col("segments", ""), table.Column{Header: "build", Unit: "s", Prec: 1},
			table.Column{Header: "ingest", Unit: "docs/s", Prec: -1}, table.Column{Header: fmt.Sprintf("recall@%d", k), Prec: 4},
			table.Column{Header: "QPS", Prec: 1}, table.Column{Header: "p50", Unit: "ms", Prec: 2}, table.Column{Header: "distances/query", Prec: 0})
		for _, x := range res {
			t.AddValues(x.Mode, x.Segments, x.Seconds, x.DocsPerS, x.Search.Recall, x.Search.QPS, x.Search.P50ms, x.Search.DistComps)
		}
		for i := 0; i+1 < len(res); i += 2 {
			p, s := res[i], res[i+1]
			t.Note("%s ratio parallel/single: ingest %.2f×, segments %.2f×, QPS %.2f×, distances %.2f×", p.Index, p.DocsPerS/s.DocsPerS,
				float64(p.Segments)/float64(s.Segments), p.Search.QPS/s.Search.QPS, p.Search.DistComps/s.Search.DistComps)
		}
		t.Note("IVF segments probe %.0f %% of their lists", 100*experiment.E18Visit)
		fmt.Fprintln(stdout, t.String())
	}
	if !f.skip["counts"] {
		ms, err := experiment.E16Measure(env, f.counts, k, f.ef)
		if err != nil {
			return err
		}
		t := table.New(fmt.Sprintf("Segment count at ef %d (the first row built by refreshes, the others force-merged from it)", f.ef),
			table.Col("segments", ""), table.Column{Header: fmt.Sprintf("recall@%d", k), Prec: 4}, table.Column{Header: "QPS", Prec: 1},
			table.Column{Header: "p50", Unit: "ms", Prec: 2}, table.Column{Header: "distances/query", Prec: 0}, table.Column{Header: "QPS vs first", Unit: "×", Prec: 2})
		for _, m := range ms {
			t.AddValues(m.Segments, m.Recall, m.QPS, m.P50ms, m.DistComps, m.QPS/ms[0].QPS)
		}
		t.Note("article (E16): 128 segments recall@100 0.9745, 35.8 QPS; force-merged to 66: 0.9531, 53.3 QPS")
		fmt.Fprintln(stdout, t.String())
	}
	if !f.skip["modes"] {
		res, err := experiment.E20Measure(env, f.shared, f.efs, k)
		if err != nil {
			return err
		}
		t := table.New(fmt.Sprintf("Search modes over %d segments (%d search workers)", f.shared, env.Machine.Cores),
			table.Col("ef", ""), table.Col("mode", ""), table.Column{Header: fmt.Sprintf("recall@%d", k), Prec: 4},
			table.Column{Header: "QPS", Prec: 1}, table.Column{Header: "p50", Unit: "ms", Prec: 3},
			table.Column{Header: "distances/query", Prec: 0}, table.Column{Header: "QPS vs sequential", Unit: "×", Prec: 2})
		for i := range f.efs {
			seq := res.Sequential[i]
			for _, m := range []experiment.SegmentMeasurement{seq, res.Concurrent[i], res.Shared[i], res.SharedConcurrent[i]} {
				t.AddValues(m.Search.Ef, m.Label, m.Recall, m.QPS, m.P50ms, m.DistComps, m.QPS/seq.QPS)
			}
		}
		fmt.Fprintln(stdout, t.String())
		pt := table.New(fmt.Sprintf("Shared bound vs none at comparable recall (±%.2f)", experiment.E20RecallTolerance),
			table.Col("shared bound", ""), table.Column{Header: "recall", Prec: 4}, table.Col("without", ""), table.Column{Header: "recall", Prec: 4},
			table.Column{Header: "distances saved", Unit: "%", Prec: 1})
		for _, p := range experiment.E20Pairs(res) {
			pt.AddValues(p.A.Label, p.A.Recall, p.B.Label, p.B.Recall, 100*(1-1/p.Speedup))
		}
		fmt.Fprintln(stdout, pt.String())
	}
	return nil
}
