package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

func init() {
	register(&command{
		name:    "bench batch",
		summary: "batch search on all cores (flat, HNSW, IVF) for 1, 2, 4, 8 concurrent clients beside hnswlib's and FAISS's batch search",
		run:     runBenchBatch,
	})
}

// benchBatchFlags are the flags of `veclab bench batch`, a front end over
// lab/bench.Batch.
type benchBatchFlags struct {
	ds   dataset.Config
	data string
	cfg  bench.BatchConfig
}

func parseBenchBatch(args []string, stderr io.Writer) (*benchBatchFlags, error) {
	fs := flag.NewFlagSet("bench batch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchBatchFlags{cfg: bench.DefaultBatchConfig()}
	c := &f.cfg
	generatorFlags(fs, &f.ds, 1000, "query vectors (the batch)", "data set seed")
	fs.IntVar(&c.K, "k", c.K, "neighbours per query (recall@k)")
	fs.IntVar(&c.M, "m", c.M, "HNSW M")
	fs.IntVar(&c.EfConstruction, "efc", c.EfConstruction, "HNSW efConstruction")
	ef := fs.String("ef", "10,20,40,80", "comma-separated HNSW ef values")
	np := fs.String("nprobe", "1,2,4,8", "comma-separated IVF nprobe values")
	cl := fs.String("clients", "1,2,4,8", "comma-separated concurrent client counts")
	fs.IntVar(&c.Nlist, "nlist", 0, "IVF lists (0: √n)")
	fs.IntVar(&c.Iters, "iters", c.Iters, "k-means iterations of the IVF (both sides)")
	fs.IntVar(&c.Threads, "threads", 0, "worker goroutines / threads per batch call on every side (0: all cores)")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "rounds per client count, each measuring ours and then every peer; the ratios are medians of the per-round ratios")
	peers := fs.String("peer", "hnswlib,faiss", `comma-separated peers: "hnswlib" (g++, libhnswlib-dev), "faiss" (python3-faiss); "" for none`)
	fs.StringVar(&c.PeerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.StringVar(&c.Python, "python", c.Python, "Python interpreter with faiss")
	fs.Float64Var(&c.MinSeconds, "min-seconds", c.MinSeconds, "minimum timed seconds per point (the batch repeats until reached)")
	fs.Uint64Var(&c.GraphSeed, "graph-seed", c.GraphSeed, "HNSW level generator seed, passed to hnswlib too")
	fs.Float64Var(&c.Target, "target", c.Target, "recall@k at which HNSW and IVF QPS are compared (interpolated along each sweep)")
	fs.StringVar(&c.Timing, "timing", c.Timing, `"best": QPS of each point's fastest pass (≥ 3 passes; for a shared, busy machine), "wall": over every pass; the same on every side`)
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0
	}
	if fs.NArg() > 0 {
		return nil, badArg("unexpected arguments %q", fs.Args())
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, badArg(format, args...))
	}
	var err error
	if c.Efs, err = parsePositiveInts("-ef", *ef); err != nil {
		errs = append(errs, err)
	}
	if c.Nprobes, err = parsePositiveInts("-nprobe", *np); err != nil {
		errs = append(errs, err)
	}
	if c.Clients, err = parsePositiveInts("-clients", *cl); err != nil {
		errs = append(errs, err)
	}
	c.Hnswlib, c.Faiss = false, false
	for _, p := range splitList(*peers) {
		switch p {
		case "hnswlib":
			c.Hnswlib = true
		case "faiss":
			c.Faiss = true
		default:
			bad("-peer %q: want hnswlib or faiss", p)
		}
	}
	if c.Threads == 0 {
		c.Threads = engine.Cores()
	}
	if c.K < 1 || c.M < 2 || c.EfConstruction < 1 || c.Iters < 1 || c.Nlist < 0 || c.Threads < 1 || c.Rounds < 1 {
		bad("-k %d, -m %d, -efc %d, -iters %d, -nlist %d, -threads %d, -rounds %d: want k, efc, iters, rounds ≥ 1, m ≥ 2, nlist, threads ≥ 0",
			c.K, c.M, c.EfConstruction, c.Iters, c.Nlist, c.Threads, c.Rounds)
	}
	if !(c.MinSeconds >= 0) || !(c.Target > 0 && c.Target <= 1) {
		bad("-min-seconds %g must be ≥ 0 and -target %g in (0, 1]", c.MinSeconds, c.Target)
	}
	if c.Timing != "best" && c.Timing != "wall" {
		bad("-timing %q: want best or wall", c.Timing)
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

func runBenchBatch(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchBatch(args, stderr)
	if err != nil {
		return err
	}
	_, err = benchBatch(f, stdout, stderr)
	return err
}

// benchBatch runs bench batch with parsed flags, prints its report and
// returns it.
func benchBatch(f *benchBatchFlags, stdout, stderr io.Writer) (*bench.BatchReport, error) {
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.cfg.K, "")
	if err != nil {
		return nil, err
	}
	rep, err := bench.Batch(bd.ds, bd.truth, bd.metric, f.cfg, stderr)
	if err != nil {
		return nil, err
	}
	printBenchBatch(stdout, bd.desc, rep)
	fmt.Fprintf(stdout, "total %.1f s (load average %s)\n", time.Since(t0).Seconds(), bench.LoadAverage())
	return rep, nil
}

