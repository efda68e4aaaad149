package realsets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e02"
	"github.com/veclab/veclab/lab/experiment/e10"
	"github.com/veclab/veclab/lab/experiment/e22"
	"github.com/veclab/veclab/lab/experiment/e23"
	"github.com/veclab/veclab/lab/experiment/e24"
	"github.com/veclab/veclab/lab/experiment/e26"
	"github.com/veclab/veclab/lab/table"
)

// The comparisons across data sets (notebook 14): the same measurement on
// the generated set and on real ones, laid out with one column or one
// line per set, so a finding that holds on the articles' clusters can be
// read against real embeddings without the notebook assembling tables.

// QuantSets is each quantizer's flat scan ([QuantFlat]) on each of
// several data sets at the same oversample factors.
type QuantSets struct {
	Sets       []string  // data set names ([RealSets.Names]), in column order
	Quantizers []string  // in measurement order
	Oversample []float64 // the factors measured
	K          int       // recall@K
	results    map[string]map[string]experiment.QuantResult
}

// MeasureQuantSets runs [QuantFlat] for every quantizer on every data set
// of sets ([OpenRealSets]), in that order.
func MeasureQuantSets(sets *experiment.RealSets, quantizers []string, oversample []float64) (*QuantSets, error) {
	if sets == nil || len(sets.Names) == 0 || len(quantizers) == 0 {
		n := 0
		if sets != nil {
			n = len(sets.Names)
		}
		return nil, fmt.Errorf("experiment: MeasureQuantSets: %d data sets, %d quantizers: %w", n, len(quantizers), experiment.ErrBadArgument)
	}
	if err := experiment.CheckOversample("MeasureQuantSets", oversample); err != nil {
		return nil, err
	}
	qs := &QuantSets{Sets: append([]string(nil), sets.Names...), Quantizers: append([]string(nil), quantizers...),
		Oversample: append([]float64(nil), oversample...), results: map[string]map[string]experiment.QuantResult{}}
	for _, name := range sets.Names {
		env := sets.Envs[name]
		if env == nil {
			return nil, fmt.Errorf("experiment: MeasureQuantSets: data set %q has no environment: %w", name, experiment.ErrBadArgument)
		}
		qs.K = env.Scale.K
	}
	for _, q := range quantizers {
		qs.results[q] = map[string]experiment.QuantResult{}
		for _, name := range sets.Names {
			r, err := experiment.QuantFlat(sets.Envs[name], q, oversample)
			if err != nil {
				return nil, fmt.Errorf("experiment: MeasureQuantSets: %s on %s: %w", q, name, err)
			}
			qs.results[q][name] = r
		}
	}
	for _, name := range sets.Names {
		qs.recordVerdicts(sets.Envs[name], name)
	}
	return qs, nil
}

// quantClaims are the quantization experiments whose verdicts
// [MeasureQuantSets] re-asks on every set: each needs its rows (raw
// first, for the reference recall) and the oversample its claims read.
var quantClaims = []struct {
	exp      *experiment.Experiment
	rows     []string
	over     float64
	verdicts func(*experiment.Env, *table.Table) experiment.Verdicts
}{
	{&e22.Experiment, []string{"raw", "int8"}, 1.5, e22.Verdicts},
	{&e23.Experiment, []string{"raw", "int4", "int4-nocorr"}, 3, e23.Verdicts},
	{&e24.Experiment, []string{"raw", "bbq", "osq1x1"}, 3, e24.Verdicts},
}

// recordVerdicts records, on the set's environment, the verdicts of E22,
// E23 and E24 whose quantizers and oversample were measured, from the same
// table those experiments build: a notebook's last cell
// (env.Verdicts() over the sets) then lists each claim once per set, the
// real sets' claims ending with the set's name (Env.record).
func (qs *QuantSets) recordVerdicts(env *experiment.Env, set string) {
	for _, c := range quantClaims {
		if !slices.Contains(qs.Oversample, c.over) {
			continue
		}
		var rs []experiment.QuantResult
		for _, row := range c.rows {
			if r, ok := qs.result(row, set); ok {
				rs = append(rs, r)
			}
		}
		if len(rs) != len(c.rows) {
			continue
		}
		exp := c.exp
		t := experiment.QuantTable(env, exp.ID+" on "+set, rs, func(row string) (any, any) {
			return exp.ArticleValue(row, "compression"), exp.ArticleValue(row, "memory saved")
		})
		env.Keep(c.verdicts(env, t))
	}
}

