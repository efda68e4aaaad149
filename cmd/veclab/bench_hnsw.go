package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

func init() {
	register(&command{
		name:    "bench hnsw",
		summary: "HNSW build and recall/QPS sweep on the article's data set (optionally beside native hnswlib)",
		run:     runBenchHNSW,
	})
}

// benchHNSWFlags are the flags of `veclab bench hnsw`, a front end over
// lab/bench.HNSW.
type benchHNSWFlags struct {
	ds    dataset.Config
	data  string // -data: a real set's name or directory; "" generates ds
	json  string // -json: also save the report as a bench.HNSWRecord there
	prof  string // -cpuprofile: veclab's CPU profile (the peers run in their own processes)
	cache string
	cfg   bench.HNSWConfig
}

func parseBenchHNSW(args []string, stderr io.Writer) (*benchHNSWFlags, error) {
	fs := flag.NewFlagSet("bench hnsw", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchHNSWFlags{cfg: bench.DefaultHNSWConfig()}
	c := &f.cfg
	generatorFlags(fs, &f.ds, dataset.DefaultQueries, "query vectors", "data set seed")
	fs.Uint64Var(&c.GraphSeed, "graph-seed", c.GraphSeed, "HNSW level generator seed, passed to the peer too (100 is hnswlib's default)")
	fs.IntVar(&c.M, "m", c.M, "HNSW M (M0 = 2M)")
	efc := fs.String("efc", "64,200", "comma-separated efConstruction values")
	ef := fs.String("ef", "10,20,40,64,100,200,400", "comma-separated search ef values")
	fs.IntVar(&c.K, "k", c.K, "neighbours per query (recall@k)")
	fs.IntVar(&c.Workers, "workers", 0, "build goroutines for the parallel build (0: all cores)")
	fs.BoolVar(&c.Single, "single", c.Single, "also build single-threaded (deterministic); the sweep then searches that graph")
	peer := fs.String("peer", "", `comma-separated peers run in the same run, in alternating rounds: `+strings.Join(bench.HNSWPeers, ", ")+
		`, or "all" (`+strings.Join(bench.FloatHNSWPeers, ", ")+`); hnswlib needs g++ and libhnswlib-dev, usearch g++ and the npm tree bench/peers/usearch, faiss python3-faiss`)
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "sweeps of every ef per side, alternating veclab and each peer; QPS ratios are medians of per-round ratios")
	fs.IntVar(&c.PeerRescore, "peer-rescore", c.PeerRescore, "candidates per neighbour the usearch-b1 peer re-ranks by exact distance")
	fs.StringVar(&c.PeerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.StringVar(&f.cache, "cache", "", "directory to cache ground truth in (default: none)")
	fs.Float64Var(&c.MinSeconds, "min-seconds", c.MinSeconds, "minimum timed seconds per ef (queries repeat until reached)")
	fs.StringVar(&c.Timing, "timing", c.Timing, `"wall": QPS over every timed pass; "best": each query's fastest of ≥ 3 passes (for a shared, busy machine; applied to hnswlib too)`)
	fs.StringVar(&f.json, "json", "", "also save the report with the machine, load and command as JSON (docs/perf/*.json; go generate ./lab/perfdoc writes docs/performance.md from them)")
	fs.StringVar(&f.prof, "cpuprofile", "", "write veclab's CPU profile (its builds and sweeps; the peers are other processes) to this file, for go tool pprof")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0 // all of the real set's queries
	}
	if fs.NArg() > 0 {
		return nil, badArg("unexpected arguments %q", fs.Args())
	}
	var err error
	if c.EfConstructions, err = parsePositiveInts("-efc", *efc); err != nil {
		return nil, err
	}
	if c.Efs, err = parsePositiveInts("-ef", *ef); err != nil {
		return nil, err
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, badArg(format, args...))
	}
	if c.M < 2 {
		bad("-m must be ≥ 2, got %d", c.M)
	}
	if c.K < 1 {
		bad("-k must be ≥ 1, got %d", c.K)
	}
	if c.Workers < 1 {
		bad("-workers must be ≥ 0, got %d", c.Workers)
	}
	if !(c.MinSeconds >= 0) {
		bad("-min-seconds must be ≥ 0")
	}
	if c.Timing != "wall" && c.Timing != "best" {
		bad("-timing %q: want wall or best", c.Timing)
	}
	if *peer == "all" {
		c.Peers = slices.Clone(bench.FloatHNSWPeers)
	} else {
		for _, p := range splitList(*peer) {
			if !slices.Contains(bench.HNSWPeers, p) {
				bad("-peer %q: want %s or all", p, strings.Join(bench.HNSWPeers, ", "))
			}
			c.Peers = append(c.Peers, p)
		}
	}
	if c.Rounds < 1 {
		bad("-rounds must be ≥ 1, got %d", c.Rounds)
	}
	if c.PeerRescore < 1 {
		bad("-peer-rescore must be ≥ 1, got %d", c.PeerRescore)
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

func runBenchHNSW(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchHNSW(args, stderr)
	if err != nil {
		return err
	}
	t0 := time.Now()
	wd, _ := os.Getwd() // "" on error: absolute paths are then cut to base names
	rec := bench.HNSWRecord{Command: bench.PortableCommand("veclab bench hnsw", args, wd), Date: t0.UTC().Truncate(time.Second),
		Machine: experiment.DetectMachine().String(), LoadStart: bench.LoadAverage()}
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.cfg.K, f.cache)
	if err != nil {
		return err
	}
	how := "generated with truth"
	if bd.real != nil {
		how = "read with truth"
	}
	fmt.Fprintf(stdout, "data set: %s (%s in %.1f s); %s, recall@%d; GOMAXPROCS=%d; timing %s; %d round(s); load average %s at start\n",
		bd.desc, how, time.Since(t0).Seconds(), bd.metric, f.cfg.K, runtime.GOMAXPROCS(0), f.cfg.Timing, f.cfg.Rounds, bench.LoadAverage())
	if f.prof != "" {
		pf, err := os.Create(f.prof)
		if err != nil {
			return fmt.Errorf("bench hnsw: -cpuprofile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("bench hnsw: -cpuprofile: %w", err)
		}
	}
	rep, err := bench.HNSW(bd.ds, bd.truth, bd.metric, f.cfg, stderr)
	if f.prof != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	for _, run := range rep.Runs {
		printHNSWRun(stdout, rep.Config, run)
		for _, p := range run.Peers {
			printHNSWPeer(stdout, rep.Config, run, p)
		}
		if len(run.Peers) > 0 {
			fmt.Fprintln(stdout)
			fmt.Fprint(stdout, rep.PeerTable(run).String())
		}
	}

	e := rep.Exact
	fmt.Fprintf(stdout, "\nexact search (engine/flat, 1 goroutine): median query %.2f ms (fastest %.2f ms); median pass streaming the %.1f MB slab, interleaved with the queries: %.2f ms (%.1f GB/s); ratio of medians %.2f (target ≤ 1.5)\n",
		hnswMS(e.Median), hnswMS(e.Best), e.SlabGB*1e3, hnswMS(e.Stream), e.SlabGB/e.Stream.Seconds(), e.Ratio)
	rec.LoadEnd, rec.Report = bench.LoadAverage(), rep
	fmt.Fprintf(stdout, "total %.1f s; load average at the end %s\n", time.Since(t0).Seconds(), rec.LoadEnd)
	if f.json != "" {
		b, err := json.MarshalIndent(rec, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.json, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("bench hnsw: -json: %w", err)
		}
	}
	return nil
}

func hnswMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func printHNSWRun(w io.Writer, cfg bench.HNSWConfig, run bench.HNSWRun) {
	title := fmt.Sprintf("veclab HNSW  M=%d  efConstruction=%d  (ef sweep on the %s graph; QPS the median of %d round(s))", cfg.M, run.EfConstruction,
		map[bool]string{true: "single-threaded", false: fmt.Sprintf("%d-worker", cfg.Workers)}[run.BuildOne > 0], len(run.Rounds))
	t := table.New(title, table.Col("ef", ""),
		table.Column{Header: "recall@" + strconv.Itoa(cfg.K), Prec: 3, Align: table.Right},
		table.Column{Header: "QPS", Prec: -1, Align: table.Right},
		table.Column{Header: "p50", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "p95", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "dist/query", Prec: -1, Align: table.Right})
	for _, p := range run.Sweep {
		_ = t.AddValues(p.Ef, p.Recall, p.QPS, hnswUS(p.P50), hnswUS(p.P95), p.DistComps)
	}
	build := fmt.Sprintf("build: %.2f s on %d workers", run.BuildAll.Seconds(), cfg.Workers)
	if run.BuildOne > 0 && cfg.Workers != 1 {
		build += fmt.Sprintf(", %.2f s single-threaded", run.BuildOne.Seconds())
	}
	if run.CPUOne > 0 {
		build += fmt.Sprintf(" (CPU %.2f s)", run.CPUOne.Seconds())
	}
	t.Note("%s; %.0f bytes/vector (vectors %.0f + graph %.0f)", build, run.BytesPerVector, run.BytesPerVector-run.GraphBytesPerVector, run.GraphBytesPerVector)
	fmt.Fprintln(w)
	fmt.Fprint(w, t.String())
}

func hnswUS(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// printHNSWPeer prints one peer's sweep beside ours, ef by ef.
func printHNSWPeer(w io.Writer, cfg bench.HNSWConfig, run bench.HNSWRun, p bench.HNSWPeerRun) {
	t := table.New(fmt.Sprintf("%s: %s  M=%d  efConstruction=%d  (QPS the median of %d round(s))", p.Name, p.Index, cfg.M, run.EfConstruction, len(p.Rounds)),
		table.Col("ef", ""),
		table.Column{Header: "recall@" + strconv.Itoa(cfg.K), Prec: 3, Align: table.Right},
		table.Column{Header: "QPS", Prec: -1, Align: table.Right},
		table.Column{Header: "p50", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "dist/query", Prec: -1, Align: table.Right},
		table.Column{Header: "Δrecall (veclab − peer)", Prec: 3, Align: table.Right},
		table.Column{Header: "QPS ratio veclab/peer", Prec: 2, Align: table.Right})
	worst := 0.0
	for i, h := range p.Sweep {
		o := run.Sweep[i]
		_ = t.AddValues(h.Ef, h.Recall, h.QPS, hnswUS(h.P50), h.DistComps, o.Recall-h.Recall, o.QPS/h.QPS)
		worst = max(worst, math.Abs(o.Recall-h.Recall))
	}
	t.Note("largest |Δrecall| at equal ef: %.3f", worst)
	if p.Kernels != "" {
		t.Note("kernels: %s", p.Kernels)
	}
	if p.Note != "" {
		t.Note("%s", p.Note)
	}
	switch {
	case p.Name == "hnswlib":
		t.Note("dist/query is hnswlib's metric_distance_computations, which adds the whole neighbour list of every expanded node, visited or not: an upper bound of its distance computations")
	case strings.HasPrefix(p.Name, "faiss"):
		t.Note("FAISS is timed as one search call over all queries on one OpenMP thread; p50 is the mean query time of the fastest pass")
	case strings.HasPrefix(p.Name, "usearch"):
		t.Note("USearch draws node levels from its own generator (no shared seed); dist/query is its computed_distances (plus the rescored candidates)")
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, t.String())
}
