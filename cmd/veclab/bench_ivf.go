package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"golang.org/x/sys/unix"
)

func init() {
	register(&command{
		name:    "bench ivf",
		summary: "IVF recall@10/@100 vs QPS by nprobe and visit %, codes of 1/2/4/8 bits, rescoring from disk (warm/cold, sequential/concurrent), FAISS peer",
		run:     runBenchIVF,
	})
}

// ivfBench holds the parsed flags.
type ivfBench struct {
	data                      string        // -data: a real set's name or directory; "" generates
	metric                    engine.Metric // the data set's
	n, queries, dim, clusters int
	seed                      uint64
	nlist, iters, workers     int
	bits                      []int
	nprobe                    []int
	visit                     []float64
	oversample                float64
	peerOversample            []float64
	spill                     bool
	hier                      bool
	global                    bool
	randomInit                bool
	conc                      int
	ioBits                    int
	model                     store.Model
	dir                       string
	peer                      string
	python                    string
	warmup                    int
}

func runBenchIVF(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench ivf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b ivfBench
	fs.IntVar(&b.n, "n", dataset.DefaultN, "base vectors")
	fs.IntVar(&b.queries, "queries", dataset.DefaultQueries, "queries")
	fs.IntVar(&b.dim, "dim", dataset.DefaultDim, "dimensions")
	fs.IntVar(&b.clusters, "clusters", dataset.DefaultClusters, "generator clusters")
	fs.Uint64Var(&b.seed, "seed", 0, "data set and index seed")
	fs.IntVar(&b.nlist, "nlist", 0, "IVF lists; 0 = n/384 (DiskBBQ cluster_size)")
	fs.IntVar(&b.iters, "iters", 10, "k-means iterations, both sides (FAISS IndexIVF's default niter is 10)")
	fs.IntVar(&b.workers, "workers", 1, "build goroutines (1 = single-threaded, as the FAISS peer)")
	bitsS := fs.String("bits", "0,1,2,4,8", "posting-list codes to sweep: 0 = float32 lists, else OSQ bits")
	nprobeS := fs.String("nprobe", "1,2,4,8,16,32", "nprobe sweep")
	visitS := fs.String("visit", "1,2,3,5,10,20", "visit-percentage sweep (Elasticsearch visit_percentage)")
	fs.Float64Var(&b.oversample, "oversample", 3, "rescore oversample for quantized lists (Elasticsearch's BBQ default 3)")
	peerOS := fs.String("peer-oversample", "3,5,10,15,20", "rescore oversample sweep of the 1/2/4-bit lists in the FAISS comparison (each with every -nprobe)")
	fs.BoolVar(&b.spill, "spill", false, "SOAR spilled second assignment")
	fs.BoolVar(&b.global, "global-centroid", false, "quantize every list around the data mean (query encoded once) instead of its own centroid (DiskBBQ)")
	fs.BoolVar(&b.hier, "hierarchical", false, "DiskBBQ hierarchical k-means (cluster size 384) instead of flat k-means with -nlist")
	fs.BoolVar(&b.randomInit, "random-init", false, "k-means random-sample init (FAISS) instead of k-means++")
	fs.IntVar(&b.conc, "conc", 16, "in-flight reads for concurrent rescoring")
	fs.IntVar(&b.ioBits, "io-bits", 2, "codes used for the I/O-mode table (DiskBBQ article: 2 bits)")
	modelS := fs.String("model", "gp3", "simulated storage profile for the I/O table: off, nvme, gp3, io2")
	fs.StringVar(&b.dir, "dir", "", "working directory for the vector file and .fvecs (default: a temporary directory, removed)")
	fs.StringVar(&b.peer, "peer", "", "run a peer on the same data: faiss")
	fs.StringVar(&b.python, "python", faiss.DefaultPython, "Python interpreter with faiss")
	fs.IntVar(&b.warmup, "warmup", 20, "untimed warm-up queries before each timed run")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if b.data = *data; b.data != "" && !flagSet(fs, "queries") {
		b.queries = 0 // all of the real set's queries
	}
	var err error
	if b.bits, err = bench.ParseInts("-bits", *bitsS); err != nil {
		return err
	}
	if b.nprobe, err = bench.ParseInts("-nprobe", *nprobeS); err != nil {
		return err
	}
	if b.visit, err = bench.ParseFloats("-visit", *visitS); err != nil {
		return err
	}
	if b.peerOversample, err = bench.ParseFloats("-peer-oversample", *peerOS); err != nil {
		return err
	}
	if b.model, err = store.ParseModel(*modelS); err != nil {
		return fmt.Errorf("-model: %w", err)
	}
	if b.peer != "" && b.peer != "faiss" {
		return fmt.Errorf("-peer %q: only faiss is a peer of bench ivf: %w", b.peer, engine.ErrInvalidArgument)
	}
	if b.data == "" && (b.queries < 1 || b.n < 1) {
		return fmt.Errorf("-n %d and -queries %d must be positive: %w", b.n, b.queries, engine.ErrInvalidArgument)
	}
	return b.run(stdout)
}

