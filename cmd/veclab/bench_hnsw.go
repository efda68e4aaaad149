package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
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
	peer := fs.String("peer", "", `run a peer in the same process run: "hnswlib" (needs g++ and libhnswlib-dev)`)
	fs.StringVar(&c.PeerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.StringVar(&f.cache, "cache", "", "directory to cache ground truth in (default: none)")
	fs.Float64Var(&c.MinSeconds, "min-seconds", c.MinSeconds, "minimum timed seconds per ef (queries repeat until reached)")
	fs.StringVar(&c.Timing, "timing", c.Timing, `"wall": QPS over every timed pass; "best": each query's fastest of ≥ 3 passes (for a shared, busy machine; applied to hnswlib too)`)
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0 // all of the real set's queries
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: %w", fs.Args(), engine.ErrInvalidArgument)
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
		errs = append(errs, fmt.Errorf(format+": %w", append(args, engine.ErrInvalidArgument)...))
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
	switch *peer {
	case "":
	case "hnswlib":
		c.Hnswlib = true
	default:
		bad("-peer %q: only hnswlib is known", *peer)
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
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.cfg.K, f.cache)
	if err != nil {
		return err
	}
	how := "generated with truth"
	if bd.real != nil {
		how = "read with truth"
	}
	fmt.Fprintf(stdout, "data set: %s (%s in %.1f s); %s, recall@%d; GOMAXPROCS=%d; timing %s\n",
		bd.desc, how, time.Since(t0).Seconds(), bd.metric, f.cfg.K, runtime.GOMAXPROCS(0), f.cfg.Timing)
	rep, err := bench.HNSW(bd.ds, bd.truth, bd.metric, f.cfg, stderr)
	if err != nil {
		return err
	}
	for _, run := range rep.Runs {
		printHNSWRun(stdout, rep.Config, run)
	}
	e := rep.Exact
	fmt.Fprintf(stdout, "\nexact search (engine/flat, 1 goroutine): median query %.2f ms (fastest %.2f ms); median pass streaming the %.1f MB slab, interleaved with the queries: %.2f ms (%.1f GB/s); ratio of medians %.2f (target ≤ 1.5)\n",
		hnswMS(e.Median), hnswMS(e.Best), e.SlabGB*1e3, hnswMS(e.Stream), e.SlabGB/e.Stream.Seconds(), e.Ratio)
	fmt.Fprintf(stdout, "total %.1f s\n", time.Since(t0).Seconds())
	return nil
}

func hnswMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func printHNSWRun(w io.Writer, cfg bench.HNSWConfig, run bench.HNSWRun) {
	title := fmt.Sprintf("veclab HNSW  M=%d  efConstruction=%d  (ef sweep on the %s graph)", cfg.M, run.EfConstruction,
		map[bool]string{true: "single-threaded", false: fmt.Sprintf("%d-worker", cfg.Workers)}[run.BuildOne > 0])
	t := table.New(title, table.Col("ef", ""),
		table.Column{Header: "recall@" + strconv.Itoa(cfg.K), Prec: 3, Align: table.Right},
		table.Column{Header: "QPS", Prec: -1, Align: table.Right},
		table.Column{Header: "p50", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "p95", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "dist/query", Prec: -1, Align: table.Right})
	peer := run.Hnswlib != nil
	if peer {
		t.AddColumns(
			table.Column{Header: "hnswlib recall", Prec: 3, Align: table.Right},
			table.Column{Header: "hnswlib QPS", Prec: -1, Align: table.Right},
			table.Column{Header: "hnswlib p50", Unit: "µs", Prec: 1, Align: table.Right},
			table.Column{Header: "hnswlib nbrs", Prec: -1, Align: table.Right},
			table.Column{Header: "Δrecall", Prec: 3, Align: table.Right},
			table.Column{Header: "QPS ratio", Prec: 2, Align: table.Right})
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	var ours, theirs []metrics.Point
	for i, p := range run.Sweep {
		vals := []any{p.Ef, p.Recall, p.QPS, us(p.P50), us(p.P95), p.DistComps}
		ours = append(ours, metrics.Point{Label: "ef=" + strconv.Itoa(p.Ef), Param: float64(p.Ef), Recall: p.Recall, QPS: p.QPS})
		if peer {
			h := run.Hnswlib[i]
			vals = append(vals, h.Recall, h.QPS, us(h.P50), h.DistComps, p.Recall-h.Recall, p.QPS/h.QPS)
			theirs = append(theirs, metrics.Point{Label: "ef=" + strconv.Itoa(h.Ef), Param: float64(h.Ef), Recall: h.Recall, QPS: h.QPS})
		}
		_ = t.AddValues(vals...)
	}
	build := fmt.Sprintf("build: %.2f s on %d workers", run.BuildAll.Seconds(), cfg.Workers)
	if run.BuildOne > 0 && cfg.Workers != 1 {
		build += fmt.Sprintf(", %.2f s single-threaded", run.BuildOne.Seconds())
	}
	if run.CPUOne > 0 {
		build += fmt.Sprintf(" (CPU %.2f s)", run.CPUOne.Seconds())
	}
	t.Note("%s; %.0f bytes/vector (vectors %.0f + graph %.0f)", build, run.BytesPerVector, run.BytesPerVector-run.GraphBytesPerVector, run.GraphBytesPerVector)
	if peer {
		for _, c := range []struct {
			threads   int
			wall, cpu time.Duration
		}{{1, run.BuildOne, run.CPUOne}, {cfg.Workers, run.BuildAll, run.CPUAll}} {
			b, ok := run.HnswlibBuild(c.threads)
			if ok && c.wall > 0 {
				line := fmt.Sprintf("build time ratio on %d thread(s): wall veclab %.2f s / hnswlib %.2f s = %.2f",
					c.threads, c.wall.Seconds(), b.Wall.Seconds(), c.wall.Seconds()/b.Wall.Seconds())
				if c.cpu > 0 && b.CPU > 0 {
					line += fmt.Sprintf("; CPU %.2f s / %.2f s = %.2f", c.cpu.Seconds(), b.CPU.Seconds(), c.cpu.Seconds()/b.CPU.Seconds())
				}
				t.Note("%s (target ≤ 1.25)", line)
			}
			if c.threads == cfg.Workers {
				break
			}
		}
		for _, target := range []float64{0.95, 0.99} {
			a, okA := metrics.QPSAtRecall(ours, target)
			b, okB := metrics.QPSAtRecall(theirs, target)
			line := fmt.Sprintf("QPS at recall %.2f (interpolated): ", target)
			if okA && okB {
				line += fmt.Sprintf("veclab %.0f / hnswlib %.0f = %.2f", a, b, a/b)
			} else {
				line += fmt.Sprintf("not reached (veclab %t, hnswlib %t)", okA, okB)
			}
			pa, okA := metrics.FirstReaching(ours, target)
			pb, okB := metrics.FirstReaching(theirs, target)
			if okA && okB {
				line += fmt.Sprintf("; smallest ef reaching it: veclab %s %.0f QPS, hnswlib %s %.0f QPS = %.2f",
					pa.Label, pa.QPS, pb.Label, pb.QPS, pa.QPS/pb.QPS)
			}
			t.Note("%s (target ≥ 1.0)", line)
		}
		worst := 0.0
		for i := range ours {
			worst = max(worst, math.Abs(ours[i].Recall-theirs[i].Recall))
		}
		t.Note("largest |Δrecall| at equal ef: %.3f (target ≤ 0.02)", worst)
		t.Note("dist/query counts distances veclab computed; hnswlib's counter (metric_distance_computations) adds the whole neighbour list of every expanded node, visited or not, so \"hnswlib nbrs\" is an upper bound of its distance computations")
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, t.String())
}
