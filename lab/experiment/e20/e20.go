package e20

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/veclab/veclab/engine/segment"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// e20 is multi-segment search (Elastic's reply to Qdrant, Lucene 9.10's concurrent
// segment search and its shared top-k bound).
var e20 = experiment.Experiment{
	ID:     "E20",
	Claims: claims,
	Title:  "multi-segment search: segments searched sequentially, concurrently, and with a top-k bound shared across segments",
	Article: "Elastic's reply to Qdrant: searching segments concurrently raised throughput from 104 to 219 QPS; sharing the best-so-far bound across segments " +
		"(Lucene's MultiLeafKnnCollector) cut latency by up to 60 % at comparable recall",
	Figures: []experiment.Figure{
		{Row: "sequential", Measure: "QPS", Value: 104},
		{Row: "concurrent", Measure: "QPS", Value: 219},
		{Row: "shared bound", Measure: "latency cut", Value: 60, Unit: "% (up to)"},
	},
}

func init() { e20.Run, e20.Notebook = runE20, "08-segments-and-merges.ipynb"; experiment.Register(e20) }

// Segments is the segment count of E20, and Efs its ef sweep; it
// includes e20ArticleEf, the setting the shared bound's cut is read at.
var (
	Segments = 16
	Efs      = []int{20, 40, 80, e20ArticleEf, 150, 300}
)

// e20ArticleEf is the candidates per segment at which the shared bound was
// measured where it was introduced: Lucene's pull request #12962
// (apache/lucene, "Speedup concurrent multi-segment HNSW graph search 2",
// merged for Lucene 9.10, Elasticsearch 8.13) benchmarked it at k = 10
// with fanout 90, i.e. 100 candidates, and compared each setting with
// itself: the same k and candidates with and without the sharing, recall
// beside the visited nodes (e.g. 8 segments of 1 M Cohere vectors, k =
// 100, fanout 900: 81,824 → 36,851 nodes visited, 28 → 62 QPS, recall
// 0.997 → 0.983). The article's "up to 60 % … at comparable recall" is
// that comparison.
const e20ArticleEf = 100

// Result is the sweep of every mode.
type Result struct {
	Sequential, Concurrent, Shared, SharedConcurrent []experiment.SegmentMeasurement
	// CPU is what searching the segments concurrently gains at the middle
	// ef of the sweep, from CPU clocks (see e20ConcurrencyCPU); its
	// Speedup is 0 where thread CPU time cannot be read.
	CPU CPU
}

// CPU is concurrent segment search's gain measured from CPU clocks:
// each query searched sequentially with every segment's search timed on
// its thread's CPU clock, then the segments dealt to Workers idle cores
// as the engine's concurrent mode deals them (the next segment to the
// first free worker, the caller one of them), the rest of the query
// (planning, merging) left serial. Speedup is the queries' sequential
// CPU time over that schedule's length: the QPS ratio a search with the
// cores to itself reaches, which another job's load on the machine does
// not move, where the wall-time ratio falls to 1 when other jobs hold
// the cores (measured: 2.02× quiet, 0.98× beside six busy processes on 2
// cores).
type CPU struct {
	Ef, Workers, Queries int
	Sequential, Schedule time.Duration // per query, on average
	Speedup              float64
}