// threadCPU returns the CPU time consumed by the calling OS thread; callers
// hold runtime.LockOSThread. CPU time stays comparable when other jobs load
// the machine, where wall time measures the scheduler as much as the code.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// trainTimed trains an index single-threaded-timed: wall and thread CPU of
// ivf.Train (CPU only meaningful with Workers = 1), then fills it.
func trainTimed(data *dataset.Dataset, cfg ivf.Config) (*ivf.Index, time.Duration, time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := threadCPU(), time.Now()
	ix, err := ivf.Train(data.Base, cfg)
	wall, cpu := time.Since(t0), threadCPU()-c0
	if err != nil {
		return nil, 0, 0, err
	}
	if err := ix.Add(data.Base); err != nil {
		return nil, 0, 0, err
	}
	return ix, wall, cpu, nil
}

// ivfRun is one measured sweep point.
type ivfRun struct {
	label          string
	param          float64
	recall10       float64
	recall100      float64
	qps            float64
	cpuQPS         float64 // queries per second of thread CPU; 0 when reads ran on other goroutines
	p50            time.Duration
	lists, scanned float64 // per query
	nq             int
	io             store.IOStats // totals over the timed queries
}

func (b *ivfBench) run(w io.Writer) error {
	t0 := time.Now()
	bd, err := loadBenchData(b.data, dataset.Config{N: b.n, Queries: b.queries, Dim: b.dim, Clusters: b.clusters, Seed: b.seed}, b.queries, min(100, b.n), "")
	if err != nil {
		return err
	}
	ds, truth := bd.ds, bd.truth
	b.metric, b.n, b.queries, b.dim = bd.metric, ds.Base.N, ds.Queries.N, ds.Base.Dim
	dir := b.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "veclab-bench-ivf"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vpath := filepath.Join(dir, "vectors.vec")
	os.Remove(vpath)
	if err := store.WriteMatrix(vpath, ds.Base, b.metric); err != nil {
		return err
	}
	warm, err := store.Open(vpath, store.Options{})
	if err != nil {
		return err
	}
	defer warm.Close()
	if _, err := warm.Warm(); err != nil {
		return err
	}
	nlist := b.nlist
	if nlist == 0 {
		nlist = max(1, int(math.Round(float64(b.n)/ivf.DefaultClusterSize)))
	}
	if bd.real == nil {
		fmt.Fprintf(w, "veclab bench ivf — %d×%d unit vectors (%d clusters, seed %d), %d queries (+%d warm-up), cosine; truth by exact search in %v\n",
			b.n, b.dim, b.clusters, b.seed, b.queries, b.warmup, time.Since(t0).Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "veclab bench ivf — %s (+%d warm-up); truth from the set's cache or exact search in %v\n",
			bd.desc, b.warmup, time.Since(t0).Round(time.Millisecond))
	}
	fmt.Fprintf(w, "machine: %s/%s, GOMAXPROCS %d, searches single-threaded; other jobs may share the CPU\n", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	if b.hier {
		fmt.Fprintf(w, "IVF lists from hierarchical k-means (DiskBBQ, target %d vectors per list); ", ivf.DefaultClusterSize)
	}
	centring := "each list's centroid (DiskBBQ)"
	if b.global {
		centring = "the data mean"
	}
	fmt.Fprintf(w, "codes: OSQ around %s, 4-bit query codes for ≤ 4-bit lists\n", centring)
	fmt.Fprintf(w, "IVF: nlist %d, %d k-means iterations, spill %t, build workers %d; quantized lists rescore ⌈k·%g⌉ candidates from the on-disk vector file (warm cache, sequential reads through its mapping, one mincore probe per cluster of rows)\n",
		nlist, b.iters, b.spill, b.workers, b.oversample)
	fmt.Fprintf(w, "vector file: %s, %.1f MB (%.0f B/vector incl. per-row CRC)\n\n", "vectors.vec", float64(warm.Size())/1e6, warm.BytesPerVector())

	seq, err := rescore.New(warm, b.metric, rescore.Options{})
	if err != nil {
		return err
	}
	indexes := map[int]*ivf.Index{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "codes\tlists\ttrain wall\ttrain CPU\tassign\tencode\tspilled\tresident B/vec\tcodes B/vec\tdisk B/vec\t")
	for _, bits := range b.bits {
		cfg := ivf.Config{Nlist: nlist, Metric: b.metric, Bits: bits, Spill: b.spill, GlobalCentroid: b.global,
			Iters: b.iters, RandomInit: b.randomInit, Seed: b.seed, Workers: b.workers}
		if b.hier {
			cfg.Nlist, cfg.Hierarchical = 0, true
		}
		ix, wall, cpu, err := trainTimed(ds, cfg)
		if err != nil {
			return fmt.Errorf("build %s: %w", codesName(bits), err)
		}
		indexes[bits] = ix
		bs, fp := ix.BuildStats(), ix.Footprint()
		disk := 0.0
		if bits > 0 {
			fp = ix.FootprintWith(warm)
			disk = float64(fp.Disk) / float64(fp.Vectors)
		}
		cpuS := "-"
		if b.workers == 1 {
			cpuS = cpu.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%s\t%v\t%v\t%d\t%.1f\t%.1f\t%.0f\t\n", codesName(bits), ix.Nlist(), wall.Round(time.Millisecond), cpuS,
			bs.AssignTime.Round(time.Millisecond), bs.EncodeTime.Round(time.Millisecond), bs.Spilled, fp.PerVector(),
			float64(fp.Codes)/float64(fp.Vectors), disk)
	}
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "codes\tsearch\trecall@10\trecall@100\tQPS(k=10)\tCPU-QPS\tp50 ms\tlists/q\tscanned/q\treads/q\tcache-served\t")
	for _, bits := range b.bits {
		ix := indexes[bits]
		var rs *rescore.Rescorer
		if bits > 0 {
			rs = seq
		}
		for _, p := range b.nprobe {
			r, err := b.measure(ix, ds, truth, ivf.SearchOptions{Nprobe: p, Oversample: b.oversample, Rescorer: rs}, nil)
			if err != nil {
				return err
			}
			r.label, r.param = fmt.Sprintf("nprobe=%d", p), float64(p)
			printRun(tw, codesName(bits), r)
		}
		for _, v := range b.visit {
			r, err := b.measure(ix, ds, truth, ivf.SearchOptions{VisitPercentage: v, Oversample: b.oversample, Rescorer: rs}, nil)
			if err != nil {
				return err
			}
			r.label, r.param = fmt.Sprintf("visit=%g%%", v), v
			printRun(tw, codesName(bits), r)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)

	if ix := indexes[b.ioBits]; ix != nil && b.ioBits > 0 {
		if err := b.ioTable(w, ix, ds, truth, vpath); err != nil {
			return err
		}
	}
	if b.peer == "faiss" {
		// The comparison prints no page-cache counters: its file
		// rescorer reads without the lab's mincore probe (a system call
		// per cluster of rows that no engine makes), still one
		// CRC-checked row per candidate from the warm file.
		noProbe, err := store.Open(vpath, store.Options{NoCacheProbe: true})
		if err != nil {
			return err
		}
		defer noProbe.Close()
		if _, err := noProbe.Warm(); err != nil { // also fills its mapping's page tables
			return err
		}
		fileRS, err := rescore.New(noProbe, b.metric, rescore.Options{})
		if err != nil {
			return err
		}
		return b.faissPeer(w, ds, truth, dir, nlist, fileRS)
	}
	return nil
}

func codesName(bits int) string {
	if bits == 0 {
		return "float32"
	}
	return fmt.Sprintf("osq-%dbit", bits)
}

func cpuQPSString(q float64) string {
	if q == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", q)
}

func printRun(tw io.Writer, codes string, r ivfRun) {
	reads, served := "-", "-"
	if r.io.Reads > 0 {
		reads = fmt.Sprintf("%.1f", float64(r.io.Reads)/float64(r.nq))
		served = fmt.Sprintf("%.3f", r.io.CacheHitRatio())
	}
	fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.0f\t%s\t%.3f\t%.1f\t%.0f\t%s\t%s\t\n", codes, r.label, r.recall10, r.recall100, r.qps,
		cpuQPSString(r.cpuQPS), float64(r.p50.Microseconds())/1000, r.lists, r.scanned, reads, served)
}

