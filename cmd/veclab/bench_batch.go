package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/vec"
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

type benchBatchFlags struct {
	ds         dataset.Config
	data       string
	k, m, efc  int
	ef, nprobe []int
	clients    []int
	nlist      int
	iters      int
	threads    int
	peers      []string
	peerSrc    string
	python     string
	minSeconds float64
	graphSeed  uint64
	target     float64
	timing     string
}

func parseBenchBatch(args []string, stderr io.Writer) (*benchBatchFlags, error) {
	fs := flag.NewFlagSet("bench batch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchBatchFlags{}
	generatorFlags(fs, &f.ds, 1000, "query vectors (the batch)", "data set seed")
	fs.IntVar(&f.k, "k", 10, "neighbours per query (recall@k)")
	fs.IntVar(&f.m, "m", 16, "HNSW M")
	fs.IntVar(&f.efc, "efc", 64, "HNSW efConstruction")
	ef := fs.String("ef", "10,20,40,80", "comma-separated HNSW ef values")
	np := fs.String("nprobe", "1,2,4,8", "comma-separated IVF nprobe values")
	cl := fs.String("clients", "1,2,4,8", "comma-separated concurrent client counts")
	fs.IntVar(&f.nlist, "nlist", 0, "IVF lists (0: √n)")
	fs.IntVar(&f.iters, "iters", 10, "k-means iterations of the IVF (both sides)")
	fs.IntVar(&f.threads, "threads", 0, "worker goroutines / threads per batch call on every side (0: all cores)")
	peers := fs.String("peer", "hnswlib,faiss", `comma-separated peers: "hnswlib" (g++, libhnswlib-dev), "faiss" (python3-faiss); "" for none`)
	fs.StringVar(&f.peerSrc, "peer-src", "", "path to bench/peers (default: found from the working directory)")
	fs.StringVar(&f.python, "python", faiss.DefaultPython, "Python interpreter with faiss")
	fs.Float64Var(&f.minSeconds, "min-seconds", 0.3, "minimum timed seconds per point (the batch repeats until reached)")
	fs.Uint64Var(&f.graphSeed, "graph-seed", 100, "HNSW level generator seed, passed to hnswlib too")
	fs.Float64Var(&f.target, "target", 0.95, "recall@k at which HNSW and IVF QPS are compared (interpolated along each sweep)")
	fs.StringVar(&f.timing, "timing", "best", `"best": QPS of each point's fastest pass (≥ 3 passes; for a shared, busy machine), "wall": over every pass; the same on every side`)
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", engine.ErrInvalidArgument, fs.Args())
	}
	var errs []error
	var err error
	if f.ef, err = bench.ParsePositiveInts("-ef", *ef); err != nil {
		errs = append(errs, err)
	}
	if f.nprobe, err = bench.ParsePositiveInts("-nprobe", *np); err != nil {
		errs = append(errs, err)
	}
	if f.clients, err = bench.ParsePositiveInts("-clients", *cl); err != nil {
		errs = append(errs, err)
	}
	for _, p := range strings.Split(*peers, ",") {
		switch p = strings.TrimSpace(p); p {
		case "":
		case "hnswlib", "faiss":
			f.peers = append(f.peers, p)
		default:
			errs = append(errs, fmt.Errorf("%w: -peer %q: want hnswlib or faiss", engine.ErrInvalidArgument, p))
		}
	}
	if f.threads == 0 {
		f.threads = engine.Cores()
	}
	if f.k < 1 || f.m < 2 || f.efc < 1 || f.iters < 1 || f.nlist < 0 || f.threads < 1 {
		errs = append(errs, fmt.Errorf("%w: -k %d, -m %d, -efc %d, -iters %d, -nlist %d, -threads %d: want k, efc, iters ≥ 1, m ≥ 2, nlist, threads ≥ 0",
			engine.ErrInvalidArgument, f.k, f.m, f.efc, f.iters, f.nlist, f.threads))
	}
	if !(f.minSeconds >= 0) || !(f.target > 0 && f.target <= 1) {
		errs = append(errs, fmt.Errorf("%w: -min-seconds %g must be ≥ 0 and -target %g in (0, 1]", engine.ErrInvalidArgument, f.minSeconds, f.target))
	}
	if f.timing != "best" && f.timing != "wall" {
		errs = append(errs, fmt.Errorf("%w: -timing %q: want best or wall", engine.ErrInvalidArgument, f.timing))
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

// pick returns the QPS -timing asks for.
func (f *benchBatchFlags) pick(wall, best float64) float64 {
	if f.timing == "best" {
		return best
	}
	return wall
}

func (f *benchBatchFlags) has(peer string) bool {
	for _, p := range f.peers {
		if p == peer {
			return true
		}
	}
	return false
}

// batchPoint is one (clients, parameter) measurement of one system.
type batchPoint struct {
	clients int
	param   int
	recall  float64
	qps     float64 // by -timing
	cpuQPS  float64 // queries over the process CPU time of the passes (0: unknown)
}

// timeClients starts c clients together, each answering its 1/c share of
// queries with one call of search, for at least three passes and
// minSeconds, and returns the QPS -timing asks for (all queries over the
// wall time of every pass, or of the fastest pass) and the mean recall@k
// of the last pass.
func (f *benchBatchFlags) timeClients(queries *vec.Matrix, truth *dataset.GroundTruth, k, c int, minSeconds float64,
	search func(sub *vec.Matrix) ([][]engine.Result, error)) (batchPoint, error) {
	c = max(1, min(c, queries.N))
	res := make([][]engine.Result, queries.N)
	errs := make([]error, c)
	var elapsed time.Duration
	fastest := time.Duration(1<<63 - 1)
	passes := 0
	cpu0, okCPU := processCPU()
	for passes < 3 || elapsed.Seconds() < minSeconds {
		var wg sync.WaitGroup
		t0 := time.Now()
		for j := range c {
			lo, hi := j*queries.N/c, (j+1)*queries.N/c
			sub := &vec.Matrix{N: hi - lo, Dim: queries.Dim, Stride: queries.Stride, Data: queries.Data[lo*queries.Stride : hi*queries.Stride]}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := search(sub)
				copy(res[lo:hi], r)
				errs[j] = err
			}()
		}
		wg.Wait()
		el := time.Since(t0)
		elapsed += el
		fastest = min(fastest, el)
		passes++
		if err := errors.Join(errs...); err != nil {
			return batchPoint{}, err
		}
	}
	cpu1, _ := processCPU()
	p := batchPoint{clients: c, qps: f.pick(float64(passes*queries.N)/elapsed.Seconds(), float64(queries.N)/fastest.Seconds())}
	if okCPU && cpu1 > cpu0 {
		p.cpuQPS = float64(passes*queries.N) / (cpu1 - cpu0).Seconds()
	}
	for i := range res {
		p.recall += metrics.Recall(res[i], truth.At(i, k), k)
	}
	p.recall /= float64(queries.N)
	return p, nil
}

func runBenchBatch(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchBatch(args, stderr)
	if err != nil {
		return err
	}
	_, err = benchBatch(f, stdout, stderr)
	return err
}

// batchRatio is one ratio line of bench batch: veclab's QPS over the
// peer's for one system at one client count (ok false: a side did not
// reach the recall target).
type batchRatio struct {
	system  string // "flat", "hnsw" or "ivf"
	clients int
	ratio   float64
	ok      bool
	line    string
}

// benchBatch runs bench batch with parsed flags, prints its report and
// returns the ratios.
func benchBatch(f *benchBatchFlags, stdout, stderr io.Writer) ([]batchRatio, error) {
	var err error
	t0 := time.Now()
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.k, "")
	if err != nil {
		return nil, err
	}
	ds, truth := bd.ds, bd.truth
	if f.nlist == 0 {
		f.nlist = max(1, int(sqrtInt(ds.Base.N)))
	}
	fmt.Fprintf(stdout, "data set: %s; %s, recall@%d; %d queries per batch; %d worker goroutines / threads per batch call on every side (engine.Cores() = %d); kernels %s; load average %s\n",
		bd.desc, bd.metric, f.k, ds.Queries.N, f.threads, engine.Cores(), vec.KernelName(), bench.LoadAverage())
	fmt.Fprintf(stdout, "c clients start together, each sending its 1/c of the queries as one batch call; QPS = all queries / wall time until the last client is done (timing %s). With more clients than cores (here %d), the clients' worker pools share the cores: 4 and 8 clients measure oversubscription, not more hardware.\n", f.timing, engine.Cores())

	dir, err := os.MkdirTemp("", "veclab-bench-batch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files, err := dataset.WriteDir(dir, ds, truth)
	if err != nil {
		return nil, err
	}
	var hbin string
	if f.has("hnswlib") {
		if hbin, err = buildHnswlibHarness(f.peerSrc, dir); err != nil {
			return nil, err
		}
	}
	if f.has("faiss") {
		if err := faiss.Available(f.python); err != nil {
			return nil, err
		}
	}
	queries := ds.Queries

	// Exact search.
	fx, err := flat.New(ds.Base, flat.Config{Metric: bd.metric, Workers: f.threads})
	if err != nil {
		return nil, err
	}
	var flatPts []batchPoint
	for _, c := range f.clients {
		p, err := f.timeClients(queries, truth, f.k, c, f.minSeconds, func(sub *vec.Matrix) ([][]engine.Result, error) {
			return fx.SearchBatch(sub, f.k, nil)
		})
		if err != nil {
			return nil, err
		}
		flatPts = append(flatPts, p)
	}

	// HNSW, built as bench hnsw builds it (hnswlib's policy and level seed).
	fmt.Fprintf(stderr, "bench batch: building HNSW M=%d efConstruction=%d…\n", f.m, f.efc)
	cfg := hnsw.HnswlibConfig(ds.Base.Dim, bd.metric, f.m, f.efc)
	cfg.Seed, cfg.Workers = f.graphSeed, f.threads
	hx, err := hnsw.New(cfg)
	if err != nil {
		return nil, err
	}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := hx.AddBatch(keys, ds.Base); err != nil {
		return nil, err
	}
	var hnswPts []batchPoint
	for _, c := range f.clients {
		for _, ef := range f.ef {
			p, err := f.timeClients(queries, truth, f.k, c, f.minSeconds, func(sub *vec.Matrix) ([][]engine.Result, error) {
				return hx.SearchBatchWorkers(context.Background(), sub, f.k, ef, nil, f.threads)
			})
			if err != nil {
				return nil, err
			}
			p.param = ef
			hnswPts = append(hnswPts, p)
		}
	}

	// IVF-Flat, trained as FAISS trains (random initial sample, the same
	// iterations and sample cap).
	fmt.Fprintf(stderr, "bench batch: training IVF nlist=%d…\n", f.nlist)
	ix, err := ivf.Build(ds.Base, ivf.Config{Nlist: f.nlist, Metric: bd.metric, Iters: f.iters, RandomInit: true, Seed: 1234})
	if err != nil {
		return nil, err
	}
	var ivfPts []batchPoint
	for _, c := range f.clients {
		for _, p := range f.nprobe {
			pt, err := f.timeClients(queries, truth, f.k, c, f.minSeconds, func(sub *vec.Matrix) ([][]engine.Result, error) {
				return ix.SearchBatchWorkers(context.Background(), sub, ivf.SearchOptions{K: f.k, Nprobe: p}, f.threads)
			})
			if err != nil {
				return nil, err
			}
			pt.param = p
			ivfPts = append(ivfPts, pt)
		}
	}
	fmt.Fprintf(stdout, "veclab measured (load average %s)\n", bench.LoadAverage())

	// Peers, after ours, on the same files.
	var hl *hnswlibResult
	if hbin != "" {
		fmt.Fprintf(stderr, "bench batch: running hnswlib…\n")
		efs := make([]string, len(f.ef))
		for i, e := range f.ef {
			efs[i] = strconv.Itoa(e)
		}
		cls := make([]string, len(f.clients))
		for i, c := range f.clients {
			cls[i] = strconv.Itoa(c)
		}
		cmd := exec.Command(hbin, "-base", files.Base, "-query", files.Queries, "-truth", files.Truth,
			"-metric", bd.metric.String(), "-m", strconv.Itoa(f.m), "-efc", strconv.Itoa(f.efc),
			"-threads", strconv.Itoa(f.threads), "-ef", strings.Join(efs, ","), "-k", strconv.Itoa(f.k),
			// One pass of its one-query sweep (not reported here); the batch
			// points get -min-seconds as ours do.
			"-seed", strconv.FormatUint(f.graphSeed, 10), "-min-seconds", "0",
			"-clients", strings.Join(cls, ","), "-batch-threads", strconv.Itoa(f.threads),
			"-batch-min-seconds", strconv.FormatFloat(f.minSeconds, 'g', -1, 64))
		hl, err = runHarness(cmd)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "hnswlib measured (load average %s)\n", bench.LoadAverage())
	}
	var fr *faiss.BatchResult
	if f.has("faiss") {
		fmt.Fprintf(stderr, "bench batch: running FAISS…\n")
		fr, err = faiss.RunBatch(context.Background(), faiss.BatchRequest{Python: f.python, Base: files.Base, Query: files.Queries,
			Truth: files.Truth, Nlist: f.nlist, Niter: f.iters, Nprobe: f.nprobe, Clients: f.clients, Threads: f.threads,
			Metric: bd.metric, K: f.k, Seed: 1234, MinSeconds: f.minSeconds})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "FAISS measured (load average %s): faiss %s (%s) — %s\n", bench.LoadAverage(), fr.FaissVersion, fr.CompileOptions, fr.Note)
	}

	var faissFlat, hnswlibPts, faissIVF []batchPoint
	if hl != nil {
		for _, p := range hl.Batch {
			hnswlibPts = append(hnswlibPts, batchPoint{clients: p.Clients, param: p.Ef, recall: p.Recall, qps: f.pick(p.QPS, p.BestQPS), cpuQPS: p.CPUQPS})
		}
	}
	if fr != nil {
		for _, p := range fr.Flat {
			faissFlat = append(faissFlat, batchPoint{clients: p.Clients, recall: p.Recall, qps: f.pick(p.QPS, p.BestQPS), cpuQPS: p.CPUQPS})
		}
		for _, p := range fr.IVF {
			faissIVF = append(faissIVF, batchPoint{clients: p.Clients, param: p.Nprobe, recall: p.Recall, qps: f.pick(p.QPS, p.BestQPS), cpuQPS: p.CPUQPS})
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nsystem\tclients\tef/nprobe\trecall@%d\tQPS\tCPU-QPS\t\n", f.k)
	for _, sys := range []struct {
		name string
		pts  []batchPoint
	}{{"veclab flat", flatPts}, {"FAISS IndexFlat", faissFlat}, {"veclab HNSW", hnswPts}, {"hnswlib knn_query", hnswlibPts},
		{"veclab IVF-Flat", ivfPts}, {"FAISS IndexIVFFlat", faissIVF}} {
		for _, p := range sys.pts {
			param := "-"
			if p.param > 0 {
				param = strconv.Itoa(p.param)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.0f\t%.0f\t\n", sys.name, p.clients, param, p.recall, p.qps, p.cpuQPS)
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "QPS: all queries over wall time (%s); CPU-QPS: all queries over the process CPU time of the same passes (every thread; it leaves out time other processes held the cores)\n", f.timing)

	fmt.Fprintln(stdout)
	var all []batchRatio
	for _, c := range f.clients {
		for _, r := range batchRatios(f, c, flatPts, faissFlat, hnswPts, hnswlibPts, ivfPts, faissIVF, hl != nil, fr != nil) {
			fmt.Fprintln(stdout, r.line)
			all = append(all, r)
		}
	}
	fmt.Fprintf(stdout, "total %.1f s (load average %s)\n", time.Since(t0).Seconds(), bench.LoadAverage())
	return all, nil
}

// batchRatios returns the ratio lines of one client count: exact search
// against FAISS IndexFlat (recall 1 on both sides), HNSW against hnswlib
// and IVF against FAISS IndexIVFFlat at recall f.target (interpolated along
// each side's sweep at that client count), by wall-time QPS and by CPU-QPS.
func batchRatios(f *benchBatchFlags, c int, flatPts, faissFlat, hnswPts, hnswlibPts, ivfPts, faissIVF []batchPoint, haveHnswlib, haveFaiss bool) []batchRatio {
	sweep := func(pts []batchPoint, cpu bool) []metrics.Point {
		var out []metrics.Point
		for _, p := range pts {
			if p.clients == c {
				q := p.qps
				if cpu {
					q = p.cpuQPS
				}
				out = append(out, metrics.Point{Label: strconv.Itoa(p.param), Param: float64(p.param), Recall: p.recall, QPS: q})
			}
		}
		return out
	}
	at := func(system string, ours, theirs []batchPoint, what string, exact bool) batchRatio {
		r := batchRatio{system: system, clients: c, ok: true}
		var parts []string
		for _, cpu := range []bool{false, true} {
			a, b := sweep(ours, cpu), sweep(theirs, cpu)
			var qa, qb float64
			okA, okB := len(a) > 0, len(b) > 0
			if exact && okA && okB {
				qa, qb = a[0].QPS, b[0].QPS
			} else {
				qa, okA = metrics.QPSAtRecall(a, f.target)
				qb, okB = metrics.QPSAtRecall(b, f.target)
			}
			kind := map[bool]string{false: "QPS", true: "CPU-QPS"}[cpu]
			if !okA || !okB || qb <= 0 {
				if !cpu {
					r.ok = false
				}
				parts = append(parts, fmt.Sprintf("%s not compared (veclab %t, peer %t)", kind, okA, okB))
				continue
			}
			if !cpu {
				r.ratio = qa / qb
			}
			parts = append(parts, fmt.Sprintf("%s veclab %.0f / %.0f = %.2f", kind, qa, qb, qa/qb))
		}
		cond := fmt.Sprintf("at recall %.2f", f.target)
		if exact {
			cond = "(recall 1 on both sides)"
		}
		r.line = fmt.Sprintf("%d client(s): %s %s: %s (target ≥ 1.0)", c, what, cond, strings.Join(parts, "; "))
		return r
	}
	var lines []batchRatio
	if haveFaiss {
		lines = append(lines, at("flat", flatPts, faissFlat, "exact batch vs FAISS IndexFlat", true))
	}
	if haveHnswlib {
		lines = append(lines, at("hnsw", hnswPts, hnswlibPts, "HNSW batch vs hnswlib knn_query", false))
	}
	if haveFaiss {
		lines = append(lines, at("ivf", ivfPts, faissIVF, "IVF-Flat batch vs FAISS IndexIVFFlat", false))
	}
	return lines
}

func sqrtInt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// runHarness runs a peer harness command and decodes its JSON.
func runHarness(cmd *exec.Cmd) (*hnswlibResult, error) {
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", filepath.Base(cmd.Path), err, strings.TrimSpace(errb.String()))
	}
	var r hnswlibResult
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		return nil, fmt.Errorf("%s output: %v: %q", filepath.Base(cmd.Path), err, out.String())
	}
	return &r, nil
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