// result is one quantizer's result on one data set.
func (qs *QuantSets) result(quantizer, set string) (experiment.QuantResult, bool) {
	r, ok := qs.results[quantizer][set]
	return r, ok
}

// Table lists the given quantizers × data sets: bytes per vector, recall
// without rescoring and at each oversample. A quantizer not measured is
// left out.
func (qs *QuantSets) Table(title string, quantizers ...string) *table.Table {
	t := table.New(title, table.Col("quantizer", ""), table.Col("data set", ""), table.Column{Header: "B/vec", Prec: 0},
		table.Column{Header: "none", Prec: 3})
	for _, o := range qs.Oversample {
		t.AddColumns(table.Column{Header: fmt.Sprintf("×%g", o), Prec: 3})
	}
	for _, q := range quantizers {
		for _, set := range qs.Sets {
			r, ok := qs.result(q, set)
			if !ok {
				continue
			}
			vals := []any{q, set, r.BytesPerVector, r.RecallNone}
			for _, v := range r.RecallOver {
				vals = append(vals, v)
			}
			_ = t.AddValues(vals...)
		}
	}
	t.Note("flat scan over every code; ×o = the ⌈o·k⌉ nearest by code distance rescored with float32, best k kept; k = %d", qs.K)
	return t
}

// Chart draws one quantizer's recall against the oversample, one line per
// data set; x = 0 is no rescoring.
func (qs *QuantSets) Chart(title, quantizer string) *chart.Line {
	c := chart.NewLine(title, "oversample (candidates / k; 0 = no rescoring)", fmt.Sprintf("recall@%d", qs.K))
	for _, set := range qs.Sets {
		r, ok := qs.result(quantizer, set)
		if !ok {
			continue
		}
		c.Add(set, append([]float64{0}, r.Oversample...), append([]float64{r.RecallNone}, r.RecallOver...))
	}
	return c
}

// Needed tabulates, per quantizer and data set, the smallest measured
// oversample whose recall reaches each target: "none" when the codes
// alone reach it, "—" when no factor measured does. It is how many
// float32 vectors per query a quantizer makes a store read back.
func (qs *QuantSets) Needed(targets []float64, quantizers ...string) *table.Table {
	parts := make([]string, len(targets))
	for i, x := range targets {
		parts[i] = fmt.Sprintf("≥ %g", x)
	}
	t := table.New(fmt.Sprintf("Smallest oversample reaching recall@%d %s", qs.K, strings.Join(parts, " / ")), table.Col("quantizer", ""))
	for _, set := range qs.Sets {
		for _, x := range targets {
			t.AddColumns(table.Col(fmt.Sprintf("%s %g", set, x), ""))
		}
	}
	for _, q := range quantizers {
		vals := []any{q}
		for _, set := range qs.Sets {
			r, _ := qs.result(q, set)
			for _, x := range targets {
				vals = append(vals, neededText(r, x))
			}
		}
		_ = t.AddValues(vals...)
	}
	return t
}

// neededText words [smallestOversample] for a table cell.
func neededText(r experiment.QuantResult, target float64) string {
	o, ok := experiment.SmallestOversample(r, target)
	switch {
	case !ok:
		return "—"
	case o == 0:
		return "none"
	}
	return fmt.Sprintf("×%g", o)
}