// measure runs the timed k = 10 pass (after warm-up) and an untimed k = 100
// pass for recall@100. before, if set, runs untimed before every timed
// query (cache eviction).
func (b *ivfBench) measure(ix *ivf.Index, ds *dataset.Dataset, truth *dataset.GroundTruth, opt ivf.SearchOptions, before func() error) (ivfRun, error) {
	var r ivfRun
	nq := ds.Queries.N
	opt.K = min(10, ix.Len())
	for i := 0; i < min(b.warmup, nq); i++ {
		if _, _, err := ix.SearchWith(ds.Queries.Row(i), opt); err != nil {
			return r, err
		}
	}
	lat := make([]time.Duration, 0, nq)
	var total, cpu time.Duration
	var st ivf.Stats
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < nq; i++ {
		if before != nil {
			if err := before(); err != nil {
				return r, err
			}
		}
		c0, start := threadCPU(), time.Now()
		res, s, err := ix.SearchWith(ds.Queries.Row(i), opt)
		el := time.Since(start)
		cpu += threadCPU() - c0
		if err != nil {
			return r, err
		}
		lat = append(lat, el)
		total += el
		st.Add(s)
		r.recall10 += metrics.Recall(res, truth.At(i, 10), 10)
	}
	r.recall10 /= float64(nq)
	r.qps = metrics.QPS(nq, total)
	if opt.Rescorer == nil || opt.Rescorer.Options().Concurrency <= 1 {
		r.cpuQPS = metrics.QPS(nq, cpu)
	}
	r.p50 = metrics.Quantile(lat, 0.5)
	r.lists = float64(st.ListsProbed) / float64(nq)
	r.scanned = float64(st.Scanned) / float64(nq)
	r.io = st.Rescore.IO
	r.nq = nq
	k100 := min(100, ix.Len())
	opt.K = k100
	for i := 0; i < nq; i++ {
		res, _, err := ix.SearchWith(ds.Queries.Row(i), opt)
		if err != nil {
			return r, err
		}
		r.recall100 += metrics.Recall(res, truth.At(i, k100), k100)
	}
	r.recall100 /= float64(nq)
	return r, nil
}