// e20ConcurrencyCPU measures [CPU] for search o over c on workers
// cores, over every query of env's data set.
func e20ConcurrencyCPU(env *experiment.Env, c *segment.Collection, o experiment.SegmentSearch, workers int) (CPU, error) {
	out := CPU{Ef: o.Ef, Workers: max(workers, 1)}
	ds, err := env.Dataset()
	if err != nil {
		return out, err
	}
	if o.K == 0 {
		o.K = env.Scale.K
	}
	so := o.Options()
	so.Mode, so.SegmentCPU = segment.Sequential, true
	// The caller's thread is held so that its clock, read around the
	// search, is the thread the segments ran on.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var seq, sched time.Duration
	for i := 0; i < ds.Queries.N; i++ {
		t0 := metrics.ThreadCPU()
		_, st, err := c.Search(ds.Queries.Row(i), so)
		t1 := metrics.ThreadCPU()
		if err != nil {
			return out, fmt.Errorf("experiment: E20 CPU clocks, query %d: %w", i, err)
		}
		if t0 == 0 || st.SegmentCPU == nil {
			return out, nil // no thread clock here: Speedup stays 0
		}
		total, segs := t1-t0, time.Duration(0)
		finish := make([]time.Duration, out.Workers)
		for _, d := range st.SegmentCPU {
			segs += d
			j := 0
			for w := range finish {
				if finish[w] < finish[j] {
					j = w
				}
			}
			finish[j] += d
		}
		seq += total
		sched += max(total-segs, 0) + slices.Max(finish)
		out.Queries++
	}
	if out.Queries > 0 && sched > 0 {
		out.Sequential, out.Schedule = seq/time.Duration(out.Queries), sched/time.Duration(out.Queries)
		out.Speedup = float64(seq) / float64(sched)
	}
	return out, nil
}

// String prints the measurement as a verdict's lab figure.
func (c CPU) String() string {
	if c.Speedup == 0 {
		return "not measured (no thread CPU clock)"
	}
	return fmt.Sprintf("%.2f× (CPU clocks: %.0f µs per query sequential, %.0f µs scheduled on %d cores; ef %d, %d queries)",
		c.Speedup, float64(c.Sequential.Nanoseconds())/1e3, float64(c.Schedule.Nanoseconds())/1e3, c.Workers, c.Ef, c.Queries)
}

// Measure builds a collection of segments and measures every ef of
// efs in the four modes, top k.
func Measure(env *experiment.Env, segments int, efs []int, k int) (*Result, error) {
	if len(efs) == 0 {
		return nil, fmt.Errorf("experiment: E20: no ef values: %w", experiment.ErrBadArgument)
	}
	b, err := experiment.BuildSegments(env, experiment.SegmentSetup{Segments: segments, BuildWorkers: max(env.Workers, 1)})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	res := &Result{}
	for _, ef := range efs {
		for _, v := range []struct {
			dst *[]experiment.SegmentMeasurement
			o   experiment.SegmentSearch
		}{
			{&res.Sequential, experiment.SegmentSearch{K: k, Ef: ef}},
			{&res.Concurrent, experiment.SegmentSearch{K: k, Ef: ef, Mode: segment.Concurrent}},
			{&res.Shared, experiment.SegmentSearch{K: k, Ef: ef, SharedBound: true}},
			{&res.SharedConcurrent, experiment.SegmentSearch{K: k, Ef: ef, Mode: segment.Concurrent, SharedBound: true}},
		} {
			m, err := experiment.MeasureSegments(env, b.Collection, v.o, 3, v.o.String())
			if err != nil {
				return nil, err
			}
			*v.dst = append(*v.dst, m)
		}
	}
	mid := efs[len(efs)/2]
	if res.CPU, err = e20ConcurrencyCPU(env, b.Collection, experiment.SegmentSearch{K: k, Ef: mid}, env.Machine.Cores); err != nil {
		return nil, err
	}
	return res, nil
}

func segPoints(ms []experiment.SegmentMeasurement, qps func(experiment.SegmentMeasurement) float64) []metrics.Point {
	out := make([]metrics.Point, len(ms))
	for i, m := range ms {
		out[i] = metrics.Point{Label: m.Label, Param: float64(m.Search.Ef), Recall: m.Recall, QPS: qps(m)}
	}
	return out
}

// e20RecallTolerance is how close two recalls must be to pair them.
const RecallTolerance = 0.01

