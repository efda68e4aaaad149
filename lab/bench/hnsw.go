package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

// HNSWConfig says what [HNSW] measures. Start from [DefaultHNSWConfig].
type HNSWConfig struct {
	M               int   // HNSW M (M0 = 2M), hnswlib's policy (hnsw.HnswlibConfig)
	EfConstructions []int // one build and sweep each
	Efs             []int // search beams of the sweep
	K               int   // neighbours per query (recall@K)
	Workers         int   // goroutines of the parallel build (0: GOMAXPROCS)
	// Single also builds on one goroutine (deterministic); the sweep then
	// searches that graph.
	Single     bool
	MinSeconds float64 // minimum timed seconds per ef (the queries repeat until reached)
	// Timing is "wall" (QPS over every timed pass) or "best" (each query's
	// fastest of ≥ 3 passes, for a shared, busy machine; hnswlib too).
	Timing    string
	GraphSeed uint64 // the level generator's seed, the same on both sides (100 is hnswlib's default)
	// Hnswlib also runs hnswlib's harness (bench/peers/hnswlib; g++ and
	// libhnswlib-dev) on the same vectors and truth after each of our
	// builds and sweeps.
	Hnswlib bool
	PeerSrc string // the bench/peers directory ("": found above the working directory)
}

// DefaultHNSWConfig is `veclab bench hnsw`'s defaults.
func DefaultHNSWConfig() HNSWConfig {
	return HNSWConfig{M: 16, EfConstructions: []int{64, 200}, Efs: []int{10, 20, 40, 64, 100, 200, 400}, K: 10,
		Single: true, MinSeconds: 0.3, Timing: "wall", GraphSeed: 100}
}

