package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
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

// benchHNSWFlags are the flags of `veclab bench hnsw`.
type benchHNSWFlags struct {
	ds         dataset.Config
	data       string // -data: a real set's name or directory; "" generates ds
	metric     engine.Metric
	m          int
	efc, ef    []int
	k          int
	workers    int
	single     bool
	peer       string
	peerSrc    string
	cache      string
	minSeconds float64
	timing     string
	graphSeed  uint64 // HNSW level generator seed, the same on both sides
}

func parseBenchHNSW(args []string, stderr io.Writer) (*benchHNSWFlags, error) {
	fs := flag.NewFlagSet("bench hnsw", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchHNSWFlags{}
	generatorFlags(fs, &f.ds, dataset.DefaultQueries, "query vectors", "data set seed")
	fs.Uint64Var(&f.graphSeed, "graph-seed", 100, "HNSW level generator seed, passed to the peer too (100 is hnswlib's default)")
	fs.IntVar(&f.m, "m", 16, "HNSW M (M0 = 2M)")
	efc := fs.String("efc", "64,200", "comma-separated efConstruction values")
	ef := fs.String("ef", "10,20,40,64,100,200,400", "comma-separated search ef values")
	fs.IntVar(&f.k, "k", 10, "neighbours per query (recall@k)")
	fs.IntVar(&f.workers, "workers", 0, "build goroutines for the parallel build (0: all cores)")
	fs.BoolVar(&f.single, "single", true, "also build single-threaded (deterministic); the sweep then searches that graph")
	fs.StringVar(&f.peer, "peer", "", `run a peer in the same process run: "hnswlib" (needs g++ and libhnswlib-dev)`)
	fs.StringVar(&f.peerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.StringVar(&f.cache, "cache", "", "directory to cache ground truth in (default: none)")
	fs.Float64Var(&f.minSeconds, "min-seconds", 0.3, "minimum timed seconds per ef (queries repeat until reached)")
	fs.StringVar(&f.timing, "timing", "wall", `"wall": QPS over every timed pass; "best": each query's fastest of ≥ 3 passes (for a shared, busy machine; applied to hnswlib too)`)
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0 // all of the real set's queries
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", engine.ErrInvalidArgument, fs.Args())
	}
	var err error
	if f.efc, err = bench.ParsePositiveInts("-efc", *efc); err != nil {
		return nil, err
	}
	if f.ef, err = bench.ParsePositiveInts("-ef", *ef); err != nil {
		return nil, err
	}
	if f.workers == 0 {
		f.workers = runtime.GOMAXPROCS(0)
	}
	var errs []error
	if f.m < 2 {
		errs = append(errs, fmt.Errorf("%w: -m must be ≥ 2, got %d", engine.ErrInvalidArgument, f.m))
	}
	if f.k < 1 {
		errs = append(errs, fmt.Errorf("%w: -k must be ≥ 1, got %d", engine.ErrInvalidArgument, f.k))
	}
	if f.workers < 1 {
		errs = append(errs, fmt.Errorf("%w: -workers must be ≥ 0, got %d", engine.ErrInvalidArgument, f.workers))
	}
	if !(f.minSeconds >= 0) {
		errs = append(errs, fmt.Errorf("%w: -min-seconds must be ≥ 0", engine.ErrInvalidArgument))
	}
	if f.timing != "wall" && f.timing != "best" {
		errs = append(errs, fmt.Errorf("%w: -timing %q: want wall or best", engine.ErrInvalidArgument, f.timing))
	}
	if f.peer != "" && f.peer != "hnswlib" {
		errs = append(errs, fmt.Errorf("%w: -peer %q: only hnswlib is known", engine.ErrInvalidArgument, f.peer))
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

// hnswSweepPoint is one ef of one system.
type hnswSweepPoint struct {
	ef        int
	recall    float64
	qps       float64
	p50, p95  time.Duration
	distComps float64
}

// hnswRun is the lab's result for one efConstruction.
type hnswRun struct {
	efc                 int
	buildAll, buildOne  time.Duration // wall time; zero if not run
	cpuAll, cpuOne      time.Duration // process CPU time of the same builds; zero if unknown
	bytesPerVec, graphB float64
	sweep               []hnswSweepPoint
}

// hnswlibResult is the JSON the hnswlib harness prints.
type hnswlibResult struct {
	N      int `json:"n"`
	Builds []struct {
		Threads    int     `json:"threads"`
		Seconds    float64 `json:"seconds"`
		CPUSeconds float64 `json:"cpu_seconds"`
	} `json:"builds"`
	Search []struct {
		Ef        int     `json:"ef"`
		Recall    float64 `json:"recall"`
		QPS       float64 `json:"qps"`
		P50us     float64 `json:"p50_us"`
		P95us     float64 `json:"p95_us"`
		DistComps float64 `json:"dist_comps"`
	} `json:"search"`
	// Batch holds the -clients points (bench batch): knn_query-style
	// ParallelFor batches from concurrent clients.
	Batch []struct {
		Clients int     `json:"clients"`
		Threads int     `json:"threads"`
		Ef      int     `json:"ef"`
		Recall  float64 `json:"recall"`
		QPS     float64 `json:"qps"`
		BestQPS float64 `json:"best_qps"`
		CPUQPS  float64 `json:"cpu_qps"`
	} `json:"batch"`
}

func runBenchHNSW(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchHNSW(args, stderr)
	if err != nil {
		return err
	}
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.k, f.cache)
	if err != nil {
		return err
	}
	ds, truth := bd.ds, bd.truth
	f.metric = bd.metric
	how := "generated with truth"
	if bd.real != nil {
		how = "read with truth"
	}
	fmt.Fprintf(stdout, "data set: %s (%s in %.1f s); %s, recall@%d; GOMAXPROCS=%d; timing %s\n",
		bd.desc, how, time.Since(t0).Seconds(), f.metric, f.k, runtime.GOMAXPROCS(0), f.timing)

	// The harness is compiled once, before any timing.
	var peerBin, peerDir string
	if f.peer == "hnswlib" {
		peerDir, err = os.MkdirTemp("", "veclab-bench-hnswlib-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(peerDir)
		if peerBin, err = buildHnswlibHarness(f.peerSrc, peerDir); err != nil {
			return err
		}
		if _, err := dataset.WriteDir(peerDir, ds, truth); err != nil {
			return err
		}
	}

	exactRatio, exactBest, exactMedian, stream, err := hnswExactVsStream(ds, f.metric, f.minSeconds)
	if err != nil {
		return err
	}

	for _, efc := range f.efc {
		run, err := benchHNSWOne(ds, truth, f, efc, stderr)
		if err != nil {
			return err
		}
		var peer *hnswlibResult
		if peerBin != "" {
			fmt.Fprintf(stderr, "bench hnsw: efConstruction %d: running hnswlib…\n", efc)
			if peer, err = runHnswlib(peerBin, peerDir, f, efc); err != nil {
				return err
			}
		}
		printHNSWRun(stdout, f, run, peer)
	}
	gb := float64(len(ds.Base.Data)*4) / 1e9
	fmt.Fprintf(stdout, "\nexact search (engine/flat, 1 goroutine): median query %.2f ms (fastest %.2f ms); median pass streaming the %.1f MB slab, interleaved with the queries: %.2f ms (%.1f GB/s); ratio of medians %.2f (target ≤ 1.5)\n",
		hnswMS(exactMedian), hnswMS(exactBest), gb*1e3, hnswMS(stream), gb/stream.Seconds(), exactRatio)
	fmt.Fprintf(stdout, "total %.1f s\n", time.Since(t0).Seconds())
	return nil
}

func hnswMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// hnswExactVsStream times one-goroutine exact searches against passes
// over the slab, interleaved (a pass, a query, a pass, …) so that both see
// the same machine: on a shared machine other work slows both alike. The
// ratio is of the medians; the fastest query is returned too.
func hnswExactVsStream(ds *dataset.Dataset, metric engine.Metric, minSeconds float64) (ratio float64, best, median, stream time.Duration, err error) {
	x, err := flat.New(ds.Base, flat.Config{Metric: metric, Workers: 1})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	var lat, passes []time.Duration
	var total time.Duration
	for i := 0; total.Seconds() < minSeconds || i < 21; i++ {
		passes = append(passes, flat.StreamTime(ds.Base, 1))
		t := time.Now()
		if _, _, err := x.Search(ds.Queries.Row(i%ds.Queries.N), 10, nil); err != nil {
			return 0, 0, 0, 0, err
		}
		d := time.Since(t)
		total += d
		lat = append(lat, d)
	}
	q, st := metrics.Summarize(lat), metrics.Summarize(passes)
	return q.P50.Seconds() / st.P50.Seconds(), q.Min, q.P50, st.P50, nil
}

// benchHNSWOne builds the lab's HNSW at one efConstruction (all cores, then
// single-threaded) and sweeps ef.
func benchHNSWOne(ds *dataset.Dataset, truth *dataset.GroundTruth, f *benchHNSWFlags, efc int, stderr io.Writer) (*hnswRun, error) {
	run := &hnswRun{efc: efc}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	build := func(workers int) (*hnsw.Index, time.Duration, time.Duration, error) {
		cfg := hnsw.HnswlibConfig(ds.Base.Dim, f.metric, f.m, efc)
		// Both sides draw levels from the same generator and seed, so the
		// recall comparison at equal ef compares graphs, not level draws.
		cfg.Seed, cfg.Workers = f.graphSeed, workers
		ix, err := hnsw.New(cfg)
		if err != nil {
			return nil, 0, 0, err
		}
		runtime.GC()
		c0, okc := processCPU()
		t := time.Now()
		err = ix.AddBatch(keys, ds.Base)
		wall := time.Since(t)
		c1, _ := processCPU()
		if !okc {
			c0, c1 = 0, 0
		}
		return ix, wall, c1 - c0, err
	}
	fmt.Fprintf(stderr, "bench hnsw: efConstruction %d: building on %d workers…\n", efc, f.workers)
	ix, d, c, err := build(f.workers)
	if err != nil {
		return nil, err
	}
	run.buildAll, run.cpuAll = d, c
	if f.single && f.workers != 1 {
		ix = nil
		fmt.Fprintf(stderr, "bench hnsw: efConstruction %d: building single-threaded…\n", efc)
		if ix, run.buildOne, run.cpuOne, err = build(1); err != nil {
			return nil, err
		}
	} else if f.workers == 1 {
		run.buildOne, run.cpuOne = d, c
	}
	run.bytesPerVec, run.graphB = ix.BytesPerVector(), ix.GraphBytesPerVector()

	s := ix.NewSearcher()
	lat := make([]time.Duration, 0, 4096)
	for _, ef := range f.ef {
		for i := range min(20, ds.Queries.N) { // warm-up, as the article did
			if _, err := s.Search(ds.Queries.Row(i), f.k, ef, nil); err != nil {
				return nil, err
			}
		}
		lat = lat[:0]
		best := make([]time.Duration, ds.Queries.N)
		minPasses := 1
		if f.timing == "best" {
			minPasses = 3
		}
		var recall, comps float64
		var total time.Duration
		for pass := 0; pass < minPasses || total.Seconds() < f.minSeconds; pass++ {
			for i := range ds.Queries.N {
				t := time.Now()
				res, err := s.Search(ds.Queries.Row(i), f.k, ef, nil)
				d := time.Since(t)
				if err != nil {
					return nil, err
				}
				total += d
				lat = append(lat, d)
				if pass == 0 || d < best[i] {
					best[i] = d
				}
				if pass == 0 {
					ids := make([]engine.ID, len(res))
					for j, r := range res {
						ids[j] = engine.ID(ix.Key(r.ID))
					}
					recall += metrics.RecallIDs(ids, truth.IDs[i], f.k)
					comps += float64(s.Stats().DistComps)
				}
			}
		}
		qps := metrics.QPS(len(lat), total)
		if f.timing == "best" {
			var sum time.Duration
			for _, d := range best {
				sum += d
			}
			qps = metrics.QPS(len(best), sum)
			lat = append(lat[:0], best...)
		}
		sum := metrics.Summarize(lat)
		run.sweep = append(run.sweep, hnswSweepPoint{
			ef: ef, recall: recall / float64(ds.Queries.N), qps: qps,
			p50: sum.P50, p95: sum.P95, distComps: comps / float64(ds.Queries.N),
		})
	}
	return run, nil
}

// findHNSWPeers locates bench/peers: the flag, else the nearest parent of the
// working directory that holds it.
func findHNSWPeers(flagDir string) (string, error) {
	if flagDir != "" {
		return flagDir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "bench", "peers")
		if st, err := os.Stat(filepath.Join(p, "hnswlib", "hnswlib_bench.cpp")); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("bench/peers/hnswlib/hnswlib_bench.cpp not found above the working directory; run from the repository or pass -peer-src")
		}
		dir = parent
	}
}

// buildHnswlibHarness compiles the harness into dir with its build.sh.
func buildHnswlibHarness(peerSrc, dir string) (string, error) {
	peers, err := findHNSWPeers(peerSrc)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "hnswlib_bench")
	cmd := exec.Command("bash", filepath.Join(peers, "hnswlib", "build.sh"), bin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the hnswlib harness: %v\n%s", err, out.String())
	}
	return bin, nil
}