// SetRun is the store experiments measured on one data set: E02's four
// stores on their defaults, E10's three Elasticsearch index types
// (unfiltered and under the article's filter) and E26's two sweeps on the
// local disk (IVF over 2-bit lists against HNSW over 2-bit codes, the
// originals in one vector file, oversample 1).
type SetRun struct {
	Name          string                   // [Env.DataName]
	Docs          int                      // documents in the set as measured
	K             int                      // E02's and E10's recall@K
	Stores        []experiment.Measurement // the four stores, in the article's order
	Types         []experiment.Measurement // E10Types, unfiltered
	TypesFiltered []experiment.Measurement // E10Types, under ArticleFilter
	IVF, HNSW     []experiment.DiskPoint   // E26's visit and ef sweeps (E26Visit, E26Ef)
	Disk          *table.Table             // E26's pairs by recall@100
	// Verdicts are E02's and E10's claims re-asked on this set (also
	// recorded in the environment); on a real set each claim ends with
	// the set's name.
	Verdicts experiment.Verdicts
}

// RunOnSet measures E02, E10 and E26 on the environment's data set, in
// that order, with the environment's scale and queries. The caller owns
// env and closes it: each set is built, measured and dropped in turn, so
// only one set's stores are in memory at a time.
func RunOnSet(env *experiment.Env) (SetRun, error) {
	run := SetRun{Name: env.DataName(), Docs: env.Scale.N, K: env.Scale.K}
	var err error
	if run.Stores, err = e02.Measure(env); err != nil {
		return SetRun{}, fmt.Errorf("experiment: RunOnSet %s: E02: %w", run.Name, err)
	}
	var bytes []float64
	if run.Types, run.TypesFiltered, bytes, err = e10.Measure(env, e10.Types); err != nil {
		return SetRun{}, fmt.Errorf("experiment: RunOnSet %s: E10: %w", run.Name, err)
	}
	run.Verdicts = append(run.Verdicts, env.Keep(e02.Verdicts(env, run.Stores))...)
	run.Verdicts = append(run.Verdicts, env.Keep(e02.ShapeVerdicts(env, run.Stores, nil))...)
	run.Verdicts = append(run.Verdicts, env.Keep(e10.Verdicts(env, run.Types, run.TypesFiltered, bytes))...)
	if run.IVF, run.HNSW, err = e26.Sweeps(env, "local", 1, e26.Visit, e26.Ef, env.Scale.Queries); err != nil {
		return SetRun{}, fmt.Errorf("experiment: RunOnSet %s: E26: %w", run.Name, err)
	}
	run.Disk = e26.Table(env, "local", 1, run.IVF, run.HNSW)
	return run, nil
}

// SetRuns are [SetRun]s in data-set order; their tables and charts have
// one column, bar group or pair of lines per set.
type SetRuns []SetRun

// docs is the largest set measured: the cut every set was asked for
// (a real set smaller than the cut is measured whole).
func (rs SetRuns) docs() (docs, k int) {
	for _, r := range rs {
		docs, k = max(docs, r.Docs), r.K
	}
	return docs, k
}

// labels are the rows of the first set's measurements (every set
// measures the same rows).
func (rs SetRuns) labels(of func(SetRun) []experiment.Measurement) []string {
	if len(rs) == 0 {
		return nil
	}
	var out []string
	for _, m := range of(rs[0]) {
		out = append(out, m.Label)
	}
	return out
}

func recallOf(ms []experiment.Measurement, i int) any {
	if i < len(ms) {
		return ms[i].Recall
	}
	return nil
}

func recalls(ms []experiment.Measurement) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = m.Recall
	}
	return out
}

// articleRecalls are an experiment's article figures for the rows (0
// where the article gives none, so a bar chart keeps its groups).
func articleRecalls(e experiment.Experiment, rows []string, measure string) []float64 {
	out := make([]float64, len(rows))
	for i, row := range rows {
		out[i], _ = e.ArticleValue(row, measure).(float64)
	}
	return out
}

func e02Stores(r SetRun) []experiment.Measurement { return r.Stores }
func e10Types(r SetRun) []experiment.Measurement  { return r.Types }

// Verdicts are every set's verdicts ([SetRun.Verdicts]), in data-set
// order: with the quantizers' (env.Verdicts() of each set in
// [OpenRealSets]) they are notebook 14's closing list.
func (rs SetRuns) Verdicts() experiment.Verdicts {
	var out experiment.Verdicts
	for _, r := range rs {
		out = append(out, r.Verdicts...)
	}
	return out
}

