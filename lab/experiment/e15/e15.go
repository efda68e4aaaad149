package e15

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// e15 is async (io_uring-style) rescoring reads on and off (Elastic's reply to Qdrant).
var e15 = experiment.Experiment{
	ID:      "E15",
	Claims:  claims,
	Title:   "rescoring reads: sequential vs concurrent, warm vs cold page cache, device reads counted",
	Article: "Elastic's reply to Qdrant: Qdrant's async io_uring reads off/on gave 31.6 vs 35.8 QPS at ef = 50, and the disk served 0 IOPS during the run because the page cache was warm",
	Figures: []experiment.Figure{
		{Row: "warm page cache, sequential", Measure: "QPS", Value: 31.6},
		{Row: fmt.Sprintf("warm page cache, concurrent(%d)", e15Conc), Measure: "QPS", Value: 35.8},
		{Row: "warm page cache, sequential", Measure: "device reads/q", Value: 0},
		{Row: fmt.Sprintf("warm page cache, concurrent(%d)", e15Conc), Measure: "device reads/q", Value: 0},
	},
}

const e15Conc = 16

// e15Mode is one way E15 serves its rescoring reads.
type e15Mode struct {
	name string
	opt  store.Options
	conc int  // reads in flight
	cold bool // the file's pages evicted before every query
	nq   int  // timed queries
}

func init() { e15.Run, e15.Notebook = runE15, "07-disk-rescore-budget.ipynb"; experiment.Register(e15) }

// Result is what Modes measured: a point per mode for the table,
// and, for each pair of modes (warm, cold, simulated device), concurrent
// against sequential reads timed in alternating rounds, which the
// verdicts read.
type Result struct {
	Points []experiment.DiskPoint // warm sequential, warm concurrent, cold sequential, cold concurrent, then the simulated pair
	// Warm is how many times as fast concurrent reads are as sequential
	// ones with a warm page cache, in CPU time per query: the article's
	// QPS came from a load generator that kept the nodes' CPUs busy ("a
	// measurement whose ceiling is set by CPU"), where throughput goes
	// as the inverse of the CPU a query costs.
	Warm experiment.Rounds
	// WarmQueries is the number of queries each side of a warm round
	// times (passes × queries): Warm's costs over it are CPU per query.
	WarmQueries int
	// Cold and Sim are the same ratio in wall time per query, cold page
	// cache and simulated device: what concurrency buys there is waits
	// overlapped, which CPU time does not see. Sim has no rounds without
	// a simulated device.
	Cold, Sim experiment.Rounds
}

// e15Rounds is the number of alternating rounds behind each ratio of
// [Result], and e15WarmPasses the passes over the queries a warm side
// makes in one round (a warm pass takes some 40 ms at the article's
// scale, too short a span for one timing).
const Rounds, e15WarmPasses = 5, 3