// ioTable reruns one visit percentage of the ioBits index with the rescore
// reads served every way the lab can serve them (E13, E15, E26).
func (b *ivfBench) ioTable(w io.Writer, ix *ivf.Index, ds *dataset.Dataset, truth *dataset.GroundTruth, vpath string) error {
	// Pick the smallest visit percentage reaching recall@10 ≥ 0.95 with
	// warm sequential rescoring, else the smallest reaching the best recall
	// the sweep achieves.
	warm, err := store.Open(vpath, store.Options{})
	if err != nil {
		return err
	}
	defer warm.Close()
	warm.Warm()
	seq, _ := rescore.New(warm, b.metric, rescore.Options{})
	visit, best := 0.0, -1.0
	for _, v := range slices.Sorted(slices.Values(b.visit)) {
		r, err := b.measure(ix, ds, truth, ivf.SearchOptions{VisitPercentage: v, Oversample: b.oversample, Rescorer: seq}, nil)
		if err != nil {
			return err
		}
		if r.recall10 > best+1e-9 {
			visit, best = v, r.recall10
		}
		if r.recall10 >= 0.95 {
			break
		}
	}
	if visit == 0 {
		return nil
	}
	fmt.Fprintf(w, "rescoring I/O, %s lists, visit=%g%%, oversample %g (k=10): every mode reads the same vectors; \"cold\" evicts the file's pages (fsync + posix_fadvise DONTNEED, checked by mincore) before every query, untimed\n",
		codesName(b.ioBits), visit, b.oversample)
	direct, err := store.Open(vpath, store.Options{Direct: true})
	if err != nil {
		return err
	}
	defer direct.Close()
	type mode struct {
		name   string
		file   *store.File
		conc   int
		before func() error
	}
	evict := func(f *store.File) func() error {
		return func() error {
			left, err := f.Evict()
			if err == nil && left != 0 {
				err = fmt.Errorf("%d pages of %s still cached after eviction", left, f.Path())
			}
			return err
		}
	}
	cold, err := store.Open(vpath, store.Options{})
	if err != nil {
		return err
	}
	defer cold.Close()
	modes := []mode{
		{"warm page cache, sequential", warm, 1, nil},
		{fmt.Sprintf("warm page cache, concurrent(%d)", b.conc), warm, b.conc, nil},
		{"cold page cache, sequential", cold, 1, evict(cold)},
		{fmt.Sprintf("cold page cache, concurrent(%d)", b.conc), cold, b.conc, evict(cold)},
		{"O_DIRECT, sequential", direct, 1, nil},
		{fmt.Sprintf("O_DIRECT, concurrent(%d)", b.conc), direct, b.conc, nil},
	}
	if b.model.Enabled() {
		sim, err := store.Open(vpath, store.Options{Direct: true, Model: b.model})
		if err != nil {
			return err
		}
		defer sim.Close()
		modes = append(modes,
			mode{b.model.String() + ", sequential", sim, 1, nil},
			mode{fmt.Sprintf("%s, concurrent(%d)", b.model, b.conc), sim, b.conc, nil})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "reads served by\trecall@10\tQPS\tCPU-QPS\tp50 ms\treads/q\tKB/q\tcache-served\tdevice reads/q\t")
	var readsPerQ float64
	for _, m := range modes {
		rs, err := rescore.New(m.file, b.metric, rescore.Options{Concurrency: m.conc})
		if err != nil {
			return err
		}
		r, err := b.measure(ix, ds, truth, ivf.SearchOptions{VisitPercentage: visit, Oversample: b.oversample, Rescorer: rs}, m.before)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		nq := float64(r.nq)
		readsPerQ = float64(r.io.Reads) / nq
		fmt.Fprintf(tw, "%s\t%.3f\t%.0f\t%s\t%.3f\t%.1f\t%.1f\t%.3f\t%.1f\t\n", m.name, r.recall10, r.qps, cpuQPSString(r.cpuQPS), float64(r.p50.Microseconds())/1000,
			readsPerQ, float64(r.io.Bytes)/nq/1024, r.io.CacheHitRatio(), float64(r.io.DeviceReads())/nq)
	}
	tw.Flush()
	if err := b.diskListsTable(w, ix, ds, truth, vpath, visit); err != nil {
		return err
	}
	// E13: the I/O budget at the measured reads per query.
	fmt.Fprintf(w, "E13 budget at %.1f measured reads/query: 100 QPS needs %.0f IOPS; a gp3 baseline volume (3,000 IOPS) caps rescoring at %.0f QPS if no read is served from the page cache\n\n",
		readsPerQ, 100*readsPerQ, 3000/math.Max(readsPerQ, 1e-9))
	return nil
}