// e20Pairs pairs each shared-bound point with the sequential point of
// nearest recall, within e20RecallTolerance, on distances per query (as
// "QPS" = 1/distances, so Speedup is the ratio of distances saved).
func Pairs(res *Result) []metrics.Pair {
	inv := func(m experiment.SegmentMeasurement) float64 { return 1 / m.DistComps }
	var out []metrics.Pair
	for _, p := range metrics.PairByRecall(segPoints(res.Shared, inv), segPoints(res.Sequential, inv)) {
		if p.RecallGap >= -RecallTolerance && p.RecallGap <= RecallTolerance {
			out = append(out, p)
		}
	}
	return out
}

// Table tabulates every mode at every ef, the article's QPS beside the
// plain sequential and concurrent rows.
func Table(env *experiment.Env, res *Result) *table.Table {
	k := res.Sequential[0].Search.K
	t := table.New(fmt.Sprintf("E20 %d documents in %d segments, top %d: the four ways to search them", env.Scale.N, res.Sequential[0].Segments, k),
		table.Col("ef", ""), table.Col("mode", ""),
		table.Column{Header: fmt.Sprintf("recall@%d", k), Source: table.Lab, Prec: 3})
	t.AddColumns(table.Pair("QPS", "", 1)...)
	t.AddColumns(table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: 0})
	for i := range res.Sequential {
		for _, m := range []experiment.SegmentMeasurement{res.Sequential[i], res.Concurrent[i], res.Shared[i], res.SharedConcurrent[i]} {
			var article any
			switch {
			case m.Search.SharedBound:
			case m.Search.Mode == segment.Concurrent:
				article = e20.ArticleValue("concurrent", "QPS")
			default:
				article = e20.ArticleValue("sequential", "QPS")
			}
			mode := m.Label[len(fmt.Sprintf("ef %d, ", m.Search.Ef)):]
			_ = t.AddValues(m.Search.Ef, mode, m.Recall, article, m.QPS, m.P50ms, m.DistComps)
		}
	}
	t.Note("the article's QPS figures (sequential 104, concurrent 219) are for its own data and machine; they sit beside every ef for direction only")
	return t
}

// PairTable pairs the shared-bound rows with the sequential rows of
// comparable recall (e20Pairs) and prints the distances saved.
func PairTable(res *Result) *table.Table {
	recall := "recall"
	if res != nil && len(res.Sequential) > 0 && res.Sequential[0].Search.K > 0 {
		recall = metrics.RecallHeader(res.Sequential[0].Search.K)
	}
	pt := table.New(fmt.Sprintf("E20 shared bound vs none at comparable recall (within ±%.2f)", RecallTolerance),
		table.Col("shared bound", ""), table.Column{Header: recall, Prec: 4}, table.Col("paired with", ""), table.Column{Header: recall, Prec: 4},
		table.Column{Header: "distances saved", Unit: "%", Source: table.Lab, Prec: 1})
	pairs := Pairs(res)
	for _, p := range pairs {
		_ = pt.AddValues(p.A.Label, p.A.Recall, p.B.Label, p.B.Recall, 100*(1-1/p.Speedup))
	}
	if len(pairs) == 0 {
		pt.Note("no shared-bound point has a sequential point within ±%.2f recall: widen the ef sweep", RecallTolerance)
	}
	pt.Note("distances are counted, not timed, so this comparison does not move with the machine's load; the article's figure is a latency cut of up to 60 %%")
	return pt
}