// Modes measures the HNSW walked with 4-bit TurboQuant codes as Qdrant
// 1.18 ships them (the codes of the article's run: Qdrant's reply and
// Elastic's reproduction of it ran "TurboQuant 4-bit, async scorer on";
// experiment.HNSWCodes) at (ef, k, oversample) with its
// rescoring reads served each way: warm page cache or cold (the file's
// pages evicted before every query, untimed), sequential preads or conc
// in flight; sim adds a simulated device (e.g. "gp3"; "" for none) on up
// to 20 queries. Then it times each pair again, sequential against
// concurrent in alternating rounds (see [Result]).
func Modes(env *experiment.Env, ef int, oversample float64, conc int, sim string) (*Result, error) {
	if ef < 1 || conc < 1 {
		return nil, fmt.Errorf("experiment: E15: ef %d and concurrency %d must be ≥ 1: %w", ef, conc, experiment.ErrBadArgument)
	}
	if err := experiment.CheckOversample("E15", []float64{oversample}); err != nil {
		return nil, err
	}
	var model store.Model
	if sim != "" {
		m, err := store.ParseModel(sim)
		if err != nil {
			return nil, fmt.Errorf("experiment: E15: %v: %w", err, experiment.ErrBadArgument)
		}
		model = m
	}
	hn, err := experiment.HNSWCodes(env, 4)
	if err != nil {
		return nil, err
	}
	dir, path, cleanup, err := experiment.VectorFile(env)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	nq := env.Scale.Queries
	type mode = e15Mode
	modes := []mode{
		{"warm page cache, sequential", store.Options{}, 1, false, nq},
		{fmt.Sprintf("warm page cache, concurrent(%d)", conc), store.Options{}, conc, false, nq},
		{"cold page cache, sequential", store.Options{}, 1, true, nq},
		{fmt.Sprintf("cold page cache, concurrent(%d)", conc), store.Options{}, conc, true, nq},
	}
	if model.Enabled() {
		modes = append(modes,
			mode{"simulated " + model.Name + ", sequential", store.Options{Model: model}, 1, false, experiment.SimulatedCap(nq)},
			mode{fmt.Sprintf("%s, concurrent(%d)", "simulated "+model.Name, conc), store.Options{Model: model}, conc, false, experiment.SimulatedCap(nq)})
	}
	// open serves mode m's reads: a new search on them (one per client;
	// the rescorer is shared), the untimed step before each query (the
	// eviction of a cold mode) and the file to close.
	open := func(m mode) (func() experiment.DiskSearch, func() error, *store.File, error) {
		f, err := store.OpenFS(dir.FS, path, m.opt)
		if err != nil {
			return nil, nil, nil, err
		}
		var before func() error
		if m.cold {
			before = experiment.EvictAll(f)
		} else if _, err := f.Warm(); err != nil {
			f.Close()
			return nil, nil, nil, err
		}
		rs, err := rescore.New(f, env.Metric(), rescore.Options{Concurrency: m.conc})
		if err != nil {
			f.Close()
			return nil, nil, nil, err
		}
		return func() experiment.DiskSearch { return experiment.HnswSearch(hn, ef, oversample, rs) }, before, f, nil
	}
	steps := len(modes) + len(modes)/2
	res := &Result{}
	for i, m := range modes {
		env.Step(i, steps, "E15 modes")
		fn, before, f, err := open(m)
		if err != nil {
			return nil, err
		}
		p, err := experiment.MeasureDisk(env, m.name, float64(m.conc), env.Scale.K, m.nq, before, fn())
		f.Close()
		if err != nil {
			return nil, err
		}
		res.Points = append(res.Points, p)
	}
	for i := 0; i+1 < len(modes); i += 2 {
		env.Step(len(modes)+i/2, steps, "E15 rounds")
		seq, con := modes[i], modes[i+1]
		clock, passes := experiment.WallTime, 1
		if !seq.cold && !seq.opt.Model.Enabled() {
			clock, passes = experiment.CPUTime, e15WarmPasses
		}
		r, timedQ, err := e15Pair(env, open, seq, con, clock, passes)
		if err != nil {
			return nil, err
		}
		switch {
		case seq.opt.Model.Enabled():
			res.Sim = r
		case seq.cold:
			res.Cold = r
		default:
			res.Warm, res.WarmQueries = r, timedQ
		}
	}
	env.Step(steps, steps, "E15 modes")
	return res, nil
}

