package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

// BatchConfig says what [Batch] measures. Start from [DefaultBatchConfig].
type BatchConfig struct {
	K              int   // neighbours per query (recall@K)
	M              int   // HNSW M, hnswlib's policy
	EfConstruction int   // HNSW efConstruction
	Efs            []int // HNSW search beams
	Nprobes        []int // IVF lists probed
	Clients        []int // concurrent client counts
	Nlist          int   // IVF lists (0: √n)
	Iters          int   // k-means iterations of the IVF, both sides
	Threads        int   // worker goroutines / threads per batch call on every side (0: engine.Cores())
	// Rounds is how many times each client count is measured; a round
	// measures ours and then each peer, so every round gives a pair of
	// adjacent measurements and the ratios are medians over rounds.
	Rounds     int
	MinSeconds float64 // minimum timed seconds per point (the batch repeats, ≥ 3 passes)
	GraphSeed  uint64  // HNSW level generator seed, hnswlib's too
	Target     float64 // recall@K at which HNSW and IVF QPS are compared (interpolated along each sweep)
	// Timing is "best" (QPS of each point's fastest pass, for a shared,
	// busy machine) or "wall" (over every pass); the same on every side.
	Timing  string
	Hnswlib bool   // run hnswlib's knn_query batches (bench/peers/hnswlib; g++, libhnswlib-dev)
	Faiss   bool   // run FAISS IndexFlat and IndexIVFFlat (bench/peers/faiss; python3-faiss)
	Python  string // interpreter with faiss ("": faiss.DefaultPython)
	PeerSrc string // the bench/peers directory ("": found above the working directory)
}

// DefaultBatchConfig is `veclab bench batch`'s defaults.
func DefaultBatchConfig() BatchConfig {
	return BatchConfig{K: 10, M: 16, EfConstruction: 64, Efs: []int{10, 20, 40, 80}, Nprobes: []int{1, 2, 4, 8},
		Clients: []int{1, 2, 4, 8}, Iters: 10, Rounds: 3, MinSeconds: 0.3, GraphSeed: 100, Target: 0.95,
		Timing: "best", Hnswlib: true, Faiss: true, Python: faiss.DefaultPython}
}

