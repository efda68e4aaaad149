package bench

import (
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivfpq"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// PQConfig says what [PQ] measures: product quantization (engine/quant's
// PQ, the flat ADC scan) and IVFADC (engine/ivfpq) beside FAISS's IndexPQ
// and IndexIVFPQ at the same M, bits, cells, iterations and data. Start
// from [DefaultPQConfig].
type PQConfig struct {
	M       []int  // sub-spaces swept (bytes per code at 8 bits)
	Bits    int    // bits per sub-space code (8: the paper's and FAISS's)
	Nlist   int    // IVF-PQ cells; 0 → round(√n); < 0 → no IVF-PQ
	Nprobes []int  // IVF-PQ nprobe sweep
	Iters   int    // k-means iterations, sub-spaces and coarse, both sides (FAISS's default 25)
	Seed    uint64 // seeds our k-means (FAISS gets it too; its k-means draws differently)
	K       int    // results per query (recall@K)
	Warmup  int    // untimed warm-up queries before each timed run
	Passes  int    // timed passes of every query per search, both sides; the fastest pass by each clock is kept
	Faiss   bool   // run the FAISS peer (bench/peers/faiss pq.py; python3-faiss)
	Python  string // interpreter with faiss ("": faiss.DefaultPython)
	Dir     string // working directory for the peer's .fvecs ("": a temporary one, removed)
}

// DefaultPQConfig is `veclab bench pq`'s defaults.
func DefaultPQConfig() PQConfig {
	return PQConfig{M: []int{8, 16, 32}, Bits: 8, Nprobes: []int{1, 4, 16}, Iters: 25, K: 10, Warmup: 20, Passes: 3, Python: faiss.DefaultPython}
}

// Validate reports every problem at once, naming each field by its flag
// of `veclab bench pq`.
func (c PQConfig) Validate() error {
	var bad []string
	if len(c.M) == 0 {
		bad = append(bad, "-m is empty")
	}
	for _, m := range c.M {
		if m < 1 {
			bad = append(bad, fmt.Sprintf("-m %d < 1", m))
		}
	}
	if c.Bits < 1 || c.Bits > 8 {
		bad = append(bad, fmt.Sprintf("-bits %d: want 1 to 8", c.Bits))
	}
	if c.Nlist >= 0 && len(c.Nprobes) == 0 {
		bad = append(bad, "-nprobe is empty")
	}
	for _, p := range c.Nprobes {
		if p < 1 {
			bad = append(bad, fmt.Sprintf("-nprobe %d < 1", p))
		}
	}
	if c.Iters < 1 || c.K < 1 || c.Warmup < 0 {
		bad = append(bad, fmt.Sprintf("-iters %d, -k %d, -warmup %d: want -iters, -k ≥ 1 and -warmup ≥ 0", c.Iters, c.K, c.Warmup))
	}
	if c.Passes < 1 {
		bad = append(bad, fmt.Sprintf("-passes %d < 1", c.Passes))
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: pq: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// PQRow is one index at one M (and nprobe, for IVF-PQ), ours beside
// FAISS's (the Faiss fields are zero without the peer).
type PQRow struct {
	Index       string  // "PQ" or "IVF-PQ"
	M, Nprobe   int     // Nprobe 0 for PQ
	Bytes       int     // code bytes per vector (FAISS's code_size beside ours)
	FaissBytes  int     //
	Recall      float64 // recall@K against the exact neighbours
	FaissRecall float64
	// FaissIPCellsRecall is, for IVF-PQ under Dot and Cosine, the recall
	// of FAISS's default IndexIVFPQ, whose cells k-means trains by inner
	// product (FaissRecall is then of its L2-k-means-cells variant, as ours).
	FaissIPCellsRecall float64
	QPS                float64 // one thread, wall clock
	FaissQPS           float64
	CPUQPS             float64 // one thread, over its CPU time
	FaissCPUQPS        float64
	Train              time.Duration // training, wall, one thread
	FaissTrain         time.Duration
	TrainCPU           time.Duration // training, CPU time of the thread (FAISS: of the process, one thread)
	FaissTrainCPU      time.Duration
	HasFaissData       bool
}

// PQReport is [PQ]'s result.
type PQReport struct {
	Config         PQConfig
	Data           string // the data set, one line
	N, Queries     int
	Dim, PaddedDim int // PaddedDim > Dim when zero components were appended so every M divides it
	Metric         engine.Metric
	Nlist          int
	Kernels        string
	GOMAXPROCS     int
	StartLoad      string
	EndLoad        string
	Faiss          string // FAISS's version, compile options and note
	Rows           []PQRow
}

// PQ measures product quantization on ds against truth (at least K
// neighbours per query), with the FAISS peer when cfg.Faiss. Our k-means
// starts from a random sample, as FAISS's (like for like: the engine's
// default k-means++ start is not FAISS's), and our training runs on one
// goroutine, as FAISS's on one thread (encoding the base is not timed).
// When some M does not divide the dimension (GloVe's
// 100 against M = 8, 16, 32), both sides get the vectors with zero
// components appended up to the next multiple of every M: distances and
// the truth are unchanged, and the report says so.
func PQ(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg PQConfig, label string, log io.Writer) (*PQReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ds == nil || ds.Base == nil || ds.Queries == nil || truth == nil || len(truth.IDs) < ds.Queries.N || truth.K < cfg.K {
		return nil, fmt.Errorf("bench: pq: a data set with queries and a truth of at least %d neighbours per query is needed: %w", cfg.K, engine.ErrInvalidArgument)
	}
	if log == nil {
		log = io.Discard
	}
	rep := &PQReport{Config: cfg, Data: label, N: ds.Base.N, Queries: ds.Queries.N, Dim: ds.Base.Dim, Metric: metric,
		Kernels: vec.KernelName(), GOMAXPROCS: runtime.GOMAXPROCS(0), StartLoad: LoadAverage()}
	l := 1
	for _, m := range cfg.M {
		l = lcm(l, m)
	}
	rep.PaddedDim = (ds.Base.Dim + l - 1) / l * l
	base, queries := pad(ds.Base, rep.PaddedDim), pad(ds.Queries, rep.PaddedDim)
	if cfg.Nlist == 0 {
		cfg.Nlist = max(1, int(math.Round(math.Sqrt(float64(base.N)))))
	}
	rep.Nlist = max(cfg.Nlist, 0)
	var peer *faiss.PQResult
	if cfg.Faiss {
		dir := cfg.Dir
		if dir == "" {
			d, err := os.MkdirTemp("", "veclab-bench-pq")
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(d)
			dir = d
		}
		pds := &dataset.Dataset{Config: ds.Config, Base: base, Queries: queries}
		files, err := dataset.WriteDir(filepath.Join(dir, "fvecs"), pds, truth)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "bench pq: FAISS IndexPQ/IndexIVFPQ on %d×%d…\n", base.N, base.Dim)
		peer, err = faiss.RunPQ(context.Background(), faiss.PQRequest{Python: cfg.Python, Base: files.Base, Query: files.Queries, Truth: files.Truth,
			M: cfg.M, Nbits: cfg.Bits, Nlist: rep.Nlist, Nprobe: cfg.Nprobes, Niter: cfg.Iters, Metric: metric, K: cfg.K, Seed: int(cfg.Seed), Warmup: cfg.Warmup, Passes: cfg.Passes})
		if err != nil {
			return nil, err
		}
		rep.Faiss = fmt.Sprintf("FAISS %s (%s): %s", peer.FaissVersion, strings.TrimSpace(peer.CompileOptions), peer.Note)
	}
	for _, m := range cfg.M {
		fmt.Fprintf(log, "bench pq: veclab PQ M=%d…\n", m)
		row, err := measurePQ(base, queries, truth, metric, cfg, m)
		if err != nil {
			return nil, err
		}
		if fi := peerIndex(peer, "IndexPQ", m); fi != nil {
			row.setFaiss(fi, fi.Sweep[0])
		}
		rep.Rows = append(rep.Rows, row)
		if rep.Nlist == 0 {
			continue
		}
		fmt.Fprintf(log, "bench pq: veclab IVF-PQ M=%d nlist=%d…\n", m, rep.Nlist)
		rows, err := measureIVFPQ(base, queries, truth, metric, cfg, m, rep.Nlist)
		if err != nil {
			return nil, err
		}
		// Like for like: FAISS's IVF-PQ with L2 k-means cells where its
		// default trains them by inner product (Dot, Cosine).
		like, ip := peerIndex(peer, "IndexIVFPQ(L2 k-means cells)", m), peerIndex(peer, "IndexIVFPQ", m)
		if like == nil {
			like, ip = ip, nil
		}
		for i := range rows {
			if like != nil {
				for _, p := range like.Sweep {
					if p.Nprobe == rows[i].Nprobe {
						rows[i].setFaiss(like, p)
					}
				}
			}
			if ip != nil {
				for _, p := range ip.Sweep {
					if p.Nprobe == rows[i].Nprobe {
						rows[i].FaissIPCellsRecall = p.Recall
					}
				}
			}
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	rep.EndLoad = LoadAverage()
	return rep, nil
}

func peerIndex(r *faiss.PQResult, name string, m int) *faiss.PQIndex {
	if r == nil {
		return nil
	}
	return r.Index(name, m)
}

func (r *PQRow) setFaiss(fi *faiss.PQIndex, p faiss.PQPoint) {
	r.HasFaissData = true
	r.FaissBytes = fi.CodeSize
	r.FaissRecall, r.FaissQPS, r.FaissCPUQPS = p.Recall, p.QPS, p.CPUQPS
	r.FaissTrain = time.Duration(fi.TrainS * float64(time.Second))
	r.FaissTrainCPU = time.Duration(fi.TrainCPU * float64(time.Second))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

// pad returns m with zero components appended up to dim (m itself when
// it has dim already).
func pad(m *vec.Matrix, dim int) *vec.Matrix {
	if m.Dim == dim {
		return m
	}
	out := vec.NewMatrix(m.N, dim)
	for i := 0; i < m.N; i++ {
		copy(out.Row(i), m.Row(i))
	}
	return out
}

// measurePQ trains a PQ on the whole base (k-means subsamples 256 per
// centroid, as FAISS), encodes it into a Store and times the flat ADC
// scan, one query at a time on this goroutine.
func measurePQ(base, queries *vec.Matrix, truth *dataset.GroundTruth, metric engine.Metric, cfg PQConfig, m int) (PQRow, error) {
	row := PQRow{Index: "PQ", M: m}
	var p *quant.PQ
	var err error
	row.Train, row.TrainCPU, err = trainTimedPQ(func() (err error) {
		p, err = quant.TrainPQ(base, metric, quant.PQConfig{M: m, Bits: cfg.Bits, Iters: cfg.Iters, Seed: cfg.Seed, RandomInit: true, Workers: 1})
		return err
	})
	if err != nil {
		return row, fmt.Errorf("bench: pq: M=%d: %w", m, err)
	}
	row.Bytes = p.CodeSize()
	s := quant.NewStore(p)
	s.Reserve(base.N)
	if err := parallelRows(base.N, func(i int) error {
		v := base.Row(i)
		if metric == engine.Cosine {
			v = slices.Clone(v)
			if err := vec.Normalize(v); err != nil {
				return err
			}
		}
		return s.Set(engine.ID(i), v)
	}); err != nil {
		return row, fmt.Errorf("bench: pq: M=%d: %w", m, err)
	}
	search := func(q []float32) ([]engine.Result, error) { return s.Search(q, cfg.K, nil) }
	row.Recall, row.QPS, row.CPUQPS, err = timeQueries(queries, truth, cfg, search)
	return row, err
}

// measureIVFPQ builds an IVFADC index with nlist cells and times each
// nprobe of the sweep.
func measureIVFPQ(base, queries *vec.Matrix, truth *dataset.GroundTruth, metric engine.Metric, cfg PQConfig, m, nlist int) ([]PQRow, error) {
	var ix *ivfpq.Index
	train, trainCPU, err := trainTimedPQ(func() (err error) {
		ix, err = ivfpq.Train(base, ivfpq.Config{Nlist: nlist, PQ: quant.PQConfig{M: m, Bits: cfg.Bits, Iters: cfg.Iters, RandomInit: true}, Metric: metric,
			Iters: cfg.Iters, RandomInit: true, Seed: cfg.Seed, Workers: 1})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bench: pq: IVF-PQ M=%d: %w", m, err)
	}
	if err := ix.Add(base); err != nil {
		return nil, err
	}
	var rows []PQRow
	for _, np := range cfg.Nprobes {
		row := PQRow{Index: "IVF-PQ", M: m, Nprobe: np, Bytes: ix.PQ().CodeSize(), Train: train, TrainCPU: trainCPU}
		search := func(q []float32) ([]engine.Result, error) { return ix.Search(q, cfg.K, np) }
		if row.Recall, row.QPS, row.CPUQPS, err = timeQueries(queries, truth, cfg, search); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// parallelRows runs fn for rows 0…n−1 on every core, stopping at the
// first error.
func parallelRows(n int, fn func(i int) error) error {
	w := engine.Cores()
	errs := make([]error, w)
	done := make(chan struct{})
	for g := 0; g < w; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := g; i < n; i += w {
				if err := fn(i); err != nil {
					errs[g] = fmt.Errorf("vector %d: %w", i, err)
					return
				}
			}
		}()
	}
	for range w {
		<-done
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// timeQueries runs the first Warmup queries untimed, then Passes timed
// passes of every query on one locked OS thread, and returns recall@K (of
// the first pass), QPS and CPU-QPS of the fastest pass by each clock (a
// loaded machine only ever slows a pass down), as pq.py times FAISS. The
// clocks, wall and the thread's CPU (the CPU figure stays comparable when
// other jobs load the machine), are read once around a pass and recall is
// scored after it, as pq.py does around one index.search of every query:
// a clock read per query would charge veclab, not FAISS, for the reads,
// and a thread CPU clock read is a system call, about 2 µs of CPU here
// against the 30 µs of a flat ADC query at M = 8.
func timeQueries(queries *vec.Matrix, truth *dataset.GroundTruth, cfg PQConfig, search func([]float32) ([]engine.Result, error)) (float64, float64, float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ids := make([][]engine.ID, queries.N)
	for i := range ids {
		ids[i] = truth.At(i, cfg.K)
	}
	for i := 0; i < min(cfg.Warmup, queries.N); i++ {
		if _, err := search(queries.Row(i)); err != nil {
			return 0, 0, 0, fmt.Errorf("warm-up query %d: %w", i, err)
		}
	}
	var first [][]engine.Result
	var wall, cpu time.Duration
	for pass := 0; pass < max(1, cfg.Passes); pass++ {
		res := make([][]engine.Result, queries.N)
		c0, t0 := metrics.ThreadCPU(), time.Now()
		for i := range res {
			r, err := search(queries.Row(i))
			if err != nil {
				return 0, 0, 0, fmt.Errorf("query %d: %w", i, err)
			}
			res[i] = r
		}
		w, c := time.Since(t0), metrics.ThreadCPU()-c0
		if pass == 0 {
			first, wall, cpu = res, w, c
		}
		wall, cpu = min(wall, w), min(cpu, c)
	}
	recall, err := metrics.MeanRecall(first, ids, cfg.K)
	if err != nil {
		return 0, 0, 0, err
	}
	qps, cpuQPS := float64(queries.N)/wall.Seconds(), 0.0
	if cpu > 0 {
		cpuQPS = float64(queries.N) / cpu.Seconds()
	}
	return recall, qps, cpuQPS, nil
}

// trainTimedPQ runs train on one locked OS thread and returns its wall
// and CPU time.
func trainTimedPQ(train func() error) (time.Duration, time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := metrics.ThreadCPU(), time.Now()
	err := train()
	return time.Since(t0), metrics.ThreadCPU() - c0, err
}

// Lines returns what the table does not show.
func (r *PQReport) Lines() []string {
	c := r.Config
	out := []string{
		fmt.Sprintf("data: %s; %d base vectors, %d queries, %d dimensions, %v", r.Data, r.N, r.Queries, r.Dim, r.Metric),
		fmt.Sprintf("machine: %s/%s, GOMAXPROCS %d, kernels %s; searches and training on one thread both sides; other jobs may share the CPU (load average %s at the start)",
			runtime.GOOS, runtime.GOARCH, r.GOMAXPROCS, r.Kernels, r.StartLoad),
		fmt.Sprintf("PQ: %d bits per sub-space (%d centroids), %d k-means iterations per sub-space and for the %d IVF cells, started from a random sample (FAISS's start) on both sides, seed %d; recall@%d against the exact neighbours, no rescoring",
			c.Bits, 1<<c.Bits, c.Iters, r.Nlist, c.Seed, c.K),
		fmt.Sprintf("timing: %d untimed warm-up queries, then %d timed pass(es) of every query, the clocks read once around a pass and the fastest pass by each clock kept, on both sides",
			c.Warmup, max(1, c.Passes)),
	}
	if r.PaddedDim != r.Dim {
		out = append(out, fmt.Sprintf("padding: every vector has %d zero components appended (%d → %d dimensions) so that each M divides the dimension, on both sides; distances are unchanged",
			r.PaddedDim-r.Dim, r.Dim, r.PaddedDim))
	}
	if r.Faiss != "" {
		out = append(out, r.Faiss)
		if r.Metric != engine.L2 && r.Nlist > 0 {
			out = append(out, "FAISS's IVF-PQ beside ours has its cells from faiss.Kmeans (L2), as veclab's and the paper's; the \"FAISS IP cells\" column is FAISS's default IndexIVFPQ under inner product, whose training assigns to the cell of largest inner product (faiss/IndexIVF.cpp, Level1Quantizer::train_q1)")
		}
	}
	return out
}

// Table is the comparison: recall, QPS (wall and CPU), bytes and
// training time, ours beside FAISS's, and the ratios (CPU-QPS and
// training CPU: the figures a loaded machine moves least).
func (r *PQReport) Table() *table.Table {
	rh := metrics.RecallHeader(r.Config.K)
	t := table.New("Product quantization, veclab vs FAISS 1.7.3 (Debian's generic build, no AVX2 kernels), one thread; Δ recall = veclab − FAISS; ratios veclab/FAISS (QPS > 1: veclab faster; train < 1: veclab faster)",
		table.Col("index", ""), table.Col("M", ""), table.Col("nprobe", ""), table.Col("bytes/vec", ""),
		table.Column{Header: rh + " veclab", Prec: 3}, table.Column{Header: rh + " FAISS", Prec: 3}, table.Column{Header: "Δ recall", Prec: 3},
		table.Column{Header: rh + " FAISS IP cells", Prec: 3},
		table.Column{Header: "QPS veclab", Prec: -1}, table.Column{Header: "QPS FAISS", Prec: -1},
		table.Column{Header: "CPU-QPS veclab", Prec: -1}, table.Column{Header: "CPU-QPS FAISS", Prec: -1}, table.Column{Header: "CPU-QPS ratio", Prec: 2},
		table.Column{Header: "train CPU veclab", Unit: "s", Prec: 2}, table.Column{Header: "train CPU FAISS", Unit: "s", Prec: 2}, table.Column{Header: "train ratio", Prec: 2},
		table.Column{Header: "train wall veclab", Unit: "s", Prec: 2}, table.Column{Header: "train wall FAISS", Unit: "s", Prec: 2})
	for _, w := range r.Rows {
		np := table.Empty()
		if w.Nprobe > 0 {
			np = table.Int(w.Nprobe)
		}
		bytes := table.Int(w.Bytes)
		fr, dr, fq, fc, qr, ftc, tr, ft := table.Empty(), table.Empty(), table.Empty(), table.Empty(), table.Empty(), table.Empty(), table.Empty(), table.Empty()
		if w.HasFaissData {
			if w.FaissBytes != w.Bytes {
				bytes = table.Text(fmt.Sprintf("%d (FAISS %d)", w.Bytes, w.FaissBytes))
			}
			fr, dr = table.Float(w.FaissRecall, 3), table.Float(w.Recall-w.FaissRecall, 3)
			fq, fc = table.Float(w.FaissQPS, -1), orMissing(w.FaissCPUQPS, -1)
			if w.FaissCPUQPS > 0 && w.CPUQPS > 0 {
				qr = table.Float(w.CPUQPS/w.FaissCPUQPS, 2)
			}
			ftc, ft = table.Float(w.FaissTrainCPU.Seconds(), 2), table.Float(w.FaissTrain.Seconds(), 2)
			if w.FaissTrainCPU > 0 {
				tr = table.Float(w.TrainCPU.Seconds()/w.FaissTrainCPU.Seconds(), 2)
			}
		}
		addRow(t, table.Text(w.Index), table.Int(w.M), np, bytes, table.Float(w.Recall, 3), fr, dr, orMissing(w.FaissIPCellsRecall, 3),
			table.Float(w.QPS, -1), fq, orMissing(w.CPUQPS, -1), fc, qr,
			table.Float(w.TrainCPU.Seconds(), 2), ftc, tr, table.Float(w.Train.Seconds(), 2), ft)
	}
	return t
}

// String is the report as `veclab bench pq` prints it.
func (r *PQReport) String() string {
	var b strings.Builder
	for _, l := range r.Lines() {
		fmt.Fprintln(&b, l)
	}
	fmt.Fprintf(&b, "\n%s\nload average %s at the end\n", r.Table().String(), r.EndLoad)
	return b.String()
}

// Markdown renders the report for a notebook cell or a report file.
func (r *PQReport) Markdown() string {
	var b strings.Builder
	for _, l := range r.Lines() {
		b.WriteString("- " + mdTextReplacer.Replace(l) + "\n")
	}
	fmt.Fprintf(&b, "\n%s\nload average %s at the end\n", r.Table().Markdown(), r.EndLoad)
	return b.String()
}

// HTML renders the report as an HTML fragment.
func (r *PQReport) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="veclab-report">` + "\n<ul>\n")
	for _, l := range r.Lines() {
		b.WriteString("<li>" + html.EscapeString(l) + "</li>\n")
	}
	b.WriteString("</ul>\n" + r.Table().HTML())
	b.WriteString("<p>load average " + html.EscapeString(r.EndLoad) + " at the end</p>\n</div>\n")
	return b.String()
}