// Validate reports every problem of c at once.
func (c HNSWConfig) Validate() error {
	var bad []string
	if c.M < 2 {
		bad = append(bad, fmt.Sprintf("m %d < 2", c.M))
	}
	if c.K < 1 {
		bad = append(bad, fmt.Sprintf("k %d < 1", c.K))
	}
	if c.Workers < 0 {
		bad = append(bad, fmt.Sprintf("workers %d < 0", c.Workers))
	}
	if len(c.EfConstructions) == 0 || len(c.Efs) == 0 {
		bad = append(bad, "no efConstruction or no ef")
	}
	for _, v := range append(append([]int(nil), c.EfConstructions...), c.Efs...) {
		if v < 1 {
			bad = append(bad, fmt.Sprintf("efConstruction or ef %d < 1", v))
		}
	}
	if !(c.MinSeconds >= 0) {
		bad = append(bad, fmt.Sprintf("min-seconds %g < 0", c.MinSeconds))
	}
	if c.Timing != "wall" && c.Timing != "best" {
		bad = append(bad, fmt.Sprintf("timing %q: want wall or best", c.Timing))
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: hnsw: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// HNSWPoint is one ef of one side's sweep. For hnswlib, DistComps is its
// metric_distance_computations counter, which adds the whole neighbour
// list of every expanded node, visited or not: an upper bound of its
// distance computations.
type HNSWPoint struct {
	Ef        int
	Recall    float64
	QPS       float64
	P50, P95  time.Duration // hnswlib reports no p95 (0)
	DistComps float64
}

// HNSWBuild is one build of hnswlib's harness.
type HNSWBuild struct {
	Threads   int
	Wall, CPU time.Duration
}

// HNSWRun is one efConstruction: our builds and sweep and, with Hnswlib,
// the harness's.
type HNSWRun struct {
	EfConstruction     int
	BuildAll, BuildOne time.Duration // wall time on Workers and on one goroutine (0: not built)
	CPUAll, CPUOne     time.Duration // process CPU time of the same builds (0: unknown)
	// BytesPerVector is the index's memory per vector, of which
	// GraphBytesPerVector the graph.
	BytesPerVector, GraphBytesPerVector float64
	Sweep                               []HNSWPoint
	Hnswlib                             []HNSWPoint // nil without the peer; one per ef
	HnswlibBuilds                       []HNSWBuild
}

// HnswlibBuild returns the peer's build on threads threads.
func (r HNSWRun) HnswlibBuild(threads int) (HNSWBuild, bool) {
	for _, b := range r.HnswlibBuilds {
		if b.Threads == threads {
			return b, true
		}
	}
	return HNSWBuild{}, false
}

// ExactVsStream is one-goroutine exact search (engine/flat) timed against
// passes streaming the slab, interleaved: Ratio is the median query over
// the median pass.
type ExactVsStream struct {
	Ratio                float64
	Best, Median, Stream time.Duration
	SlabGB               float64
}

// HNSWReport is the outcome of [HNSW].
type HNSWReport struct {
	Config          HNSWConfig // with Workers resolved
	N, Dim, Queries int
	Metric          engine.Metric
	Runs            []HNSWRun
	Exact           ExactVsStream
}

// HNSW builds engine/hnsw with hnswlib's policy at every efConstruction
// (on Workers goroutines, then on one) and sweeps ef over the queries of
// ds, recall@K against truth; with Hnswlib the harness builds and sweeps
// the same vectors with the same level seed after each of ours. It ends
// with [ExactVsStream]. Progress goes to log (nil: none).
func HNSW(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg HNSWConfig, log io.Writer) (*HNSWReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkData("hnsw", ds, truth, cfg.K); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	rep := &HNSWReport{Config: cfg, N: ds.Base.N, Dim: ds.Base.Dim, Queries: ds.Queries.N, Metric: metric}
	// The harness is compiled once, before any timing.
	var peerBin string
	var pd *peerDir
	if cfg.Hnswlib {
		var err error
		if pd, err = newPeerDir("hnsw", ds, truth); err != nil {
			return nil, err
		}
		defer pd.remove()
		if peerBin, err = pd.build(cfg.PeerSrc, "hnswlib", "hnswlib_bench", log); err != nil {
			return nil, err
		}
	}
	var err error
	if rep.Exact, err = exactVsStream(ds, metric, cfg.MinSeconds); err != nil {
		return nil, fmt.Errorf("bench: hnsw: exact search: %w", err)
	}
	for _, efc := range cfg.EfConstructions {
		run, err := hnswOne(ds, truth, metric, cfg, efc, log)
		if err != nil {
			return nil, fmt.Errorf("bench: hnsw: efConstruction %d: %w", efc, err)
		}
		if peerBin != "" {
			fmt.Fprintf(log, "bench hnsw: efConstruction %d: running hnswlib…\n", efc)
			if err := runHnswlib(run, peerBin, pd.files, metric, cfg, efc); err != nil {
				return nil, err
			}
		}
		rep.Runs = append(rep.Runs, *run)
	}
	return rep, nil
}

// checkData checks a data set and its truth for K neighbours per query.
func checkData(what string, ds *dataset.Dataset, truth *dataset.GroundTruth, k int) error {
	if ds == nil || ds.Base == nil || ds.Queries == nil || ds.Queries.N == 0 || truth == nil {
		return fmt.Errorf("bench: %s: no data set, no queries or no truth: %w", what, engine.ErrInvalidArgument)
	}
	if len(truth.IDs) < ds.Queries.N || truth.K < k {
		return fmt.Errorf("bench: %s: truth has %d queries of %d neighbours, need %d of %d: %w", what, len(truth.IDs), truth.K, ds.Queries.N, k, engine.ErrInvalidArgument)
	}
	return nil
}

// exactVsStream times one-goroutine exact searches against passes over
// the slab, interleaved (a pass, a query, a pass, …) so that both see the
// same machine: on a shared machine other work slows both alike. The ratio
// is of the medians; the fastest query is returned too.
//
// It is not a metrics.Loop: the stream pass times itself (StreamTime),
// its stop rule counts the queries' time alone and at least 21 pairs
// (cycling over fewer queries), and it scores no recall; folding it into
// RunInterleaved would change how many pairs it takes.
func exactVsStream(ds *dataset.Dataset, metric engine.Metric, minSeconds float64) (ExactVsStream, error) {
	x, err := flat.New(ds.Base, flat.Config{Metric: metric, Workers: 1})
	if err != nil {
		return ExactVsStream{}, err
	}
	var lat, passes []time.Duration
	var total time.Duration
	for i := 0; total.Seconds() < minSeconds || i < 21; i++ {
		passes = append(passes, flat.StreamTime(ds.Base, 1))
		t := time.Now()
		if _, _, err := x.Search(ds.Queries.Row(i%ds.Queries.N), 10, nil); err != nil {
			return ExactVsStream{}, err
		}
		d := time.Since(t)
		total += d
		lat = append(lat, d)
	}
	q, st := metrics.Summarize(lat), metrics.Summarize(passes)
	return ExactVsStream{Ratio: q.P50.Seconds() / st.P50.Seconds(), Best: q.Min, Median: q.P50, Stream: st.P50,
		SlabGB: float64(len(ds.Base.Data)*4) / 1e9}, nil
}

// hnswOne builds at one efConstruction (Workers, then one goroutine) and
// sweeps ef.
func hnswOne(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg HNSWConfig, efc int, log io.Writer) (*HNSWRun, error) {
	run := &HNSWRun{EfConstruction: efc}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	build := func(workers int) (*hnsw.Index, time.Duration, time.Duration, error) {
		hc := hnsw.HnswlibConfig(ds.Base.Dim, metric, cfg.M, efc)
		// Both sides draw levels from the same generator and seed, so the
		// recall comparison at equal ef compares graphs, not level draws.
		hc.Seed, hc.Workers = cfg.GraphSeed, workers
		ix, err := hnsw.New(hc)
		if err != nil {
			return nil, 0, 0, err
		}
		runtime.GC()
		c0, okc := metrics.ProcessCPU()
		t := time.Now()
		err = ix.AddBatch(keys, ds.Base)
		wall := time.Since(t)
		c1, _ := metrics.ProcessCPU()
		if !okc {
			c0, c1 = 0, 0
		}
		return ix, wall, c1 - c0, err
	}
	fmt.Fprintf(log, "bench hnsw: efConstruction %d: building on %d workers…\n", efc, cfg.Workers)
	ix, d, c, err := build(cfg.Workers)
	if err != nil {
		return nil, err
	}
	run.BuildAll, run.CPUAll = d, c
	if cfg.Single && cfg.Workers != 1 {
		ix = nil
		fmt.Fprintf(log, "bench hnsw: efConstruction %d: building single-threaded…\n", efc)
		if ix, run.BuildOne, run.CPUOne, err = build(1); err != nil {
			return nil, err
		}
	} else if cfg.Workers == 1 {
		run.BuildOne, run.CPUOne = d, c
	}
	run.BytesPerVector, run.GraphBytesPerVector = ix.BytesPerVector(), ix.GraphBytesPerVector()

	s := ix.NewSearcher()
	for _, ef := range cfg.Efs {
		// Timing "best" keeps each query's fastest of at least 3 passes;
		// otherwise every pass counts. Either way passes repeat until
		// MinSeconds of timed queries.
		loop := metrics.Loop{Queries: ds.Queries.N, K: cfg.K, Truth: truth.IDs, Warmup: 20, // as the article did
			Passes: 1, MinTime: time.Duration(cfg.MinSeconds * float64(time.Second)), MaxPasses: math.MaxInt32,
			Key: func(id engine.ID) engine.ID { return engine.ID(ix.Key(id)) }}
		if cfg.Timing == "best" {
			loop.Passes, loop.Pick = 3, metrics.BestPerQuery
		}
		var comps float64
		m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
			res, err := s.Search(ds.Queries.Row(i), engine.Request{K: cfg.K, Breadth: ef})
			if pass == 0 {
				comps += float64(s.Stats().DistComps)
			}
			return res, err
		})
		if err != nil {
			return nil, err
		}
		run.Sweep = append(run.Sweep, HNSWPoint{
			Ef: ef, Recall: m.Recall, QPS: m.QPS,
			P50: m.Latency.P50, P95: m.Latency.P95, DistComps: comps / float64(ds.Queries.N),
		})
	}
	return run, nil
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

// runHnswlibHarness runs the compiled harness and decodes its JSON.
func runHnswlibHarness(cmd *exec.Cmd) (*hnswlibResult, error) {
	out, err := runPeer("hnswlib", cmd)
	if err != nil {
		return nil, err
	}
	var r hnswlibResult
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("bench: hnswlib harness output %q: %w", out, err)
	}
	return &r, nil
}