func printBenchBatch(w io.Writer, desc string, rep *bench.BatchReport) {
	c := rep.Config
	fmt.Fprintf(w, "data set: %s; %s, recall@%d; %d queries per batch; %d worker goroutines / threads per batch call on every side (engine.Cores() = %d); kernels %s; load average %s\n",
		desc, rep.Metric, c.K, rep.Queries, c.Threads, rep.Cores, rep.Kernels, rep.StartLoad)
	fmt.Fprintf(w, "c clients start together, each sending its 1/c of the queries as one batch call; QPS = all queries / wall time until the last client is done (timing %s). With more clients than cores (here %d), the clients' worker pools share the cores: 4 and 8 clients measure oversubscription, not more hardware.\n", c.Timing, rep.Cores)
	fmt.Fprintf(w, "%d round(s) per client count, each measuring veclab and then the peers (the peers rebuild their indexes every round, outside their timing)\n", c.Rounds)
	if rep.FaissVersion != "" {
		fmt.Fprintf(w, "FAISS: faiss %s (%s) — %s\n", rep.FaissVersion, rep.FaissCompile, rep.FaissNote)
	}
	for _, r := range rep.Rounds {
		fmt.Fprintf(w, "%d client(s), round %d measured (load average %s)\n", r.Clients, r.Round, r.Load)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nsystem\tclients\tef/nprobe\t%s\tQPS\tCPU-QPS\t\n", metrics.RecallHeader(c.K))
	for _, sys := range bench.BatchSystems() {
		for _, p := range rep.Points(sys) {
			param := "-"
			if p.Param > 0 {
				param = strconv.Itoa(p.Param)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.0f\t%.0f\t\n", sys, p.Clients, param, p.Recall, p.QPS, p.CPUQPS)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, metrics.RecallCaption(c.K))
	fmt.Fprintf(w, "QPS: all queries over wall time (%s); CPU-QPS: all queries over the process CPU time of the same passes (every thread; it leaves out time other processes held the cores); each figure the median over the rounds\n", c.Timing)
	fmt.Fprintln(w)
	what := map[string]string{"flat": "exact batch vs FAISS IndexFlat", "hnsw": "HNSW batch vs hnswlib knn_query", "ivf": "IVF-Flat batch vs FAISS IndexIVFFlat"}
	for _, r := range rep.Ratios() {
		cond := fmt.Sprintf("at recall %.2f", c.Target)
		if r.System == "flat" {
			cond = "(recall 1 on both sides)"
		}
		var parts []string
		if r.WallN > 0 {
			parts = append(parts, fmt.Sprintf("QPS veclab %.0f / %.0f, median of %d per-round ratios %.2f (%.2f–%.2f)", r.OursQPS, r.PeerQPS, r.WallN, r.Wall, r.WallMin, r.WallMax))
		} else {
			parts = append(parts, "QPS not compared (a side did not reach the target in any round)")
		}
		if r.CPUN > 0 {
			parts = append(parts, fmt.Sprintf("CPU-QPS veclab %.0f / %.0f, median of %d %.2f (%.2f–%.2f)", r.OursCPUQPS, r.PeerCPUQPS, r.CPUN, r.CPU, r.CPUMin, r.CPUMax))
		} else {
			parts = append(parts, "CPU-QPS not compared")
		}
		fmt.Fprintf(w, "%d client(s): %s %s: %s (target ≥ 1.0)\n", r.Clients, what[r.System], cond, strings.Join(parts, "; "))
	}
	fmt.Fprintf(w, "load average at the start %s, at the end %s\n", rep.StartLoad, rep.EndLoad)
}