// e15Pair times mode con against mode seq in e15Rounds alternating
// rounds on clock, each side passes times over its queries: how many
// times as fast con's reads are, and the queries each side of a round
// timed. A CPU-time side is run as a load generator runs a server, by
// one client per core (the article's QPS was measured so, with the CPUs
// at their ceiling), on one P: no core idles, and the figure is the CPU a
// query costs when every core is busy. A wall-time side runs one query at a
// time, the untimed step before each (a cold mode's eviction) left out.
func e15Pair(env *experiment.Env, open func(e15Mode) (func() experiment.DiskSearch, func() error, *store.File, error), seq, con e15Mode, clock experiment.Clock, passes int) (experiment.Rounds, int, error) {
	ds, err := env.Dataset()
	if err != nil {
		return experiment.Rounds{}, 0, err
	}
	timedQ := passes * min(seq.nq, ds.Queries.N)
	k := env.Scale.K
	side := func(m e15Mode) (func() (time.Duration, error), func(), error) {
		newSearch, before, f, err := open(m)
		if err != nil {
			return nil, nil, err
		}
		nq := min(m.nq, ds.Queries.N)
		if evict := before; evict != nil {
			// One page was once seen still resident right after an
			// eviction in a run on a loaded machine: evict again, up to
			// three times, before giving up.
			before = func() error {
				err := evict()
				for try := 1; try < 3 && err != nil; try++ {
					err = evict()
				}
				return err
			}
		}
		if clock == experiment.CPUTime && before == nil {
			clients := make([]experiment.DiskSearch, max(env.Machine.Cores, 1))
			for c := range clients {
				clients[c] = newSearch()
			}
			run := func() (time.Duration, error) {
				return clock.Timed(func() error {
					errs := make([]error, len(clients))
					var wg sync.WaitGroup
					for c, fn := range clients {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range passes {
								for i := c; i < nq; i += len(clients) {
									if _, _, _, err := fn(ds.Queries.Row(i), k); err != nil {
										errs[c] = err
										return
									}
								}
							}
						}()
					}
					wg.Wait()
					return errors.Join(errs...)
				})
			}
			return run, func() { f.Close() }, nil
		}
		fn := newSearch()
		run := func() (time.Duration, error) {
			costs := make([]time.Duration, 0, passes*nq)
			for range passes {
				for i := range nq {
					if before != nil {
						if err := before(); err != nil {
							return 0, err
						}
					}
					d, err := clock.Timed(func() error { _, _, _, err := fn(ds.Queries.Row(i), k); return err })
					if err != nil {
						return 0, err
					}
					costs = append(costs, d)
				}
			}
			// The median query's time for every query: a query of a
			// millisecond or two that another job's time slice interrupts
			// takes several, and on a busy machine those outliers, not
			// the reads, set a sum (measured at load 8 on 2 cores: sums
			// gave rounds of 0.68–1.96×).
			slices.Sort(costs)
			return costs[len(costs)/2] * time.Duration(len(costs)), nil
		}
		return run, func() { f.Close() }, nil
	}
	a, closeA, err := side(con)
	if err != nil {
		return experiment.Rounds{}, 0, err
	}
	defer closeA()
	b, closeB, err := side(seq)
	if err != nil {
		return experiment.Rounds{}, 0, err
	}
	defer closeB()
	if clock == experiment.CPUTime {
		// One P for the CPU-time rounds: a server at its ceiling has no
		// idle core for a query's reader goroutines to wake a spinning
		// thread on, so they run where the query runs, and this gives
		// that state on any machine. With every P, another job's load
		// made the runtime hand Ps off and spin, and the ratio moved
		// with the load (measured: 0.84× quiet, 0.72× beside six busy
		// processes on 2 cores; with one P 0.80× and 0.85×).
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	r, err := experiment.Alternate(Rounds, clock, a, b)
	return r, timedQ, err
}

// Table puts the modes beside the article's figures.
func Table(env *experiment.Env, ef int, oversample float64, res *Result) *table.Table {
	t := table.New(fmt.Sprintf("E15 rescoring reads (HNSW, TurboQuant 4-bit codes in RAM, originals on disk, ef=%d, k=%d, oversample %g)", ef, env.Scale.K, oversample),
		table.Col("reads served by", ""))
	measure.SimulatedNote(t)
	t.AddColumns(table.Pair("QPS", "", 0)...)
	t.AddColumns(table.Column{Header: metrics.RecallHeader(env.Scale.K), Source: table.Lab, Prec: 3},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "reads/q", Source: table.Lab, Prec: 1})
	t.AddColumns(table.Pair("device reads/q", "", 1)...)
	t.AddColumns(table.Column{Header: "queries", Source: table.Lab, Prec: -1})
	for _, p := range res.Points {
		_ = t.AddValues(p.Label, e15.ArticleValue(p.Label, "QPS"), p.QPS, p.Recall, p.P50ms, p.Reads,
			e15.ArticleValue(p.Label, "device reads/q"), p.DeviceReads, p.Queries)
	}
	t.Note("article: Qdrant on a 3-node cluster, 21 M vectors, a load generator; its async reads changed little because the page cache served them (0 device IOPS). Lab: one process, one query at a time, %d vectors; device reads/q = reads whose pages were not all resident (a mincore probe before each read: a resident row is copied from the file's mapping, a missing one read with pread)", env.Scale.N)
	t.Note("cold = the vector file's pages evicted (fsync + posix_fadvise DONTNEED, checked by mincore) before every query, untimed; simulated rows add an engine/store latency model to every read (SIMULATED, not a measured device; gp3 = %s)", store.GP3Baseline)
	t.Note("concurrent over sequential, timed again in alternating rounds (what the verdicts read): warm %s; cold %s; simulated %s", res.Warm, res.Cold, res.Sim)
	return t
}

func runE15(env *experiment.Env) (*experiment.Report, error) {
	const ef, over = 50, 3
	res, err := Modes(env, ef, over, e15Conc, "gp3")
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e15, env)
	r.AddTable(Table(env, ef, over, res))
	if ps := res.Points; len(ps) >= 4 {
		r.Note("lab: warm %0.f → %0.f QPS with %d reads in flight, one query at a time (the article's 31.6 → 35.8 under a load generator: little to gain when the cache serves every read); in CPU time per query concurrent reads run at %.2f× sequential's speed; cold %0.f → %0.f QPS with %.1f device reads per query",
			ps[0].QPS, ps[1].QPS, e15Conc, res.Warm.Median(), ps[2].QPS, ps[3].QPS, ps[2].DeviceReads)
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, res)...)
	return r, nil
}