// runHnswlib runs the harness on the files in dir at one efConstruction.
func runHnswlib(bin, dir string, f *benchHNSWFlags, efc int) (*hnswlibResult, error) {
	threads := strconv.Itoa(f.workers)
	if f.single && f.workers != 1 {
		threads = "1," + threads // the first build is the one searched
	}
	efs := make([]string, len(f.ef))
	for i, e := range f.ef {
		efs[i] = strconv.Itoa(e)
	}
	cmd := exec.Command(bin,
		"-base", filepath.Join(dir, "base.fvecs"), "-query", filepath.Join(dir, "query.fvecs"),
		"-truth", filepath.Join(dir, "groundtruth.ivecs"), "-metric", f.metric.String(),
		"-m", strconv.Itoa(f.m), "-efc", strconv.Itoa(efc), "-threads", threads,
		"-ef", strings.Join(efs, ","), "-k", strconv.Itoa(f.k),
		"-seed", strconv.FormatUint(f.graphSeed, 10),
		"-min-seconds", strconv.FormatFloat(f.minSeconds, 'g', -1, 64), "-timing", f.timing)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hnswlib harness: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	var r hnswlibResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("hnswlib harness output: %v: %q", err, out.String())
	}
	if len(r.Search) != len(f.ef) {
		return nil, fmt.Errorf("hnswlib harness returned %d ef points, want %d", len(r.Search), len(f.ef))
	}
	return &r, nil
}

