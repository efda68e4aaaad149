package e06

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/internal/latency"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e06 is the article's Redis EF_RUNTIME sweep (06-redis-ef-runtime.txt).
var e06 = experiment.Experiment{
	ID:      "E06",
	Claims:  claims,
	Title:   "Redis EF_RUNTIME: the library default (10) against 50 and 200",
	Article: "Spring AI VectorStore article, 06-redis-ef-runtime.txt: index rebuilt and reloaded per setting",
	Figures: []experiment.Figure{
		{Row: "10", Measure: "recall@10", Value: 0.616}, {Row: "10", Measure: "p50", Value: 0.6, Unit: "ms"},
		{Row: "50", Measure: "recall@10", Value: 0.962}, {Row: "50", Measure: "p50", Value: 0.6, Unit: "ms"},
		{Row: "200", Measure: "recall@10", Value: 1.000}, {Row: "200", Measure: "p50", Value: 0.8, Unit: "ms"},
		{Row: "10", Measure: "filtered recall@10", Value: 1.000}, {Row: "10", Measure: "filtered p50", Value: 1.6, Unit: "ms"},
		{Row: "50", Measure: "filtered recall@10", Value: 1.000}, {Row: "50", Measure: "filtered p50", Value: 1.3, Unit: "ms"},
		{Row: "200", Measure: "filtered recall@10", Value: 1.000}, {Row: "200", Measure: "filtered p50", Value: 1.3, Unit: "ms"},
	},
}

func init() { e06.Run, e06.Notebook = runE06, "02-redis-ef-runtime.ipynb"; experiment.Register(e06) }

// Default is the article's sweep: the default EF_RUNTIME, 50 and 200.
var Default = []int{10, 50, 200}

// Measure measures the Redis store at each EF_RUNTIME. EF_RUNTIME is a
// query-time parameter (the graph is built with EF_CONSTRUCTION), so one
// build serves every setting; the article rebuilt its index each time,
// which gives the same graph here (deterministic build). The settings
// are measured in alternating rounds (experiment.Env.Alternate), so that
// the p50 ratios compare rounds measured side by side.
func Measure(env *experiment.Env, efs []int) ([]experiment.Measurement, error) {
	if len(efs) == 0 {
		return nil, fmt.Errorf("experiment: E06: no EF_RUNTIME values: %w", experiment.ErrBadArgument)
	}
	s, err := env.Store(profile.Default(profile.Redis))
	if err != nil {
		return nil, err
	}
	out := make([]experiment.Measurement, len(efs))
	err = env.Alternate(len(efs), func(i int) error {
		env.Step(i, len(efs), "E06 EF_RUNTIME")
		m, err := experiment.Measure(env, s.WithEf(efs[i]), strconv.Itoa(efs[i]))
		out[i] = m
		return err
	})
	if err != nil {
		return nil, err
	}
	env.Step(len(efs), len(efs), "E06 EF_RUNTIME")
	return out, nil
}

// MeasureFiltered measures the Redis store at each EF_RUNTIME with the
// article's filter through Redis's hybrid policy (engine/filtered: the
// VecSim decision tree picks ADHOC_BF or BATCHES), in alternating rounds
// as Measure.
func MeasureFiltered(env *experiment.Env, efs []int) ([]experiment.Measurement, error) {
	if len(efs) == 0 {
		return nil, fmt.Errorf("experiment: E06: no EF_RUNTIME values: %w", experiment.ErrBadArgument)
	}
	s, err := env.Store(profile.Default(profile.Redis))
	if err != nil {
		return nil, err
	}
	out := make([]experiment.Measurement, len(efs))
	err = env.Alternate(len(efs), func(i int) error {
		env.Step(i, len(efs), "E06 filtered")
		m, err := experiment.MeasureFiltered(env, s.WithEf(efs[i]), experiment.ArticleFilter, strconv.Itoa(efs[i]))
		out[i] = m
		return err
	})
	if err != nil {
		return nil, err
	}
	env.Step(len(efs), len(efs), "E06 filtered")
	return out, nil
}