// diskListsTable rebuilds the I/O table's index with its posting lists on
// disk (E27: the index itself no longer in RAM): every probed list is one
// pread, and rescoring reads the vectors as before.
func (b *ivfBench) diskListsTable(w io.Writer, ref *ivf.Index, ds *dataset.Dataset, truth *dataset.GroundTruth, vpath string, visit float64) error {
	ix, err := ivf.Build(ds.Base, ref.Config())
	if err != nil {
		return err
	}
	lpath := filepath.Join(filepath.Dir(vpath), "lists.ivf")
	os.Remove(lpath)
	if err := ix.WriteLists(lpath); err != nil {
		return err
	}
	type mode struct {
		name string
		opt  store.Options
		cold bool
	}
	modes := []mode{
		{"lists and vectors warm", store.Options{}, false},
		{"lists and vectors cold", store.Options{}, true},
		{"lists and vectors O_DIRECT", store.Options{Direct: true}, false},
	}
	if b.model.Enabled() {
		modes = append(modes, mode{"both on " + b.model.String(), store.Options{Direct: true, Model: b.model}, false})
	}
	fmt.Fprintf(w, "\nE27, posting lists on disk (%s, visit=%g%%, oversample %g, sequential reads; \"cold\" evicts both files before every query, untimed):\n",
		codesName(b.ioBits), visit, b.oversample)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "reads served by\trecall@10\tQPS\tp50 ms\tlist reads/q\tlist KB/q\tlists cache-served\tvector reads/q\tvectors cache-served\t")
	for _, m := range modes {
		if err := ix.UseDiskLists(lpath, m.opt); err != nil {
			return err
		}
		vf, err := store.Open(vpath, m.opt)
		if err != nil {
			return err
		}
		lists := ix.ListFile()
		if !m.cold && !m.opt.Direct {
			lists.Warm()
			vf.Warm()
		}
		var before func() error
		if m.cold {
			before = func() error {
				if _, err := lists.Evict(); err != nil {
					return err
				}
				_, err := vf.Evict()
				return err
			}
		}
		rs, err := rescore.New(vf, b.metric, rescore.Options{})
		if err != nil {
			vf.Close()
			return fmt.Errorf("%s: %w", m.name, err)
		}
		r, lio, err := b.measureLists(ix, ds, truth, ivf.SearchOptions{VisitPercentage: visit, Oversample: b.oversample, Rescorer: rs}, before)
		vf.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		nq := float64(r.nq)
		fmt.Fprintf(tw, "%s\t%.3f\t%.0f\t%.3f\t%.1f\t%.1f\t%.3f\t%.1f\t%.3f\t\n", m.name, r.recall10, r.qps, float64(r.p50.Microseconds())/1000,
			float64(lio.Reads)/nq, float64(lio.Bytes)/nq/1024, lio.CacheHitRatio(), float64(r.io.Reads)/nq, r.io.CacheHitRatio())
	}
	tw.Flush()
	fp := ix.Footprint()
	fmt.Fprintf(w, "resident with lists on disk: %.1f B/vector (centroids, quantizers); list file %.1f MB, vector file %.1f MB\n\n",
		fp.PerVector(), float64(fp.ListsOnDisk)/1e6, float64(mustSize(vpath))/1e6)
	return ix.CloseLists()
}

func mustSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// measureLists is measure that also totals the posting-list reads.
func (b *ivfBench) measureLists(ix *ivf.Index, ds *dataset.Dataset, truth *dataset.GroundTruth, opt ivf.SearchOptions, before func() error) (ivfRun, store.IOStats, error) {
	var lio store.IOStats
	lists := ix.ListFile()
	lists.ResetStats()
	r, err := b.measure(ix, ds, truth, opt, before)
	if err != nil {
		return r, lio, err
	}
	// measure ran warm-up, timed and recall@100 passes; the timed pass's
	// list reads are those of its nq queries: recompute them on a clean pass.
	lists.ResetStats()
	for i := 0; i < ds.Queries.N; i++ {
		if before != nil {
			if err := before(); err != nil {
				return r, lio, err
			}
		}
		opt.K = min(10, ix.Len())
		_, st, err := ix.SearchWith(ds.Queries.Row(i), opt)
		if err != nil {
			return r, lio, err
		}
		lio.Add(st.ListIO)
	}
	return r, lio, nil
}

// printRatioLine writes one matched-recall ratio line: the fastest point
// of each sweep reaching target, by wall time and by CPU time.
func printRatioLine(tw io.Writer, name string, wall, cpu []metrics.Point, peer string, peerWall, peerCPU []metrics.Point, target float64) {
	a, okA := metrics.BestAt(wall, target)
	p, okP := metrics.BestAt(peerWall, target)
	ac, _ := metrics.BestAt(cpu, target)
	pc, _ := metrics.BestAt(peerCPU, target)
	switch {
	case !okA:
		fmt.Fprintf(tw, "%s\t%s\tnot reached\t\t\t\t\t\t\n", name, peer)
	case !okP:
		fmt.Fprintf(tw, "%s\t%s\t%.0f (%s)\tnot reached\t\t\t\t\t\n", name, peer, a.QPS, a.Label)
	default:
		fmt.Fprintf(tw, "%s\t%s\t%.0f (%s)\t%.0f (%s)\t%.2f\t%.0f (%s)\t%.0f (%s)\t%.2f\t\n", name, peer,
			a.QPS, a.Label, p.QPS, p.Label, a.QPS/p.QPS, ac.QPS, ac.Label, pc.QPS, pc.Label, ac.QPS/pc.QPS)
	}
}