// Validate reports every problem of c at once.
func (c BatchConfig) Validate() error {
	var bad []string
	if c.K < 1 || c.M < 2 || c.EfConstruction < 1 || c.Iters < 1 || c.Nlist < 0 || c.Threads < 0 || c.Rounds < 1 {
		bad = append(bad, fmt.Sprintf("k %d, m %d, efConstruction %d, iters %d, nlist %d, threads %d, rounds %d: want k, efConstruction, iters, rounds ≥ 1, m ≥ 2, nlist, threads ≥ 0",
			c.K, c.M, c.EfConstruction, c.Iters, c.Nlist, c.Threads, c.Rounds))
	}
	for _, l := range []struct {
		name string
		v    []int
	}{{"ef", c.Efs}, {"nprobe", c.Nprobes}, {"clients", c.Clients}} {
		if len(l.v) == 0 {
			bad = append(bad, "no "+l.name+" values")
		}
		for _, x := range l.v {
			if x < 1 {
				bad = append(bad, fmt.Sprintf("%s %d < 1", l.name, x))
			}
		}
	}
	if !(c.MinSeconds >= 0) || !(c.Target > 0 && c.Target <= 1) {
		bad = append(bad, fmt.Sprintf("min-seconds %g must be ≥ 0 and target %g in (0, 1]", c.MinSeconds, c.Target))
	}
	if c.Timing != "best" && c.Timing != "wall" {
		bad = append(bad, fmt.Sprintf("timing %q: want best or wall", c.Timing))
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: batch: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// The systems of a batch round, ours and the peers', in the order of the
// report's table.
const (
	VeclabFlat   = "veclab flat"
	FaissFlat    = "FAISS IndexFlat"
	VeclabHNSW   = "veclab HNSW"
	HnswlibBatch = "hnswlib knn_query"
	VeclabIVF    = "veclab IVF-Flat"
	FaissIVF     = "FAISS IndexIVFFlat"
)

// BatchSystems lists the systems in table order.
func BatchSystems() []string {
	return []string{VeclabFlat, FaissFlat, VeclabHNSW, HnswlibBatch, VeclabIVF, FaissIVF}
}

// BatchPoint is one (clients, ef or nprobe) measurement of one system.
type BatchPoint struct {
	Clients int
	Param   int // ef or nprobe (0 for exact search)
	Recall  float64
	QPS     float64 // by Timing
	CPUQPS  float64 // queries over the process CPU time of the passes (0: unknown)
}

// BatchRound is one round at one client count: every system's points,
// measured ours first, then the peer, system by system.
type BatchRound struct {
	Clients, Round int
	Points         map[string][]BatchPoint // by system name
	Load           string                  // load average at the end of the round
}

// BatchRatio compares ours with a peer at one client count: the median
// over rounds of the per-round ratios veclab QPS / peer QPS, by wall time
// and by CPU time, with their ranges. Exact search compares the single
// point (recall 1 on both sides); HNSW and IVF compare the QPS
// interpolated at Target along each side's sweep of the same round. A
// round where a side does not reach Target gives no ratio.
type BatchRatio struct {
	System           string // "flat", "hnsw" or "ivf"
	Ours, Peer       string // system names
	Clients          int
	Wall, CPU        float64 // medians (0 when no round compared)
	WallN, CPUN      int     // rounds compared
	WallMin, WallMax float64
	CPUMin, CPUMax   float64
	// Median QPS of each side over the compared rounds, by wall and CPU
	// time.
	OursQPS, PeerQPS, OursCPUQPS, PeerCPUQPS float64
}

// BatchReport is the outcome of [Batch].
type BatchReport struct {
	Config          BatchConfig // with Nlist and Threads resolved
	N, Dim, Queries int
	Metric          engine.Metric
	Kernels         string
	Cores           int
	Rounds          []BatchRound // client count by client count, round by round
	// FaissVersion, FaissCompile and FaissNote describe the FAISS build.
	FaissVersion, FaissCompile, FaissNote string
	StartLoad, EndLoad                    string
}

// Batch measures batch search on all cores: exact (engine/flat), HNSW
// (built as hnswlib builds, same level seed) and IVF-Flat (trained as
// FAISS trains: random initial sample, the same iterations) for every
// client count, c clients starting together, each sending its 1/c of the
// queries as one batch call. For each client count it runs Rounds rounds,
// and each round measures our systems and then the peers' on the same
// files, so that a ratio compares measurements that saw the same machine;
// the peers rebuild their indexes in every round (outside their timing).
// Progress goes to log (nil: none).
func Batch(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg BatchConfig, log io.Writer) (*BatchReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkData("batch", ds, truth, cfg.K); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	if cfg.Nlist == 0 {
		cfg.Nlist = max(1, int(math.Sqrt(float64(ds.Base.N))))
	}
	if cfg.Threads == 0 {
		cfg.Threads = engine.Cores()
	}
	rep := &BatchReport{Config: cfg, N: ds.Base.N, Dim: ds.Base.Dim, Queries: ds.Queries.N, Metric: metric,
		Kernels: vec.KernelName(), Cores: engine.Cores(), StartLoad: LoadAverage()}

	pd, err := newPeerDir("batch", ds, truth)
	if err != nil {
		return nil, err
	}
	defer pd.remove()
	files := pd.files
	var hbin string
	if cfg.Hnswlib {
		if hbin, err = pd.build(cfg.PeerSrc, "hnswlib", "hnswlib_bench", log); err != nil {
			return nil, err
		}
	}
	if cfg.Faiss {
		if err := faiss.Available(cfg.Python); err != nil {
			return nil, fmt.Errorf("bench: batch: %w", err)
		}
	}

	fx, err := flat.New(ds.Base, flat.Config{Metric: metric, Workers: cfg.Threads})
	if err != nil {
		return nil, fmt.Errorf("bench: batch: flat: %w", err)
	}
	fmt.Fprintf(log, "bench batch: building HNSW M=%d efConstruction=%d…\n", cfg.M, cfg.EfConstruction)
	hc := hnsw.HnswlibConfig(ds.Base.Dim, metric, cfg.M, cfg.EfConstruction)
	hc.Seed, hc.Workers = cfg.GraphSeed, cfg.Threads
	hx, err := hnsw.New(hc)
	if err != nil {
		return nil, fmt.Errorf("bench: batch: hnsw: %w", err)
	}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := hx.AddBatch(keys, ds.Base); err != nil {
		return nil, fmt.Errorf("bench: batch: hnsw: %w", err)
	}
	fmt.Fprintf(log, "bench batch: training IVF nlist=%d…\n", cfg.Nlist)
	ix, err := ivf.Build(ds.Base, ivf.Config{Nlist: cfg.Nlist, Metric: metric, Iters: cfg.Iters, RandomInit: true, Seed: 1234})
	if err != nil {
		return nil, fmt.Errorf("bench: batch: ivf: %w", err)
	}

	ctx := context.Background()
	q := ds.Queries
	for _, c := range cfg.Clients {
		for round := range cfg.Rounds {
			fmt.Fprintf(log, "bench batch: %d client(s), round %d of %d…\n", c, round+1, cfg.Rounds)
			r := BatchRound{Clients: c, Round: round + 1, Points: map[string][]BatchPoint{}}
			// Exact search and IVF, then FAISS's.
			p, err := cfg.timeClients(q, truth, c, func(sub *vec.Matrix) ([][]engine.Result, error) {
				return fx.SearchBatch(sub, cfg.K, nil)
			})
			if err != nil {
				return nil, fmt.Errorf("bench: batch: flat: %w", err)
			}
			r.Points[VeclabFlat] = []BatchPoint{p}
			for _, np := range cfg.Nprobes {
				p, err := cfg.timeClients(q, truth, c, func(sub *vec.Matrix) ([][]engine.Result, error) {
					return ix.SearchBatchWorkers(ctx, sub, ivf.SearchOptions{K: cfg.K, Nprobe: np}, cfg.Threads)
				})
				if err != nil {
					return nil, fmt.Errorf("bench: batch: ivf: %w", err)
				}
				p.Param = np
				r.Points[VeclabIVF] = append(r.Points[VeclabIVF], p)
			}
			if cfg.Faiss {
				fr, err := faiss.RunBatch(ctx, faiss.BatchRequest{Python: cfg.Python, Base: files.Base, Query: files.Queries,
					Truth: files.Truth, Nlist: cfg.Nlist, Niter: cfg.Iters, Nprobe: cfg.Nprobes, Clients: []int{c}, Threads: cfg.Threads,
					Metric: metric, K: cfg.K, Seed: 1234, MinSeconds: cfg.MinSeconds})
				if err != nil {
					return nil, fmt.Errorf("bench: batch: %w", err)
				}
				rep.FaissVersion, rep.FaissCompile, rep.FaissNote = fr.FaissVersion, fr.CompileOptions, fr.Note
				for _, p := range fr.Flat {
					r.Points[FaissFlat] = append(r.Points[FaissFlat], BatchPoint{Clients: p.Clients, Recall: p.Recall, QPS: cfg.pick(p.QPS, p.BestQPS), CPUQPS: p.CPUQPS})
				}
				for _, p := range fr.IVF {
					r.Points[FaissIVF] = append(r.Points[FaissIVF], BatchPoint{Clients: p.Clients, Param: p.Nprobe, Recall: p.Recall, QPS: cfg.pick(p.QPS, p.BestQPS), CPUQPS: p.CPUQPS})
				}
			}
			// HNSW, then hnswlib's.
			for _, ef := range cfg.Efs {
				p, err := cfg.timeClients(q, truth, c, func(sub *vec.Matrix) ([][]engine.Result, error) {
					return engine.QueryBatch(ctx, hx, sub.N, sub.Row, engine.Request{K: cfg.K, Breadth: ef}, cfg.Threads)
				})
				if err != nil {
					return nil, fmt.Errorf("bench: batch: hnsw: %w", err)
				}
				p.Param = ef
				r.Points[VeclabHNSW] = append(r.Points[VeclabHNSW], p)
			}
			if hbin != "" {
				hl, err := runHnswlibHarness(exec.Command(hbin, "-base", files.Base, "-query", files.Queries, "-truth", files.Truth,
					"-metric", metric.String(), "-m", strconv.Itoa(cfg.M), "-efc", strconv.Itoa(cfg.EfConstruction),
					"-threads", strconv.Itoa(cfg.Threads), "-ef", intList(cfg.Efs), "-k", strconv.Itoa(cfg.K),
					// One pass of its one-query sweep (not reported here); the
					// batch points get MinSeconds as ours do.
					"-seed", strconv.FormatUint(cfg.GraphSeed, 10), "-min-seconds", "0",
					"-clients", strconv.Itoa(c), "-batch-threads", strconv.Itoa(cfg.Threads),
					"-batch-min-seconds", strconv.FormatFloat(cfg.MinSeconds, 'g', -1, 64)))
				if err != nil {
					return nil, err
				}
				for _, p := range hl.Batch {
					r.Points[HnswlibBatch] = append(r.Points[HnswlibBatch], BatchPoint{Clients: p.Clients, Param: p.Ef, Recall: p.Recall, QPS: cfg.pick(p.QPS, p.BestQPS), CPUQPS: p.CPUQPS})
				}
			}
			r.Load = LoadAverage()
			rep.Rounds = append(rep.Rounds, r)
		}
	}
	rep.EndLoad = LoadAverage()
	return rep, nil
}

// Points returns system's points over the rounds, each figure the median
// over the rounds of its (clients, ef or nprobe).
func (r *BatchReport) Points(system string) []BatchPoint {
	type key struct{ c, p int }
	var order []key
	by := map[key][]BatchPoint{}
	for _, rd := range r.Rounds {
		for _, p := range rd.Points[system] {
			k := key{p.Clients, p.Param}
			if _, ok := by[k]; !ok {
				order = append(order, k)
			}
			by[k] = append(by[k], p)
		}
	}
	out := make([]BatchPoint, 0, len(order))
	for _, k := range order {
		ps := by[k]
		col := func(get func(BatchPoint) float64) float64 {
			v := make([]float64, len(ps))
			for i, p := range ps {
				v[i] = get(p)
			}
			return median(v)
		}
		out = append(out, BatchPoint{Clients: k.c, Param: k.p,
			Recall: col(func(p BatchPoint) float64 { return p.Recall }),
			QPS:    col(func(p BatchPoint) float64 { return p.QPS }),
			CPUQPS: col(func(p BatchPoint) float64 { return p.CPUQPS })})
	}
	return out
}

// Ratios returns, client count by client count, the ratios of each pair
// of systems that ran: exact search against FAISS IndexFlat, HNSW against
// hnswlib, IVF-Flat against FAISS IndexIVFFlat.
func (r *BatchReport) Ratios() []BatchRatio {
	var out []BatchRatio
	pairs := []struct {
		system, ours, peer string
		exact, on          bool
	}{
		{"flat", VeclabFlat, FaissFlat, true, r.Config.Faiss},
		{"hnsw", VeclabHNSW, HnswlibBatch, false, r.Config.Hnswlib},
		{"ivf", VeclabIVF, FaissIVF, false, r.Config.Faiss},
	}
	for _, c := range r.Config.Clients {
		for _, pr := range pairs {
			if !pr.on {
				continue
			}
			br := BatchRatio{System: pr.system, Ours: pr.ours, Peer: pr.peer, Clients: c}
			var wall, cpu, oq, pq, oc, pc []float64
			for _, rd := range r.Rounds {
				if rd.Clients != c {
					continue
				}
				for _, byCPU := range []bool{false, true} {
					a, okA := qpsAt(rd.Points[pr.ours], r.Config.Target, pr.exact, byCPU)
					b, okB := qpsAt(rd.Points[pr.peer], r.Config.Target, pr.exact, byCPU)
					if !okA || !okB || a <= 0 || b <= 0 {
						continue
					}
					if byCPU {
						cpu, oc, pc = append(cpu, a/b), append(oc, a), append(pc, b)
					} else {
						wall, oq, pq = append(wall, a/b), append(oq, a), append(pq, b)
					}
				}
			}
			br.WallN, br.CPUN = len(wall), len(cpu)
			if len(wall) > 0 {
				br.Wall, br.WallMin, br.WallMax = median(wall), slices.Min(wall), slices.Max(wall)
				br.OursQPS, br.PeerQPS = median(oq), median(pq)
			}
			if len(cpu) > 0 {
				br.CPU, br.CPUMin, br.CPUMax = median(cpu), slices.Min(cpu), slices.Max(cpu)
				br.OursCPUQPS, br.PeerCPUQPS = median(oc), median(pc)
			}
			out = append(out, br)
		}
	}
	return out
}

// qpsAt returns the QPS of one round's sweep of one system: the single
// point for exact search, else interpolated at recall target.
func qpsAt(pts []BatchPoint, target float64, exact, byCPU bool) (float64, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	get := func(p BatchPoint) float64 {
		if byCPU {
			return p.CPUQPS
		}
		return p.QPS
	}
	if exact {
		return get(pts[0]), true
	}
	sweep := make([]metrics.Point, len(pts))
	for i, p := range pts {
		sweep[i] = metrics.Point{Label: strconv.Itoa(p.Param), Param: float64(p.Param), Recall: p.Recall, QPS: get(p)}
	}
	return metrics.QPSAtRecall(sweep, target)
}

// pick returns the QPS Timing asks for.
func (c BatchConfig) pick(wall, best float64) float64 {
	if c.Timing == "best" {
		return best
	}
	return wall
}

// timeClients measures search with c clients started together, each
// answering its 1/c share of queries with one call, for at least three
// passes and MinSeconds ([metrics.Loop.RunBatch]): the QPS Timing asks
// for (all queries over the wall time of every pass, or of the fastest
// pass), the QPS over the process CPU time of the passes, and the mean
// recall@K (the first pass's; the searches are deterministic).
func (cfg BatchConfig) timeClients(queries *vec.Matrix, truth *dataset.GroundTruth, c int,
	search func(sub *vec.Matrix) ([][]engine.Result, error)) (BatchPoint, error) {
	pick := metrics.BestPass
	if cfg.Timing == "wall" {
		pick = metrics.AllPasses
	}
	loop := metrics.Loop{Queries: queries.N, K: cfg.K, Truth: truth.IDs, Clients: c, Passes: 3,
		MinTime: time.Duration(cfg.MinSeconds * float64(time.Second)), MaxPasses: math.MaxInt32, Pick: pick}
	if _, ok := metrics.ProcessCPU(); ok {
		loop.CPU = func() time.Duration { d, _ := metrics.ProcessCPU(); return d }
	}
	m, err := loop.RunBatch(engine.Context(), func(_, lo, hi int) ([][]engine.Result, error) {
		return search(&vec.Matrix{N: hi - lo, Dim: queries.Dim, Stride: queries.Stride, Data: queries.Data[lo*queries.Stride : hi*queries.Stride]})
	})
	if err != nil {
		return BatchPoint{}, err
	}
	return BatchPoint{Clients: m.Clients, Recall: m.Recall, QPS: m.QPS, CPUQPS: m.CPUQPS}, nil
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