// Verdicts compares Modes's result with the article's finding: with
// a warm page cache the disk served 0 IOPS (0 device reads per query,
// sequential and concurrent), and concurrent rescoring reads changed QPS
// little: 31.6 → 35.8, 1.13× faster, a move the article calls run-to-run
// noise (ReplyNoise, 13 %). That is two claims, judged apart: the
// direction (concurrent reads faster, > 1×) and the magnitude (1.13× ±
// the article's own 13 % noise, the band cut at 1× so a slowdown never
// agrees). The warm ratio is CPU time per query (the article's QPS was a
// CPU-bound load generator's), measured in alternating rounds; the
// magnitude is judged on their median, the band not widened to their
// spread.
// Cold, and on the simulated device (the lab's additions), concurrent
// reads should be faster by more than the article's 13 % noise in three
// rounds of four (the rounds' lower quartile; wall time, alternating
// rounds, see fasterRounds), because each read then waits for the device.
func Verdicts(env *experiment.Env, res *Result) experiment.Verdicts {
	if res == nil || len(res.Points) < 4 {
		n := 0
		if res != nil {
			n = len(res.Points)
		}
		return experiment.Verdicts{experiment.Holds("E15", "warm, concurrent reads change QPS little", "1.13×", "not measured", false, fmt.Sprintf("%d of the 4 modes measured", n))}
	}
	seqW, conW, seqC := res.Points[0], res.Points[1], res.Points[2]
	// The article's warm sequential and concurrent QPS (its first two figures).
	art := e15.Figures[1].Value / e15.Figures[0].Value
	dev := experiment.Within("E15", "warm page cache: no device read per query, sequential or concurrent (the article's 0 IOPS)", 0, math.Max(seqW.DeviceReads, conW.DeviceReads), 0, "reads/q")
	dir := experiment.Direction("E15", "warm page cache: concurrent reads are faster than sequential (the direction of the article's 31.6 → 35.8 QPS)", art, res.Warm.Median(), 1, 0, "×")
	dir.Lab = res.Warm.String()
	// Band changed after runs: until this commit "little" was 1.13 ± 0.37
	// (under 1.5×, the same distance below), which agreed with the lab's
	// 0.80–0.83× (concurrent slower); it is now the article's own 13 %
	// noise, cut at 1×.
	// The band is not widened to the rounds' spread (as the lab's WithinRounds did):
	// a spread as wide as a noisy run's would let any figure above 1×
	// agree; the rounds' span is printed beside the median instead.
	warm := experiment.Toward(experiment.Within("E15", "warm page cache: concurrent reads change QPS little (concurrent / sequential QPS)", art, res.Warm.Median(), experiment.ReplyNoise, "×"), 1)
	warm.Lab = res.Warm.String()
	if con, seq := res.Warm.MedianCosts(); con > 0 && res.WarmQueries > 0 {
		// The two modes read the same rows and compute the same distances
		// (same recall, same reads per query); what differs is the CPU
		// each query costs, which the rounds measured.
		perQ := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(res.WarmQueries) }
		cost := fmt.Sprintf("concurrent reads cost %.0f µs of CPU per query against %.0f µs sequential, for the same %.0f reads and %.1f device reads per query to overlap",
			perQ(con), perQ(seq), conW.Reads, conW.DeviceReads)
		if !warm.Agrees {
			warm = experiment.Because(warm, cost)
		}
		if !dir.Agrees {
			dir = experiment.Because(dir, cost)
		}
	}
	out := experiment.Verdicts{
		dev,
		dir,
		warm,
		experiment.FasterRounds("E15", "cold page cache (lab's addition): concurrent reads are faster than sequential", "faster", res.Cold, experiment.ReplyNoise,
			fmt.Sprintf("%.1f device reads/q overlap", seqC.DeviceReads),
			fmt.Sprintf("not yet explained (%.1f device reads/q each way)", seqC.DeviceReads)),
	}
	if len(res.Points) >= 6 {
		out = append(out, experiment.FasterRounds("E15", "simulated device (lab's addition): concurrent reads are faster than sequential", "faster", res.Sim, experiment.ReplyNoise,
			"each read waits for the device's latency", "not yet explained"))
	}
	return out
}
