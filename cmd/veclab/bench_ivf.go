package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
)

func init() {
	register(&command{
		name:    "bench ivf",
		summary: "IVF recall@10/@100 vs QPS by nprobe and visit %, codes of 1/2/4/8 bits, rescoring from disk (warm/cold, sequential/concurrent), FAISS peer",
		run:     runBenchIVF,
	})
}

// benchIVFFlags are the flags of `veclab bench ivf`, a front end over
// lab/bench.IVF.
type benchIVFFlags struct {
	ds      dataset.Config
	queries int // the queries to keep (0: all of a real set's)
	data    string
	cfg     bench.IVFConfig
}

// parseBenchIVF reads and checks every flag before any work: a bad list
// or value is reported with the flag that gave it, all at once.
func parseBenchIVF(args []string, stderr io.Writer) (*benchIVFFlags, error) {
	fs := flag.NewFlagSet("bench ivf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchIVFFlags{cfg: bench.DefaultIVFConfig()}
	c := &f.cfg
	generatorFlags(fs, &f.ds, dataset.DefaultQueries, "queries", "data set and index seed")
	fs.IntVar(&c.Nlist, "nlist", 0, "IVF lists; 0 = n/384 (DiskBBQ cluster_size)")
	fs.IntVar(&c.Iters, "iters", c.Iters, "k-means iterations, both sides (FAISS IndexIVF's default niter is 10)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "build goroutines (1 = single-threaded, as the FAISS peer)")
	bitsS := fs.String("bits", "0,1,2,4,8", "posting-list codes to sweep: 0 = float32 lists, else OSQ bits (1, 2, 4, 8)")
	nprobeS := fs.String("nprobe", "1,2,4,8,16,32", "nprobe sweep")
	visitS := fs.String("visit", "1,2,3,5,10,20", "visit-percentage sweep (Elasticsearch visit_percentage)")
	fs.Float64Var(&c.Oversample, "oversample", c.Oversample, "rescore oversample for quantized lists (Elasticsearch's BBQ default 3)")
	peerOS := fs.String("peer-oversample", "3,5,10,15,20", "rescore oversample sweep of the 1/2/4-bit lists in the FAISS comparison (each with every -nprobe)")
	fs.BoolVar(&c.Spill, "spill", false, "SOAR spilled second assignment")
	fs.BoolVar(&c.GlobalCentroid, "global-centroid", false, "quantize every list around the data mean (query encoded once) instead of its own centroid (DiskBBQ)")
	fs.BoolVar(&c.Hierarchical, "hierarchical", false, "DiskBBQ hierarchical k-means (cluster size 384) instead of flat k-means with -nlist")
	fs.BoolVar(&c.RandomInit, "random-init", false, "k-means random-sample init (FAISS) instead of k-means++")
	fs.IntVar(&c.Conc, "conc", c.Conc, "in-flight reads for concurrent rescoring")
	fs.IntVar(&c.IOBits, "io-bits", c.IOBits, "codes used for the I/O-mode table, one of -bits (DiskBBQ article: 2 bits); 0 = no I/O table")
	modelS := fs.String("model", "gp3", "simulated storage profile for the I/O table: off, nvme, gp3, io2")
	fs.StringVar(&c.Dir, "dir", "", "working directory for the vector file and .fvecs (default: a temporary directory, removed)")
	peer := fs.String("peer", "", "run a peer on the same data: faiss")
	fs.StringVar(&c.Python, "python", c.Python, "Python interpreter with faiss")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "untimed warm-up queries before each timed run")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.data = *data
	f.queries = f.ds.Queries
	if f.data != "" && !flagSet(fs, "queries") {
		f.queries = 0 // all of the real set's queries
	}
	c.Seed = f.ds.Seed
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, badArg("unexpected arguments %q", fs.Args()))
	}
	nerr := len(errs)
	var err error
	if c.Bits, err = parseInts("-bits", *bitsS); err != nil {
		errs = append(errs, err)
	}
	if c.Nprobes, err = parseInts("-nprobe", *nprobeS); err != nil {
		errs = append(errs, err)
	}
	if c.Visits, err = parseFloats("-visit", *visitS); err != nil {
		errs = append(errs, err)
	}
	if c.PeerOversample, err = parseFloats("-peer-oversample", *peerOS); err != nil {
		errs = append(errs, err)
	}
	if c.Model, err = store.ParseModel(*modelS); err != nil {
		errs = append(errs, fmt.Errorf("-model: %w", err))
	}
	listsOK := len(errs) == nerr
	if listsOK && !flagSet(fs, "io-bits") && !slices.Contains(c.Bits, c.IOBits) {
		c.IOBits = 0 // the default codes are not swept: no I/O table, as asked by -io-bits 0
	}
	switch *peer {
	case "faiss":
		c.Faiss = true
	case "":
	default:
		errs = append(errs, badArg("-peer %q: only faiss is a peer of bench ivf", *peer))
	}
	if listsOK { // the lists parsed: check their values and the rest
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
		}
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

// runBenchIVF is a front end over lab/bench.IVF: it reads the flags,
// loads the data set and prints the report.
func runBenchIVF(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchIVF(args, stderr)
	if err != nil {
		return err
	}
	if f.cfg.Faiss { // before the data set's truth is computed
		if err := faiss.Available(f.cfg.Python); err != nil {
			return err
		}
	}
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.queries, min(100, f.ds.N), "")
	if err != nil {
		return err
	}
	ds := bd.ds
	if bd.real == nil {
		fmt.Fprintf(stdout, "veclab bench ivf — %d×%d unit vectors (%d clusters, seed %d), %d queries (+%d warm-up), cosine; truth by exact search in %v\n",
			ds.Base.N, ds.Base.Dim, f.ds.Clusters, f.ds.Seed, ds.Queries.N, f.cfg.Warmup, time.Since(t0).Round(time.Millisecond))
	} else {
		fmt.Fprintf(stdout, "veclab bench ivf — %s (+%d warm-up); truth from the set's cache or exact search in %v\n",
			bd.desc, f.cfg.Warmup, time.Since(t0).Round(time.Millisecond))
	}
	rep, err := bench.IVF(ds, bd.truth, bd.metric, f.cfg, stderr)
	if err != nil {
		return err
	}
	rep.WriteText(stdout)
	return nil
}