// E02Table is E02's recall per store, the article's beside each set's.
func (rs SetRuns) StoresTable() *table.Table {
	docs, k := rs.docs()
	t := table.New(fmt.Sprintf("E02 recall@%d on each store's defaults, %d documents per set", k, docs), table.Col("store", ""),
		table.Column{Header: "article", Prec: 3})
	for _, r := range rs {
		t.AddColumns(table.Column{Header: r.Name, Prec: 3})
	}
	for i, st := range rs.labels(e02Stores) {
		vals := []any{st, e02.Experiment.ArticleValue(st, "recall@10")}
		for _, r := range rs {
			vals = append(vals, recallOf(r.Stores, i))
		}
		_ = t.AddValues(vals...)
	}
	t.Note("article: the Spring AI VectorStore article's synthetic set through the four real services; the lab: the same defaults emulated, per data set")
	return t
}

// E02Bars draws E02's recall per store, the article's bars first.
func (rs SetRuns) StoresBars() *chart.Bars {
	return rs.bars("E02 recall@10 of the four stores on their defaults", e02.Experiment, rs.labels(e02Stores), func(r SetRun) []experiment.Measurement { return r.Stores })
}

// bars draws one bar group per label: the article's recall@10 (named
// "article", as chart.Compare names it), then each set's.
func (rs SetRuns) bars(title string, exp experiment.Experiment, labels []string, of func(SetRun) []experiment.Measurement) *chart.Bars {
	c := chart.NewBars(title, "recall@10", labels...)
	c.AddArticle("article", articleRecalls(exp, labels, "recall@10"))
	for _, r := range rs {
		c.Add(r.Name, recalls(of(r)))
	}
	return c
}

// E10Table is E10's recall per index type, unfiltered and filtered, the
// article's beside each set's.
func (rs SetRuns) TypesTable() *table.Table {
	docs, k := rs.docs()
	t := table.New(fmt.Sprintf("E10 recall@%d by index type (unfiltered / filtered), %d documents per set", k, docs),
		table.Col("type", ""), table.Column{Header: "article", Prec: 3}, table.Column{Header: "article filtered", Prec: 3})
	for _, r := range rs {
		t.AddColumns(table.Column{Header: r.Name, Prec: 3}, table.Column{Header: r.Name + " filtered", Prec: 3})
	}
	for i, typ := range rs.labels(e10Types) {
		vals := []any{typ, e10.Experiment.ArticleValue(typ, "recall@10"), e10.Experiment.ArticleValue(typ, "filtered recall@10")}
		for _, r := range rs {
			vals = append(vals, recallOf(r.Types, i), recallOf(r.TypesFiltered, i))
		}
		_ = t.AddValues(vals...)
	}
	return t
}

// E10Bars draws E10's unfiltered recall per index type.
func (rs SetRuns) TypesBars() *chart.Bars {
	return rs.bars("E10 unfiltered recall@10 by Elasticsearch index type", e10.Experiment, rs.labels(e10Types), func(r SetRun) []experiment.Measurement { return r.Types })
}

// E26Tables are E26's paired tables, one per set.
func (rs SetRuns) DiskTables() []*table.Table {
	var out []*table.Table
	for _, r := range rs {
		out = append(out, r.Disk)
	}
	return out
}

// E26Chart draws recall@100 against QPS for both of E26's sweeps on every
// set.
func (rs SetRuns) DiskChart() *chart.Line {
	c := chart.NewLine("E26 recall@100 vs QPS: IVF 2-bit (visit sweep) and HNSW 2-bit codes (ef sweep), local disk", "recall@100", "QPS (one goroutine)")
	for _, r := range rs {
		for _, side := range []struct {
			name string
			ps   []experiment.DiskPoint
		}{{" IVF", r.IVF}, {" HNSW", r.HNSW}} {
			var xs, ys []float64
			for _, p := range side.ps {
				xs, ys = append(xs, p.Recall), append(ys, p.QPS)
			}
			c.Add(r.Name+side.name, xs, ys)
		}
	}
	return c
}