// runHnswlib runs the harness on files at one efConstruction
// and fills run's peer fields.
func runHnswlib(run *HNSWRun, bin string, files dataset.Files, metric engine.Metric, cfg HNSWConfig, efc int) error {
	threads := strconv.Itoa(cfg.Workers)
	if cfg.Single && cfg.Workers != 1 {
		threads = "1," + threads // the first build is the one searched
	}
	efs := make([]string, len(cfg.Efs))
	for i, e := range cfg.Efs {
		efs[i] = strconv.Itoa(e)
	}
	r, err := runHnswlibHarness(exec.Command(bin,
		"-base", files.Base, "-query", files.Queries, "-truth", files.Truth, "-metric", metric.String(),
		"-m", strconv.Itoa(cfg.M), "-efc", strconv.Itoa(efc), "-threads", threads,
		"-ef", strings.Join(efs, ","), "-k", strconv.Itoa(cfg.K),
		"-seed", strconv.FormatUint(cfg.GraphSeed, 10),
		"-min-seconds", strconv.FormatFloat(cfg.MinSeconds, 'g', -1, 64), "-timing", cfg.Timing))
	if err != nil {
		return err
	}
	if len(r.Search) != len(cfg.Efs) {
		return fmt.Errorf("bench: hnswlib harness returned %d ef points, want %d", len(r.Search), len(cfg.Efs))
	}
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	for _, h := range r.Search {
		run.Hnswlib = append(run.Hnswlib, HNSWPoint{Ef: h.Ef, Recall: h.Recall, QPS: h.QPS, P50: us(h.P50us), P95: us(h.P95us), DistComps: h.DistComps})
	}
	for _, b := range r.Builds {
		run.HnswlibBuilds = append(run.HnswlibBuilds, HNSWBuild{Threads: b.Threads,
			Wall: time.Duration(b.Seconds * float64(time.Second)), CPU: time.Duration(b.CPUSeconds * float64(time.Second))})
	}
	return nil
}