// Table puts the sweep beside the article's figures; fms (the filtered
// measurements, same order) may be nil.
func Table(env *experiment.Env, ms, fms []experiment.Measurement) *table.Table {
	t := table.New(fmt.Sprintf("E06 Redis HNSW EF_RUNTIME (M=16, EF_CONSTRUCTION=200), %d queries, topK=%d", env.Scale.Queries, env.Scale.K),
		table.Col("EF_RUNTIME", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	t.AddColumns(table.Pair("p50", "ms", 2)...)
	if fms != nil {
		t.AddColumns(table.Pair("filtered recall@10", "", 3)...)
		t.AddColumns(table.Pair("filtered p50", "ms", 2)...)
	}
	t.AddColumns(table.Column{Header: "effective ef", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Column{Header: "distances/query", Source: table.Lab, Prec: -1})
	for i, m := range ms {
		label := m.Label
		if label == "10" {
			label = "10 (default)"
		}
		row := []any{label,
			e06.ArticleValue(m.Label, "recall@10"), m.Recall,
			e06.ArticleValue(m.Label, "p50"), m.P50ms()}
		if fms != nil {
			var fr, fp any
			if i < len(fms) {
				fr, fp = fms[i].Recall, fms[i].P50ms()
			}
			row = append(row, e06.ArticleValue(m.Label, "filtered recall@10"), fr, e06.ArticleValue(m.Label, "filtered p50"), fp)
		}
		row = append(row, m.Plan.Ef, m.DistComps)
		_ = t.AddValues(row...)
	}
	t.Note("effective ef = max(EF_RUNTIME, k) (VecSim); with the default 10 and topK 10 the walk keeps no slack")
	if env.Calibrated() {
		t.Note("calibrated: the generator's spread (1.0) was fitted to this curve (the article's recall@10 at EF_RUNTIME 10 / 50 / 200), so the unfiltered recall column agrees partly by construction (notebook 03's spread table shows how it moves)")
	}
	if fms != nil {
		t.Note("filtered: %s, through RediSearch's hybrid policy (its decision tree picks ADHOC_BF, an exact scan of the matching documents, for a small index and a selective filter, whatever EF_RUNTIME is)", experiment.ArticleFilter)
	}
	return t
}

// Chart draws recall@10 against EF_RUNTIME, the article's and the lab's.
func Chart(ms []experiment.Measurement) *chart.Line {
	return experiment.SweepChart(e06, "Redis EF_RUNTIME vs recall@10", "EF_RUNTIME", ms)
}

// e06Sweep runs the sweep, unfiltered and filtered, and returns its table
// (a notebook's one-liner).
func e06Sweep(env *experiment.Env, efs []int) (*table.Table, error) {
	ms, err := Measure(env, efs)
	if err != nil {
		return nil, err
	}
	fms, err := MeasureFiltered(env, efs)
	if err != nil {
		return nil, err
	}
	return Table(env, ms, fms), nil
}

func runE06(env *experiment.Env) (*experiment.Report, error) {
	ms, err := Measure(env, Default)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e06, env)
	fms, err := MeasureFiltered(env, Default)
	if err != nil {
		r.Note("filtered columns not measured: %v", err)
		fms = nil
	}
	r.AddTable(Table(env, ms, fms))
	r.AddChart(Chart(ms))
	r.Verdicts = append(r.Verdicts, Verdicts(env, ms)...)
	r.Verdicts = append(r.Verdicts, FilteredVerdicts(fms)...)
	r.Verdicts = append(r.Verdicts, LatencyVerdicts(ms, fms)...)
	return r, nil
}

// Verdicts compares Measure's recall@10 per EF_RUNTIME with the
// article's (± 0.05).
// Every row is on the curve the generator's spread was fitted to, so each
// reason says it is calibrated (experiment.Calibrate).
func Verdicts(env *experiment.Env, ms []experiment.Measurement) experiment.Verdicts {
	vs := experiment.RecallVerdicts(env, e06, ms, "(Redis EF_RUNTIME):")
	for i, v := range vs {
		vs[i] = experiment.Calibrate(env, v)
	}
	return vs
}

// FilteredVerdicts compares MeasureFiltered's recall@10 per EF_RUNTIME
// with the article's filtered column (1.000 at every setting, ± 0.05 as
// every recall verdict). Not calibrated: on the article's index and
// filter RediSearch's hybrid policy scores the matching documents
// exactly (ADHOC_BF), so the fitted spread does not enter; each reason
// gives the distances per query, the matching documents when it does.
func FilteredVerdicts(fms []experiment.Measurement) experiment.Verdicts {
	var out experiment.Verdicts
	for _, m := range fms {
		f, ok := e06.Figure(m.Label, "filtered recall@10")
		if !ok {
			continue
		}
		v := experiment.Within("E06", fmt.Sprintf("%s (Redis EF_RUNTIME): filtered recall@10 is %.3f", m.Label, f.Value), f.Value, m.Recall, experiment.RecallTolerance, "")
		out = append(out, experiment.Because(v, fmt.Sprintf("%.0f distances per query", m.DistComps)))
	}
	return out
}

// LatencyVerdicts judges the article's p50 columns by their shape: each
// setting's p50 over the default's, unfiltered (ms) and filtered (fms,
// may be nil), within ×/÷ 2 of the article's (0.6 → 0.6 → 0.8 ms and
// 1.6 → 1.3 → 1.3 ms). The article's unfiltered column is nearly flat
// although EF_RUNTIME 200 walks many times the nodes of 10: a lab ratio
// beyond the band names the search work it reads, which the lab times
// without the client round trip that floors the article's figures.
func LatencyVerdicts(ms, fms []experiment.Measurement) experiment.Verdicts {
	var out experiment.Verdicts
	for _, col := range []struct {
		measure, what string
		ms            []experiment.Measurement
	}{{"p50", "p50", ms}, {"filtered p50", "filtered p50", fms}} {
		if len(col.ms) < 2 || col.ms[0].Label != "10" || col.ms[0].Latency.P50 <= 0 {
			continue
		}
		base := col.ms[0]
		art0, ok := e06.Figure(base.Label, col.measure)
		if !ok {
			continue
		}
		// The judged p50s: thread CPU time where every row has it; each
		// ratio the median of its alternating rounds' (Measure).
		ts := make([]latency.Timing, len(col.ms))
		for i, m := range col.ms {
			ts[i] = latency.Of(m)
		}
		jd := latency.Judged(ts...)
		p50 := func(i int) float64 { return float64(jd.Lats[i].P50) / float64(time.Millisecond) }
		for j, m := range col.ms[1:] {
			lab, lab0 := p50(j+1), p50(0)
			ratio, rounds := jd.Over(j+1, 0, latency.P50)
			f, ok := e06.Figure(m.Label, col.measure)
			if !ok {
				continue
			}
			// No direction is cut (Toward): the article's claim is the
			// column's flatness (0.6–0.8 ms unfiltered, 1.3–1.6 ms
			// filtered, at one printed decimal), not that a wider beam is
			// slower or faster; either way out of the band, the lab's
			// ratio shows the walk the article's round trip hides.
			const roundTrip = "the client round trip through Spring AI and Jedis, which the article's flat 0.6–0.8 ms suggests is most of its p50 (E02: Redis's 0.7 ms), so the walk's growth shows in the lab's ratio and hides in the article's"
			out = append(out, latency.Ratio{ID: "E06", Claim: fmt.Sprintf("%s (Redis EF_RUNTIME): %s over the default's (10)", m.Label, col.what),
				Article: f.Value / art0.Value, Lab: ratio, Rounds: rounds,
				Why:   fmt.Sprintf("article %.1f → %.1f ms, lab %.3f → %.3f ms; %.0f distances per query against %.0f (%.1f×)", art0.Value, f.Value, lab0, lab, m.DistComps, base.DistComps, m.DistComps/math.Max(base.DistComps, 1)),
				Above: roundTrip, Below: roundTrip, Clock: jd.Clock}.Verdict())
		}
	}
	return out
}
