package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

// FlatConfig says what [Flat] measures. Start from [DefaultFlatConfig].
type FlatConfig struct {
	K          int     // neighbours per query
	MinSeconds float64 // minimum timed seconds of queries per round (each round has ≥ 21 pairs anyway)
	Reps       int     // rounds; with C, ours and the C loop alternate round by round
	// C also runs the plain C loop of bench/peers/cflat (g++ -O3
	// -march=native) on the same vectors, in alternation with ours.
	C       bool
	PeerSrc string // the bench/peers directory ("": found above the working directory)
}

// DefaultFlatConfig is `veclab bench flat`'s defaults: k 10, three rounds
// of at least half a second each, beside the C loop.
func DefaultFlatConfig() FlatConfig {
	return FlatConfig{K: 10, MinSeconds: 0.5, Reps: 3, C: true}
}

// Validate reports every problem of c at once.
func (c FlatConfig) Validate() error {
	var bad []string
	if c.K < 1 {
		bad = append(bad, fmt.Sprintf("k %d < 1", c.K))
	}
	if c.Reps < 1 {
		bad = append(bad, fmt.Sprintf("reps %d < 1", c.Reps))
	}
	if !(c.MinSeconds >= 0) {
		bad = append(bad, fmt.Sprintf("min-seconds %g < 0", c.MinSeconds))
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: flat: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// FlatRound is one round of one side: medians of the floor passes (one
// pass streaming the slab) and of the queries, the median of the per-pair
// ratios query / adjacent pass (each pair sees the same machine, so other
// load disturbs this figure least), the same by the thread's CPU time
// (which leaves out the time other processes held the core; 0: unknown),
// and the fastest of each.
type FlatRound struct {
	FloorMs, QueryMs         float64
	Ratio, CPURatio          float64
	FastFloorMs, FastQueryMs float64
	Load                     string // load average at the end of the round
}

// FlatReport is the outcome of [Flat].
type FlatReport struct {
	Config  FlatConfig
	N, Dim  int
	Metric  engine.Metric
	Kernels string  // vec.KernelName(): the distance kernels in use
	SlabMB  float64 // the base vectors' float32 bytes, 10⁶
	Load    string  // load average when the measurement started
	Ours    []FlatRound
	C       []FlatRound // one per round of Ours when Config.C, else nil
	// CSame of CRanks ranks of query 0's answer are the same id in the
	// same order in the C loop's answer as in ours.
	CSame, CRanks int
}

// Flat times exact search of engine/flat on one goroutine against the
// memory floor: each round alternates a pass streaming the slab
// (flat.StreamTime) and one query, for ≥ MinSeconds of queries and ≥ 21
// pairs. With C, the C loop's harness runs the same alternation on the
// same vectors after each of our rounds. Progress goes to log (nil: none).
func Flat(ds *dataset.Dataset, metric engine.Metric, cfg FlatConfig, log io.Writer) (*FlatReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ds == nil || ds.Base == nil || ds.Queries == nil || ds.Queries.N == 0 {
		return nil, fmt.Errorf("bench: flat: no data set or no queries: %w", engine.ErrInvalidArgument)
	}
	if log == nil {
		log = io.Discard
	}
	rep := &FlatReport{Config: cfg, N: ds.Base.N, Dim: ds.Base.Dim, Metric: metric, Kernels: vec.KernelName(),
		SlabMB: float64(len(ds.Base.Data)*4) / 1e6, Load: LoadAverage()}
	var cbin string
	var pd *peerDir
	if cfg.C {
		var err error
		if pd, err = newPeerDir("flat", ds, nil); err != nil {
			return nil, err
		}
		defer pd.remove()
		if cbin, err = pd.build(cfg.PeerSrc, "cflat", "flat_bench", log); err != nil {
			return nil, err
		}
	}
	x, err := flat.New(ds.Base, flat.Config{Metric: metric, Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("bench: flat: %w", err)
	}
	first, _, err := x.Search(ds.Queries.Row(0), cfg.K, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: flat: %w", err)
	}
	for range cfg.Reps {
		r, err := flatVsFloor(x, ds, cfg.K, cfg.MinSeconds)
		if err != nil {
			return nil, fmt.Errorf("bench: flat: %w", err)
		}
		r.Load = LoadAverage()
		rep.Ours = append(rep.Ours, r)
		if cbin == "" {
			continue
		}
		out, err := runPeer("C", exec.Command(cbin, "-base", pd.files.Base, "-query", pd.files.Queries,
			"-metric", metric.String(), "-k", strconv.Itoa(cfg.K), "-min-seconds", strconv.FormatFloat(cfg.MinSeconds, 'g', -1, 64)))
		if err != nil {
			return nil, err
		}
		var c cFlatResult
		if err := json.Unmarshal(out, &c); err != nil {
			return nil, fmt.Errorf("bench: flat: C peer output %q: %w", out, err)
		}
		if len(rep.C) == 0 {
			rep.CRanks = len(first)
			for i, id := range c.FirstIDs {
				if i < len(first) && int(first[i].ID) == id {
					rep.CSame++
				}
			}
		}
		rep.C = append(rep.C, FlatRound{FloorMs: c.StreamMS, QueryMs: c.QueryMS, Ratio: c.PairRatio, CPURatio: c.CPURatio,
			FastFloorMs: c.FastStrMS, FastQueryMs: c.FastQMS, Load: LoadAverage()})
	}
	return rep, nil
}

// FlatSummary is the median over rounds of each figure of [FlatRound];
// FastRatio is the median fastest query over the median fastest pass.
type FlatSummary struct {
	FloorMs, QueryMs, Ratio, CPURatio, FastQueryMs, FastFloorMs, FastRatio float64
}

// Summarize returns the medians of rounds.
func Summarize(rounds []FlatRound) FlatSummary {
	col := func(get func(FlatRound) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = get(r)
		}
		return median(v)
	}
	s := FlatSummary{
		FloorMs: col(func(r FlatRound) float64 { return r.FloorMs }), QueryMs: col(func(r FlatRound) float64 { return r.QueryMs }),
		Ratio: col(func(r FlatRound) float64 { return r.Ratio }), CPURatio: col(func(r FlatRound) float64 { return r.CPURatio }),
		FastQueryMs: col(func(r FlatRound) float64 { return r.FastQueryMs }), FastFloorMs: col(func(r FlatRound) float64 { return r.FastFloorMs }),
	}
	if s.FastFloorMs > 0 {
		s.FastRatio = s.FastQueryMs / s.FastFloorMs
	}
	return s
}

// cFlatResult is the JSON of bench/peers/cflat/flat_bench.
type cFlatResult struct {
	N         int     `json:"n"`
	Rounds    int     `json:"rounds"`
	StreamMS  float64 `json:"stream_ms"`
	QueryMS   float64 `json:"query_ms"`
	PairRatio float64 `json:"pair_ratio"`
	FastStrMS float64 `json:"fastest_stream_ms"`
	FastQMS   float64 `json:"fastest_query_ms"`
	CPURatio  float64 `json:"cpu_pair_ratio"`
	FirstIDs  []int   `json:"first_ids"`
}

// flatVsFloor alternates a Stream pass over the slab and one query of x
// (k nearest, queries in turn) for at least minSeconds of queries and 21
// pairs, on one locked OS thread.
//
// It is not a metrics.Loop: its figures are per-pair ratios (each query's
// time over the stream pass just before it, by wall and by thread CPU
// time), and the loop returns each arm's summary, not the pairs; it
// scores no recall and reads no QPS.
func flatVsFloor(x *flat.Index, ds *dataset.Dataset, k int, minSeconds float64) (FlatRound, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var floor, query, ratio, cpu []float64
	var total time.Duration
	for i := 0; total.Seconds() < minSeconds || i < 21; i++ {
		c0 := metrics.ThreadCPU()
		p := flat.StreamTime(ds.Base, 1)
		c1 := metrics.ThreadCPU()
		t := time.Now()
		if _, _, err := x.Search(ds.Queries.Row(i%ds.Queries.N), k, nil); err != nil {
			return FlatRound{}, err
		}
		d := time.Since(t)
		c2 := metrics.ThreadCPU()
		total += d
		floor, query = append(floor, ms(p)), append(query, ms(d))
		ratio = append(ratio, d.Seconds()/p.Seconds())
		if c1 > c0 {
			cpu = append(cpu, (c2-c1).Seconds()/(c1-c0).Seconds())
		}
	}
	r := FlatRound{FloorMs: median(floor), QueryMs: median(query), Ratio: median(ratio),
		FastFloorMs: slices.Min(floor), FastQueryMs: slices.Min(query)}
	if len(cpu) > 0 {
		r.CPURatio = median(cpu)
	}
	return r, nil
}

// median returns the median of v (the mean of the middle two of an even
// count), 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