func (b *ivfBench) faissPeer(w io.Writer, ds *dataset.Dataset, truth *dataset.GroundTruth, dir string, nlist int, rs *rescore.Rescorer) error {
	if err := faiss.Available(b.python); err != nil {
		return err
	}
	files, err := dataset.WriteDir(filepath.Join(dir, "fvecs"), ds, truth)
	if err != nil {
		return err
	}
	// Our like-for-like runs: float32 lists (IVFFlat), and 8-bit codes
	// scanned without rescoring (IVFSQ8 does not rescore either); then the
	// 1-, 2- and 4-bit lists of the sweep with rescoring (⌈k·oversample⌉
	// candidates from the warm vector file, oversample swept with nprobe:
	// low-bit codes need more than 3 to reach the target recall), the
	// configuration the lab would deploy, against FAISS's IVF-SQ8 at
	// matched recall.
	type side struct {
		wall, cpu []metrics.Point
		trainWall time.Duration
		trainCPU  time.Duration
		trained   int
	}
	// ours trains one index and measures it with each rescorer (nil: none).
	ours := func(bits int, rss []*rescore.Rescorer, oversample []float64) ([]side, error) {
		// FAISS's initialisation (a random sample), iterations and sample
		// cap, on one thread: the training times compare like for like.
		ix, wall, cpu, err := trainTimed(ds, ivf.Config{Nlist: nlist, Metric: b.metric, Bits: bits, Iters: b.iters,
			RandomInit: true, Seed: b.seed, Workers: 1})
		if err != nil {
			return nil, err
		}
		sides := make([]side, len(rss))
		for s, rs := range rss {
			sd := &sides[s]
			sd.trainWall, sd.trainCPU, sd.trained = wall, cpu, ix.BuildStats().Trained
			for _, ovs := range oversample {
				for _, p := range b.nprobe {
					r, err := b.measure(ix, ds, truth, ivf.SearchOptions{Nprobe: p, Oversample: ovs, Rescorer: rs}, nil)
					if err != nil {
						return nil, err
					}
					lbl := fmt.Sprintf("nprobe=%d", p)
					if rs != nil {
						lbl += fmt.Sprintf(" os=%g", ovs)
					}
					sd.wall = append(sd.wall, metrics.Point{Label: lbl, Param: float64(p), Recall: r.recall10, QPS: r.qps})
					sd.cpu = append(sd.cpu, metrics.Point{Label: lbl, Param: float64(p), Recall: r.recall10, QPS: r.cpuQPS})
				}
			}
		}
		return sides, nil
	}
	none := []*rescore.Rescorer{nil}
	sides, err := ours(0, none, []float64{1})
	if err != nil {
		return err
	}
	flat := sides[0]
	if sides, err = ours(8, none, []float64{1}); err != nil {
		return err
	}
	sq8 := sides[0]
	// The low-bit lists rescore from the warm vector file (the bench's
	// configuration: the float vectors are not resident; rows read through
	// the file's mapping, checksummed, no page-cache probe) and from RAM (the
	// float lists' and IVF-SQ8's residency, to compare the search itself).
	ram, err := rescore.New(rescore.NewSlab(ds.Base), b.metric, rescore.Options{})
	if err != nil {
		return err
	}
	sources := []string{"file", "RAM"}
	var lowBits []int
	lowSides := map[int][]side{}
	for _, bits := range b.bits {
		if bits >= 1 && bits <= 4 && lowSides[bits] == nil {
			sd, err := ours(bits, []*rescore.Rescorer{rs, ram}, b.peerOversample)
			if err != nil {
				return err
			}
			lowBits = append(lowBits, bits)
			lowSides[bits] = sd
		}
	}
	res, err := faiss.RunIVF(context.Background(), faiss.IVFRequest{Python: b.python, Base: files.Base, Query: files.Queries,
		Truth: files.Truth, Nlist: nlist, Niter: b.iters, Nprobe: b.nprobe, Metric: b.metric, K: 10, Seed: 1234})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "FAISS peer: faiss %s (%s) — %s; same data (.fvecs), nlist %d, %d iterations, nprobe sweep, k=10\n",
		res.FaissVersion, res.CompileOptions, res.Note, nlist, b.iters)
	fmt.Fprintf(w, "veclab's 1/2/4-bit rows rescore ⌈k·oversample⌉ candidates (oversample %v × every nprobe) from the warm vector file (read through its mapping, per-row CRC checked, no page-cache probe) or from RAM\n",
		b.peerOversample)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "index\tsetting\trecall@10\tQPS\tCPU-QPS\t")
	peerWall := map[string][]metrics.Point{}
	peerCPU := map[string][]metrics.Point{}
	for _, ix := range res.Indexes {
		for _, p := range ix.Sweep {
			lbl := fmt.Sprintf("nprobe=%d", p.Nprobe)
			fmt.Fprintf(tw, "FAISS %s\t%s\t%.3f\t%.0f\t%.0f\t\n", ix.Name, lbl, p.Recall, p.QPS, p.CPUQPS)
			peerWall[ix.Name] = append(peerWall[ix.Name], metrics.Point{Label: lbl, Param: float64(p.Nprobe), Recall: p.Recall, QPS: p.QPS})
			peerCPU[ix.Name] = append(peerCPU[ix.Name], metrics.Point{Label: lbl, Param: float64(p.Nprobe), Recall: p.Recall, QPS: p.CPUQPS})
		}
	}
	for i, p := range flat.wall {
		fmt.Fprintf(tw, "veclab float32 lists\t%s\t%.3f\t%.0f\t%.0f\t\n", p.Label, p.Recall, p.QPS, flat.cpu[i].QPS)
	}
	for i, p := range sq8.wall {
		fmt.Fprintf(tw, "veclab osq-8bit, no rescoring\t%s\t%.3f\t%.0f\t%.0f\t\n", p.Label, p.Recall, p.QPS, sq8.cpu[i].QPS)
	}
	for _, bits := range lowBits {
		for s, sd := range lowSides[bits] {
			for i, p := range sd.wall {
				fmt.Fprintf(tw, "veclab %s + rescoring (%s)\t%s\t%.3f\t%.0f\t%.0f\t\n", codesName(bits), sources[s], p.Label, p.Recall, p.QPS, sd.cpu[i].QPS)
			}
		}
	}
	tw.Flush()

	fmt.Fprintf(w, "\nsingle-threaded QPS at recall@10 ≥ 0.95 (best swept point reaching it), veclab / peer, by wall time and by CPU time (FAISS %s: %s):\n",
		res.FaissVersion, res.Note)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "veclab\tvs\tveclab QPS\tpeer QPS\twall ratio\tveclab CPU-QPS\tpeer CPU-QPS\tCPU ratio\t")
	compare := func(name string, sd side, peer string, pw, pc []metrics.Point) {
		printRatioLine(tw, name, sd.wall, sd.cpu, peer, pw, pc, 0.95)
	}
	flatName, sqName := res.Indexes[0].Name, res.Indexes[len(res.Indexes)-1].Name
	compare("float32 lists", flat, "FAISS "+flatName, peerWall[flatName], peerCPU[flatName])
	compare("osq-8bit, no rescoring", sq8, "FAISS "+sqName, peerWall[sqName], peerCPU[sqName])
	compare("float32 lists", flat, "FAISS "+sqName, peerWall[sqName], peerCPU[sqName])
	for s, src := range sources {
		for _, bits := range lowBits {
			compare(fmt.Sprintf("%s + rescoring (%s)", codesName(bits), src), lowSides[bits][s], "FAISS "+sqName, peerWall[sqName], peerCPU[sqName])
		}
	}
	for s, src := range sources {
		for _, bits := range lowBits {
			compare(fmt.Sprintf("%s + rescoring (%s)", codesName(bits), src), lowSides[bits][s], "veclab float32 lists", flat.wall, flat.cpu)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntraining (k-means, random-sample init, %d lists × %d iterations, %d sampled vectors, one thread; ratio veclab/FAISS, < 1 = veclab faster):\n", nlist, b.iters, flat.trained)
	fmt.Fprintf(w, "  veclab ivf.Train: wall %v, CPU %v\n", flat.trainWall.Round(time.Millisecond), flat.trainCPU.Round(time.Millisecond))
	fmt.Fprintf(w, "  FAISS Kmeans: wall %.3fs (ratio %.2f), CPU %.3fs (ratio %.2f)\n", res.KmeansS, flat.trainWall.Seconds()/res.KmeansS,
		res.KmeansCPU, flat.trainCPU.Seconds()/res.KmeansCPU)
	fi := res.Indexes[0]
	fmt.Fprintf(w, "  FAISS %s.train: wall %.3fs (ratio %.2f), CPU %.3fs (ratio %.2f)\n", fi.Name, fi.TrainS, flat.trainWall.Seconds()/fi.TrainS,
		fi.TrainCPU, flat.trainCPU.Seconds()/fi.TrainCPU)
	return nil
}
