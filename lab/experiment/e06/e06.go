package e06

import (
	"fmt"
	"strconv"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
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
// which gives the same graph here (deterministic build).
func Measure(env *experiment.Env, efs []int) ([]experiment.Measurement, error) {
	if len(efs) == 0 {
		return nil, fmt.Errorf("experiment: E06: no EF_RUNTIME values: %w", experiment.ErrBadArgument)
	}
	s, err := env.Store(profile.Default(profile.Redis))
	if err != nil {
		return nil, err
	}
	var out []experiment.Measurement
	for i, ef := range efs {
		env.Step(i, len(efs), "E06 EF_RUNTIME")
		m, err := experiment.Measure(env, s.WithEf(ef), strconv.Itoa(ef))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	env.Step(len(efs), len(efs), "E06 EF_RUNTIME")
	return out, nil
}

// MeasureFiltered measures the Redis store at each EF_RUNTIME with the
// article's filter through Redis's hybrid policy (engine/filtered: the
// VecSim decision tree picks ADHOC_BF or BATCHES).
func MeasureFiltered(env *experiment.Env, efs []int) ([]experiment.Measurement, error) {
	s, err := env.Store(profile.Default(profile.Redis))
	if err != nil {
		return nil, err
	}
	var out []experiment.Measurement
	for i, ef := range efs {
		env.Step(i, len(efs), "E06 filtered")
		m, err := experiment.MeasureFiltered(env, s.WithEf(ef), experiment.ArticleFilter, strconv.Itoa(ef))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
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
