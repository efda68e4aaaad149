package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"runtime"
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
	GraphSeed uint64 // the level generator's seed, the same for hnswlib (100 is hnswlib's default); USearch and FAISS have their own
	// Peers run beside ours on the same vectors and truth, with the same
	// M, efConstruction, thread counts and efs (see [HNSWPeers]): each
	// builds after our builds, then every round sweeps ours and then each
	// peer's, back to back.
	Peers []string
	// Rounds is how many times each side sweeps every ef (≥ 1); the QPS
	// ratios are medians of per-round ratios ([HNSWRun.RatioAt]).
	Rounds int
	// PeerRescore is the candidates per wanted neighbour that the 1-bit
	// USearch peer re-ranks by exact float distance (usearch-b1).
	PeerRescore int
	PeerSrc     string // the bench/peers directory ("": found above the working directory)
	Python      string // the interpreter of the FAISS peer ("": Debian's)
}

// DefaultHNSWConfig is `veclab bench hnsw`'s defaults.
func DefaultHNSWConfig() HNSWConfig {
	return HNSWConfig{M: 16, EfConstructions: []int{64, 200}, Efs: []int{10, 20, 40, 64, 100, 200, 400}, K: 10,
		Single: true, MinSeconds: 0.3, Timing: "wall", GraphSeed: 100, Rounds: 1, PeerRescore: 4}
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
	if c.Rounds < 1 {
		bad = append(bad, fmt.Sprintf("rounds %d < 1", c.Rounds))
	}
	if c.PeerRescore < 1 {
		bad = append(bad, fmt.Sprintf("peer rescore %d < 1", c.PeerRescore))
	}
	bad = append(bad, checkPeers(c.Peers)...)
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

// HNSWRun is one efConstruction: our builds and sweeps and the peers'.
type HNSWRun struct {
	EfConstruction     int
	BuildAll, BuildOne time.Duration // wall time on Workers and on one goroutine (0: not built)
	CPUAll, CPUOne     time.Duration // process CPU time of the same builds (0: unknown)
	// BytesPerVector is the index's memory per vector, of which
	// GraphBytesPerVector the graph.
	BytesPerVector, GraphBytesPerVector float64
	// Rounds holds one sweep per round; Sweep is their per-ef median QPS
	// with the first round's recall.
	Rounds [][]HNSWPoint
	Sweep  []HNSWPoint
	Peers  []HNSWPeerRun // in the order of HNSWConfig.Peers
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
// ds, recall@K against truth. Each peer of cfg.Peers then builds the same
// vectors with the same M, efConstruction and thread counts (hnswlib with
// the same level seed), and every round sweeps ours and then each peer's,
// back to back, so that each round's ratio compares sweeps that saw the
// same machine. It ends with [ExactVsStream]. Progress goes to log (nil:
// none).
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
	// The native harnesses are compiled once, before any timing.
	var bins map[string]string
	var pd *peerDir
	if len(cfg.Peers) > 0 {
		var err error
		if pd, err = newPeerDir("hnsw", ds, truth); err != nil {
			return nil, err
		}
		defer pd.remove()
		if bins, err = peerBinaries(pd, cfg, log); err != nil {
			return nil, err
		}
	}
	var err error
	if rep.Exact, err = exactVsStream(ds, metric, cfg.MinSeconds); err != nil {
		return nil, fmt.Errorf("bench: hnsw: exact search: %w", err)
	}
	for _, efc := range cfg.EfConstructions {
		run, err := hnswOne(ds, truth, metric, cfg, efc, pd, bins, log)
		if err != nil {
			return nil, fmt.Errorf("bench: hnsw: efConstruction %d: %w", efc, err)
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

// hnswOne builds at one efConstruction (Workers, then one goroutine),
// starts the peers (each builds), and sweeps ef in rounds: ours, then each
// peer's.
func hnswOne(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg HNSWConfig, efc int, pd *peerDir, bins map[string]string, log io.Writer) (*HNSWRun, error) {
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

	var procs []*hnswPeerProc
	defer func() {
		for _, p := range procs {
			p.close()
		}
	}()
	for _, name := range cfg.Peers {
		fmt.Fprintf(log, "bench hnsw: efConstruction %d: building %s…\n", efc, name)
		p, pr, err := startHNSWPeer(name, bins[strings.SplitN(name, "-", 2)[0]], pd.files, metric, cfg, efc)
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
		run.Peers = append(run.Peers, *pr)
	}

	s := ix.NewSearcher()
	for r := range cfg.Rounds {
		fmt.Fprintf(log, "bench hnsw: efConstruction %d: round %d of %d…\n", efc, r+1, cfg.Rounds)
		sweep, err := hnswSweep(ds, truth, cfg, ix, s)
		if err != nil {
			return nil, err
		}
		run.Rounds = append(run.Rounds, sweep)
		for i, p := range procs {
			ps, err := p.sweep()
			if err != nil {
				return nil, err
			}
			run.Peers[i].Rounds = append(run.Peers[i].Rounds, ps)
		}
	}
	run.Sweep = medianSweep(run.Rounds)
	for i := range run.Peers {
		run.Peers[i].Sweep = medianSweep(run.Peers[i].Rounds)
	}
	for _, p := range procs {
		if err := p.close(); err != nil {
			procs = nil
			return nil, err
		}
	}
	procs = nil
	return run, nil
}

// hnswSweep sweeps every ef of cfg once with s over ix.
func hnswSweep(ds *dataset.Dataset, truth *dataset.GroundTruth, cfg HNSWConfig, ix *hnsw.Index, s *hnsw.Searcher) ([]HNSWPoint, error) {
	var out []HNSWPoint
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
		out = append(out, HNSWPoint{
			Ef: ef, Recall: m.Recall, QPS: m.QPS,
			P50: m.Latency.P50, P95: m.Latency.P95, DistComps: comps / float64(ds.Queries.N),
		})
	}
	return out, nil
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