func runE20(env *experiment.Env) (*experiment.Report, error) {
	k := env.Scale.K
	res, err := Measure(env, Segments, Efs, k)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e20, env)
	r.AddTable(Table(env, res))
	r.AddChart(experiment.SegmentsChart(fmt.Sprintf("E20 %d segments: recall for the work, with and without the shared bound (lab)", Segments),
		[]string{"sequential", "shared bound"}, res.Sequential, res.Shared))
	mid := len(Efs) / 2
	r.Note("concurrency: at ef %d, %d workers give %.2f× the QPS of sequential search in wall time (the article: 219/104 = 2.11× on its machine); this machine has %d cores, and another job on them pulls the wall-time ratio towards 1",
		Efs[mid], env.Machine.Cores, res.Concurrent[mid].QPS/res.Sequential[mid].QPS, env.Machine.Cores)
	if res.CPU.Speedup > 0 {
		r.Note("concurrency from CPU clocks (what the verdict reads): every segment's search timed on its thread's CPU clock, the segments dealt to %d idle cores as the concurrent mode deals them: %s",
			res.CPU.Workers, res.CPU)
	}
	r.AddTable(PairTable(res))
	for i, m := range res.Sequential {
		if m.Search.Ef == e20ArticleEf {
			r.Note("the bound as its benchmark measured it (Lucene PR #12962: the same k and %d candidates with and without the sharing): %.0f → %.0f distances per query (%.0f %% fewer), recall %.3f → %.3f",
				e20ArticleEf, m.DistComps, res.Shared[i].DistComps, 100*(1-res.Shared[i].DistComps/m.DistComps), m.Recall, res.Shared[i].Recall)
		}
	}
	r.Note("how the bound works (Lucene 9.10, MultiLeafKnnCollector): segments share a heap of the best ef distances found anywhere; once a segment's own beam is full, it stops expanding a candidate further than max(its own ⌈0.1·ef⌉-th best, the global ef-th best), so segments searched after good ones give up early; they exchange distances every 256 visited nodes")
	r.Verdicts = append(r.Verdicts, Verdicts(env, res, nil)...)
	return r, nil
}

// Verdicts compares Measure's result with the article's figures:
// searching the segments concurrently gave 219 / 104 = 2.11× the QPS of
// sequential search (± 0.6×; the article's machine had more cores than
// this one may), with the same answers; the shared bound (Lucene's
// MultiLeafKnnCollector) cut latency by up to 60 % at comparable recall.
// That claim is judged at equal recall (the shared-bound and sequential
// points paired within ± RecallTolerance, Pairs), in distance
// computations (which the machine's load does not move), as two
// verdicts: the direction (fewer distances, a cut > 0) and the magnitude
// (60 ± 25 points, cut at 0 so more distances never agree). Until this
// commit it was judged at the same ef with and without the bound, as
// Lucene's PR #12962 measured it, where the bound also lowers recall
// (small scale: −63 %, recall 1.000 → 0.992, against −9 % at equal
// recall); that figure stays in the reason. glove, when not nil, is the
// same measurement on GloVe vectors and adds its two verdicts.
func Verdicts(env *experiment.Env, res, glove *Result) experiment.Verdicts {
	if res == nil || len(res.Sequential) == 0 || len(res.Concurrent) != len(res.Sequential) || len(res.Shared) != len(res.Sequential) {
		return experiment.Verdicts{experiment.Holds("E20", "the shared bound cuts the work at comparable recall", "up to 60 %", "not measured", false, "no measurement")}
	}
	mid := len(res.Sequential) / 2
	wall := res.Concurrent[mid].QPS / res.Sequential[mid].QPS
	var conc experiment.Verdict
	if res.CPU.Speedup > 0 {
		// CPU clocks: the same verdict on a quiet and a busy machine.
		conc = experiment.Within("E20", "concurrent segment search: QPS over sequential", 219.0/104, res.CPU.Speedup, 0.6, "×")
		conc.Lab = res.CPU.String()
		conc = experiment.Because(conc, fmt.Sprintf("each segment's search timed on its thread's CPU clock and dealt to %d idle cores as the concurrent mode deals them; wall time gave %.2f× in this run, which other jobs on the cores pull towards 1",
			res.CPU.Workers, wall))
	} else {
		conc = experiment.Within("E20", "concurrent segment search: QPS over sequential", 219.0/104, wall, 0.6, "×")
		conc = experiment.Because(conc, fmt.Sprintf("wall time (no thread CPU clock here), this machine has %d cores", env.Machine.Cores))
	}
	same := 0
	for i := range res.Sequential {
		if res.Concurrent[i].Recall == res.Sequential[i].Recall {
			same++
		}
	}
	out := experiment.Verdicts{
		conc,
		experiment.Holds("E20", "concurrent search answers as sequential search does", "same results", experiment.OfN(same, len(res.Sequential))+" ef settings with equal recall",
			same == len(res.Sequential), "the same per-segment searches, merged the same way"),
		experiment.Holds("E20", "the shared bound computes fewer distances at the same ef", "(the mechanism)",
			fmt.Sprintf("%.0f vs %.0f per query at ef %d", res.Shared[0].DistComps, res.Sequential[0].DistComps, res.Sequential[0].Search.Ef),
			res.Shared[0].DistComps < res.Sequential[0].DistComps, "segments searched after good ones stop early"),
	}
	out = append(out, e20Cut("", res)...)
	if glove != nil && len(glove.Sequential) > 0 && len(glove.Shared) == len(glove.Sequential) {
		out = append(out, e20Cut("on GloVe, ", glove)...)
	}
	return out
}

