package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
)

func init() {
	register(&command{
		name:    "bench flat",
		summary: "exact search on one goroutine against the memory floor (streaming the slab) and a C loop (g++ -O3 -march=native)",
		run:     runBenchFlat,
	})
}

// benchFlatFlags are the flags of `veclab bench flat`, a front end over
// lab/bench.Flat.
type benchFlatFlags struct {
	ds   dataset.Config
	data string
	cfg  bench.FlatConfig
}

func parseBenchFlat(args []string, stderr io.Writer) (*benchFlatFlags, error) {
	fs := flag.NewFlagSet("bench flat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlatFlags{cfg: bench.DefaultFlatConfig()}
	generatorFlags(fs, &f.ds, 100, "query vectors", "data set seed")
	fs.IntVar(&f.cfg.K, "k", f.cfg.K, "neighbours per query")
	peer := fs.String("peer", "c", `"c": also run the plain C loop (needs g++); "": none`)
	fs.StringVar(&f.cfg.PeerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.Float64Var(&f.cfg.MinSeconds, "min-seconds", f.cfg.MinSeconds, "minimum timed seconds of queries per measurement")
	fs.IntVar(&f.cfg.Reps, "reps", f.cfg.Reps, "measurements (each side runs reps times, alternating; the report gives each and their median)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.data = *data
	if fs.NArg() > 0 {
		return nil, badArg("unexpected arguments %q", fs.Args())
	}
	var errs []error
	if f.cfg.K < 1 {
		errs = append(errs, badArg("-k must be ≥ 1, got %d", f.cfg.K))
	}
	if f.cfg.Reps < 1 {
		errs = append(errs, badArg("-reps must be ≥ 1, got %d", f.cfg.Reps))
	}
	if !(f.cfg.MinSeconds >= 0) {
		errs = append(errs, badArg("-min-seconds must be ≥ 0"))
	}
	switch *peer {
	case "c":
		f.cfg.C = true
	case "":
		f.cfg.C = false
	default:
		errs = append(errs, badArg("-peer %q: only c is known", *peer))
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

func runBenchFlat(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlat(args, stderr)
	if err != nil {
		return err
	}
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.cfg.K, "")
	if err != nil {
		return err
	}
	rep, err := bench.Flat(bd.ds, bd.metric, f.cfg, stderr)
	if err != nil {
		return err
	}
	printBenchFlat(stdout, bd.desc, rep)
	fmt.Fprintf(stdout, "(each round alternates floor passes and queries for ≥ %.2g s and ≥ 21 pairs; total %.1f s; load average %s)\n",
		f.cfg.MinSeconds, time.Since(t0).Seconds(), bench.LoadAverage())
	return nil
}

func printBenchFlat(w io.Writer, desc string, rep *bench.FlatReport) {
	fmt.Fprintf(w, "data set: %s; %s, k=%d; kernels %s; GOMAXPROCS=%d; load average %s\n",
		desc, rep.Metric, rep.Config.K, rep.Kernels, runtime.GOMAXPROCS(0), rep.Load)
	if len(rep.C) > 0 {
		fmt.Fprintf(w, "C peer answers query 0 with the same ids in the same order at %d of %d ranks\n", rep.CSame, rep.CRanks)
	}
	for i, r := range rep.Ours {
		line := fmt.Sprintf("round %d: veclab floor %.3f ms (%.1f GB/s), query %.3f ms, pair ratio %.2f (CPU time %.2f), fastest %.3f / %.3f ms",
			i+1, r.FloorMs, rep.SlabMB/r.FloorMs, r.QueryMs, r.Ratio, r.CPURatio, r.FastQueryMs, r.FastFloorMs)
		load := r.Load
		if i < len(rep.C) {
			c := rep.C[i]
			line += fmt.Sprintf("; C floor %.3f ms, query %.3f ms, pair ratio %.2f (CPU time %.2f), fastest %.3f / %.3f ms",
				c.FloorMs, c.QueryMs, c.Ratio, c.CPURatio, c.FastQueryMs, c.FastFloorMs)
			load = c.Load
		}
		fmt.Fprintf(w, "%s (load average %s)\n", line, load)
	}
	summary := func(name string, s bench.FlatSummary) string {
		return fmt.Sprintf("%s: floor %.3f ms, query %.3f ms; query/floor: median of pair ratios %.2f (by thread CPU time %.2f), fastest query / fastest pass %.2f",
			name, s.FloorMs, s.QueryMs, s.Ratio, s.CPURatio, s.FastRatio)
	}
	ours := bench.Summarize(rep.Ours)
	fmt.Fprintf(w, "\nexact search, one goroutine, %.1f MB slab, medians of %d rounds (floor = one pass streaming the slab with %s loads)\n",
		rep.SlabMB, len(rep.Ours), rep.Kernels)
	fmt.Fprintf(w, "%s (target ≤ 1.3)\n", summary("veclab", ours))
	if len(rep.C) > 0 {
		cs := bench.Summarize(rep.C)
		fmt.Fprintf(w, "%s\n", summary("C loop (g++ -O3 -march=native -mprefer-vector-width=512, omp simd dot; bench/peers/cflat)", cs))
		fmt.Fprintf(w, "veclab / C query time: median %.2f, fastest %.2f\n", ours.QueryMs/cs.QueryMs, ours.FastQueryMs/cs.FastQueryMs)
	}
}
