package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
)

func init() {
	register(&command{
		name:    "bench pq",
		summary: "product quantization (flat ADC scan) and IVF-PQ at M = 8, 16, 32 bytes per vector: recall, QPS, training time, FAISS IndexPQ/IndexIVFPQ peer",
		run:     runBenchPQ,
	})
}

// benchPQFlags are the flags of `veclab bench pq`, a front end over
// lab/bench.PQ.
type benchPQFlags struct {
	ds      dataset.Config
	queries int
	data    string
	base    int // with -data and -n: the first base vectors kept (0: all)
	cfg     bench.PQConfig
}

// parseBenchPQ reads and checks every flag before any work, reporting all
// problems at once with the flag that gave each.
func parseBenchPQ(args []string, stderr io.Writer) (*benchPQFlags, error) {
	fs := flag.NewFlagSet("bench pq", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchPQFlags{cfg: bench.DefaultPQConfig()}
	c := &f.cfg
	generatorFlags(fs, &f.ds, dataset.DefaultQueries, "queries", "data set and index seed")
	mS := fs.String("m", "8,16,32", "sub-spaces (bytes per vector at 8 bits) to sweep")
	fs.IntVar(&c.Bits, "bits", c.Bits, "bits per sub-space code (2^bits centroids)")
	fs.IntVar(&c.Nlist, "nlist", 0, "IVF-PQ cells; 0 = round(√n), -1 = no IVF-PQ")
	nprobeS := fs.String("nprobe", "1,4,16", "IVF-PQ nprobe sweep")
	fs.IntVar(&c.Iters, "iters", c.Iters, "k-means iterations (sub-spaces and cells), both sides")
	fs.IntVar(&c.K, "k", c.K, "results per query (recall@k)")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "untimed warm-up queries before each timed run")
	fs.IntVar(&c.Passes, "passes", c.Passes, "timed passes of every query per search, both sides; the fastest pass is kept")
	peer := fs.String("peer", "", "run a peer on the same data: faiss")
	fs.StringVar(&c.Python, "python", c.Python, "Python interpreter with faiss")
	fs.StringVar(&c.Dir, "dir", "", "working directory for the peer's .fvecs (default: a temporary directory, removed)")
	data := dataFlag(fs) // with -n: the set's first n base vectors, the truth recomputed
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.data = *data
	f.queries = f.ds.Queries
	if f.data != "" && !flagSet(fs, "queries") {
		f.queries = 0
	}
	if f.data != "" && flagSet(fs, "n") {
		f.base = f.ds.N // a real set's first -n vectors, the truth recomputed
	}
	c.Seed = f.ds.Seed
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, badArg("unexpected arguments %q", fs.Args()))
	}
	nerr := len(errs)
	var err error
	if c.M, err = parseInts("-m", *mS); err != nil {
		errs = append(errs, err)
	}
	if c.Nprobes, err = parseInts("-nprobe", *nprobeS); err != nil {
		errs = append(errs, err)
	}
	switch *peer {
	case "faiss":
		c.Faiss = true
	case "":
	default:
		errs = append(errs, badArg("-peer %q: only faiss is a peer of bench pq", *peer))
	}
	if len(errs) == nerr {
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if f.data != "" && flagSet(fs, "n") && f.ds.N < 1 {
		errs = append(errs, badArg("-n %d: want a positive count of the set's base vectors to keep", f.ds.N))
	}
	if f.data == "" {
		if f.ds.Queries < 1 || f.ds.N < 1 {
			errs = append(errs, badArg("-n %d and -queries %d must be positive", f.ds.N, f.ds.Queries))
		} else if err := f.ds.WithDefaults().Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return f, errors.Join(errs...)
}

// runBenchPQ is a front end over lab/bench.PQ: it reads the flags, loads
// the data set and prints the report.
func runBenchPQ(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchPQ(args, stderr)
	if err != nil {
		return err
	}
	if f.cfg.Faiss {
		if err := faiss.Available(f.cfg.Python); err != nil {
			return err
		}
	}
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.queries, f.cfg.K, "")
	if err != nil {
		return err
	}
	label := bd.desc
	if f.base > 0 && f.base < bd.ds.Base.N {
		// Training k-means 2·len(M) times on each side is what costs; the
		// first -n vectors of a real set keep a run within minutes.
		ds := *bd.ds
		b := *ds.Base
		b.N, b.Data = f.base, b.Data[:f.base*b.Stride]
		ds.Base = &b
		ds.Config.N = f.base
		truth, err := dataset.Truth(&ds, max(f.cfg.K, 100), bd.metric, "")
		if err != nil {
			return err
		}
		bd.ds, bd.truth = &ds, truth
		label += fmt.Sprintf("; its first %d base vectors, exact truth recomputed over them", f.base)
	}
	if bd.real == nil {
		label = fmt.Sprintf("generated (lab/dataset: %d clusters, spread %g, seed %d)", f.ds.Clusters, f.ds.WithDefaults().Spread, f.ds.Seed)
	}
	fmt.Fprintf(stdout, "veclab bench pq — truth ready in %v\n", time.Since(t0).Round(time.Millisecond))
	rep, err := bench.PQ(bd.ds, bd.truth, bd.metric, f.cfg, label, stderr)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, rep.String())
	return nil
}