// e20Cut returns the verdicts on the shared bound's cut in r, in
// distances per query at equal recall (e20EqualRecallCut): its direction
// (fewer, > 0 %) and its magnitude (60 ± 25 %, cut at 0). The reason
// gives the cut at e20ArticleEf, the same ef with and without the bound,
// as Lucene's benchmark measured it, and the recall it cost. prefix
// starts the claims ("on GloVe, ").
func e20Cut(prefix string, r *Result) experiment.Verdicts {
	eq := e20EqualRecallCut(r)
	dir := experiment.Direction("E20", prefix+"the shared bound computes fewer distances at equal recall (± 0.01)", 60, eq, 0, 0, "%")
	// The ± 25 points are the band this claim had before; the pairing at
	// equal recall is new, after runs at the same ef agreed (−63 %,
	// recall 1.000 → 0.992) where equal recall gave −9 %.
	mag := experiment.Toward(experiment.Within("E20", prefix+"the shared bound cuts the work by up to 60 % at comparable recall", 60, eq, 25, "%"), 0)
	why := fmt.Sprintf("distances per query at equal recall (± %g): the largest cut of a shared-bound point against the sequential point of nearest recall", RecallTolerance)
	if math.IsNaN(eq) {
		why = fmt.Sprintf("no shared-bound point has a sequential point within ± %g recall", RecallTolerance)
	}
	at := -1
	for i, m := range r.Sequential {
		if m.Search.Ef == e20ArticleEf {
			at = i
		}
	}
	if at >= 0 {
		seq, sh := r.Sequential[at], r.Shared[at]
		why += fmt.Sprintf("; at k %d and ef %d both ways, as Lucene's PR #12962 measured the bound, %.0f → %.0f distances per query (%.0f %% fewer) but recall %.3f → %.3f",
			seq.Search.K, e20ArticleEf, seq.DistComps, sh.DistComps, 100*(1-sh.DistComps/seq.DistComps), seq.Recall, sh.Recall)
	} else {
		why += fmt.Sprintf("; the sweep has no ef %d, the setting Lucene's benchmark measured the bound at", e20ArticleEf)
	}
	why += "; distances, not latency, so the machine's load does not move it"
	return experiment.Verdicts{experiment.Because(dir, why), experiment.Because(mag, why)}
}

// e20EqualRecallCut is the largest cut in distances among the pairs at
// equal recall (e20Pairs), NaN without a pair.
func e20EqualRecallCut(r *Result) float64 {
	best := math.NaN()
	for _, p := range Pairs(r) {
		if c := 100 * (1 - 1/p.Speedup); p.Speedup > 0 && (math.IsNaN(best) || c > best) {
			best = c
		}
	}
	return best
}