func (r *hnswlibResult) build(threads int) (wall, cpu time.Duration, ok bool) {
	for _, b := range r.Builds {
		if b.Threads == threads {
			return time.Duration(b.Seconds * float64(time.Second)), time.Duration(b.CPUSeconds * float64(time.Second)), true
		}
	}
	return 0, 0, false
}

func printHNSWRun(w io.Writer, f *benchHNSWFlags, run *hnswRun, peer *hnswlibResult) {
	title := fmt.Sprintf("veclab HNSW  M=%d  efConstruction=%d  (ef sweep on the %s graph)", f.m, run.efc,
		map[bool]string{true: "single-threaded", false: fmt.Sprintf("%d-worker", f.workers)}[run.buildOne > 0])
	t := table.New(title, table.Col("ef", ""),
		table.Column{Header: "recall@" + strconv.Itoa(f.k), Prec: 3, Align: table.Right},
		table.Column{Header: "QPS", Prec: -1, Align: table.Right},
		table.Column{Header: "p50", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "p95", Unit: "µs", Prec: 1, Align: table.Right},
		table.Column{Header: "dist/query", Prec: -1, Align: table.Right})
	if peer != nil {
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
	for i, p := range run.sweep {
		vals := []any{p.ef, p.recall, p.qps, us(p.p50), us(p.p95), p.distComps}
		ours = append(ours, metrics.Point{Label: "ef=" + strconv.Itoa(p.ef), Param: float64(p.ef), Recall: p.recall, QPS: p.qps})
		if peer != nil {
			h := peer.Search[i]
			vals = append(vals, h.Recall, h.QPS, h.P50us, h.DistComps, p.recall-h.Recall, p.qps/h.QPS)
			theirs = append(theirs, metrics.Point{Label: "ef=" + strconv.Itoa(h.Ef), Param: float64(h.Ef), Recall: h.Recall, QPS: h.QPS})
		}
		_ = t.AddValues(vals...)
	}
	build := fmt.Sprintf("build: %.2f s on %d workers", run.buildAll.Seconds(), f.workers)
	if run.buildOne > 0 && f.workers != 1 {
		build += fmt.Sprintf(", %.2f s single-threaded", run.buildOne.Seconds())
	}
	if run.cpuOne > 0 {
		build += fmt.Sprintf(" (CPU %.2f s)", run.cpuOne.Seconds())
	}
	t.Note("%s; %.0f bytes/vector (vectors %.0f + graph %.0f)", build, run.bytesPerVec, run.bytesPerVec-run.graphB, run.graphB)
	if peer != nil {
		for _, c := range []struct {
			threads   int
			wall, cpu time.Duration
		}{{1, run.buildOne, run.cpuOne}, {f.workers, run.buildAll, run.cpuAll}} {
			wall, cpu, ok := peer.build(c.threads)
			if ok && c.wall > 0 {
				line := fmt.Sprintf("build time ratio on %d thread(s): wall veclab %.2f s / hnswlib %.2f s = %.2f",
					c.threads, c.wall.Seconds(), wall.Seconds(), c.wall.Seconds()/wall.Seconds())
				if c.cpu > 0 && cpu > 0 {
					line += fmt.Sprintf("; CPU %.2f s / %.2f s = %.2f", c.cpu.Seconds(), cpu.Seconds(), c.cpu.Seconds()/cpu.Seconds())
				}
				t.Note("%s (target ≤ 1.25)", line)
			}
			if c.threads == f.workers {
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
			worst = max(worst, hnswAbs(ours[i].Recall-theirs[i].Recall))
		}
		t.Note("largest |Δrecall| at equal ef: %.3f (target ≤ 0.02)", worst)
		t.Note("dist/query counts distances veclab computed; hnswlib's counter (metric_distance_computations) adds the whole neighbour list of every expanded node, visited or not, so \"hnswlib nbrs\" is an upper bound of its distance computations")
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, t.String())
}

func hnswAbs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
