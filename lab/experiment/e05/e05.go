package e05

import (
	"fmt"
	"math"
	"strconv"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e05 is the article's Elasticsearch num_candidates sweep
// (05-elasticsearch-num-candidates.txt).
var e05 = experiment.Experiment{
	ID:      "E05",
	Claims:  claims,
	Title:   "Elasticsearch num_candidates 15 / 50 / 100 / 500 on the default (bbq_hnsw) index",
	Article: "Spring AI VectorStore article, 05-elasticsearch-num-candidates.txt: same index, raw _search",
	Figures: []experiment.Figure{
		{Row: "15", Measure: "recall@10", Value: 0.491}, {Row: "15", Measure: "p50", Value: 4.5, Unit: "ms"},
		{Row: "50", Measure: "recall@10", Value: 0.489}, {Row: "50", Measure: "p50", Value: 3.9, Unit: "ms"},
		{Row: "100", Measure: "recall@10", Value: 0.490}, {Row: "100", Measure: "p50", Value: 3.8, Unit: "ms"},
		{Row: "500", Measure: "recall@10", Value: 0.490}, {Row: "500", Measure: "p50", Value: 4.0, Unit: "ms"},
	},
}

func init() {
	e05.Run, e05.Notebook = runE05, "03-elasticsearch-quantized-default.ipynb"
	experiment.Register(e05)
}

// Default is the article's sweep.
var Default = []int{15, 50, 100, 500}

// Measure measures the default Elasticsearch store at each
// num_candidates (the rescoring oversample stays at its default).
func Measure(env *experiment.Env, ncs []int) ([]experiment.Measurement, error) {
	if len(ncs) == 0 {
		return nil, fmt.Errorf("experiment: E05: no num_candidates values: %w", experiment.ErrBadArgument)
	}
	p := profile.Default(profile.Elasticsearch)
	if typ := p.EffectiveType(env.Scale.Dim); typ != profile.BBQHNSW {
		return nil, fmt.Errorf("experiment: E05 needs the bbq_hnsw default, which Elasticsearch picks only for dims ≥ %d (scale has %d, giving %s): %w", profile.BBQDimsThreshold, env.Scale.Dim, typ, experiment.ErrNotRunnable)
	}
	s, err := env.Store(p)
	if err != nil {
		return nil, err
	}
	var out []experiment.Measurement
	for i, nc := range ncs {
		env.Step(i, len(ncs), "E05 num_candidates")
		m, err := experiment.Measure(env, s.WithEf(nc), strconv.Itoa(nc))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	env.Step(len(ncs), len(ncs), "E05 num_candidates")
	return out, nil
}

// Table puts the sweep beside the article's figures.
func Table(env *experiment.Env, ms []experiment.Measurement) *table.Table {
	t := table.New(fmt.Sprintf("E05 Elasticsearch num_candidates on the default index (bbq_hnsw, oversample 3), %d queries, k=%d", env.Scale.Queries, env.Scale.K),
		table.Col("num_candidates", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	t.AddColumns(table.Pair("p50", "ms", 2)...)
	t.AddColumns(table.Column{Header: "beam", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Column{Header: "rescored", Source: table.Lab, Prec: -1})
	for _, m := range ms {
		_ = t.AddValues(m.Label,
			e05.ArticleValue(m.Label, "recall@10"), m.Recall,
			e05.ArticleValue(m.Label, "p50"), m.P50ms(),
			m.Plan.Ef, m.Plan.Rescore)
	}
	t.Note("the graph is walked with 1-bit codes (4-bit query); only k' = ⌈k·3⌉ = %d candidates are rescored with float32 vectors, so a wider beam finds more candidates by quantized score but the rescored set stays small", profile.Default(profile.Elasticsearch).Plan(env.Scale.K, env.Scale.Dim).Rescore)
	return t
}

// Chart draws recall@10 against num_candidates.
func Chart(ms []experiment.Measurement) *chart.Line {
	return experiment.SweepChart(e05, "Elasticsearch num_candidates vs recall@10 (bbq_hnsw)", "num_candidates", ms)
}

// e05Sweep runs the sweep and returns its table.
func e05Sweep(env *experiment.Env, ncs []int) (*table.Table, error) {
	ms, err := Measure(env, ncs)
	if err != nil {
		return nil, err
	}
	return Table(env, ms), nil
}

func runE05(env *experiment.Env) (*experiment.Report, error) {
	ms, err := Measure(env, Default)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e05, env)
	r.AddTable(Table(env, ms))
	r.AddChart(Chart(ms))
	r.Verdicts = append(r.Verdicts, Verdicts(env, ms)...)
	o, err := OversampleSweep(env, OversampleDefault)
	if err != nil {
		return nil, err
	}
	r.AddTable(o.Table)
	r.AddChart(o.Chart)
	r.Verdicts = append(r.Verdicts, OversampleVerdicts(env, o)...)
	return r, nil
}

// e05Section is the article's section with the num_candidates sweep and
// the index types of E10.
const e05Section = "Elasticsearch: the default mapping is quantised, and on this data it costs half the recall"

// Verdicts compares Measure's num_candidates sweep with the
// article's (§ "Elasticsearch: the default mapping is quantised…"):
// recall@10 per num_candidates within 0.05 of the article's (0.491,
// 0.489, 0.490, 0.490), and the sweep flat: the article's spread over
// 15…500 is 0.002; the lab's may be that plus the recall tolerance (0.05),
// a spread below the noise of 100 queries.
func Verdicts(env *experiment.Env, ms []experiment.Measurement) experiment.Verdicts {
	out := experiment.RecallVerdicts(env, e05, ms, "(num_candidates):")
	if len(ms) == 0 {
		return out
	}
	lo, hi := ms[0].Recall, ms[0].Recall
	for _, m := range ms {
		lo, hi = math.Min(lo, m.Recall), math.Max(hi, m.Recall)
	}
	return append(out, experiment.AtMost("E05", "recall is flat over num_candidates 15…500: its spread (§ "+e05Section+")", 0.002, hi-lo, experiment.RecallTolerance, ""))
}
