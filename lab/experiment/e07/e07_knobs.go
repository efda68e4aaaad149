package e07

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// gridStrategy is one strategy of [StrategyGrid]: an engine/filtered
// strategy with the beam it runs at.
type gridStrategy struct {
	name  string // the knob's label
	short string // the bar chart's label
	about string // what the strategy is, for the tables' notes
	s     filtered.Strategy
	ef    int // hnsw.ef_search (or the in-graph beam); 0 for exact search
}

// gridStrategies are the strategies notebook 04 discusses, on pgvector's
// graph and its unindexed JSONB metadata: pgvector's default post-filter
// and a wider scan (E03, E07), pgvector 0.8's two iterative scans at the
// default ef_search (E07), a walk that filters inside the graph
// (hnswlib, Lucene) at the same beam, and exact search over the matching
// rows (a pre-filter: a sequential scan, Redis's ADHOC_BF). Each is
// forced: PostgreSQL's choice between index and sequential scan is E07's
// plan column, not this grid's.
var gridStrategies = []gridStrategy{
	{"post-filter 40", "post 40", "post-filter: pgvector's default, hnsw.ef_search = 40, iterative_scan = off", filtered.PostFilter, 40},
	{"post-filter 200", "post 200", "post-filter with hnsw.ef_search = 200, iterative_scan = off", filtered.PostFilter, 200},
	{"relaxed_order", "relaxed", "pgvector 0.8 iterative scan, relaxed_order, ef_search = 40, max_scan_tuples = 20,000", filtered.IterativeRelaxed, 40},
	{"strict_order", "strict", "pgvector 0.8 iterative scan, strict_order, ef_search = 40, max_scan_tuples = 20,000", filtered.IterativeStrict, 40},
	{"in-graph", "in-graph", "in-graph filter (hnswlib, Lucene): the walk crosses non-matching nodes and collects matching ones, beam 40; as Lucene, exact search over the matching rows when the walk would score more nodes than match (path exact)", filtered.InGraph, 40},
	{"exact", "exact", "pre-filter: exact search over the matching rows, reading every row's unindexed metadata first (PostgreSQL's sequential scan; Redis's ADHOC_BF reads an index instead)", filtered.Exact, 0},
}

// StrategyGrid is every filtered-search strategy notebook 04 discusses
// measured under every filter of a selectivity sweep, once, so that the
// notebook's knobs (selectivity × strategy) only look results up and
// draw: recall@k, the rows returned of k and the latency per query of
// each strategy at each selectivity, on the pgvector profile's graph.
type StrategyGrid struct {
	K int
	// Filters are the filters measured, by increasing selectivity.
	Filters []experiment.Selectivity
	// Strategies are the strategies' knob labels, in the grid's order.
	Strategies []string
	// Cells[i][j] is strategy j under filter i.
	Cells [][]experiment.StrategyMeasurement
	// Took is how long the grid took to measure.
	Took time.Duration
	// about is what each strategy is, for the notes.
	about []string
}

// MeasureStrategyGrid measures every strategy of the grid under each
// filter of filters (the selectivity knob's settings; sorted here by the
// documents each matches, each must match a different share at the
// grid's label precision) on pgvector's default store with its metadata
// unindexed, as pgvector's JSONB column. Each query's exact answer over
// the matching documents is computed once per filter and shared by the
// strategies.
func MeasureStrategyGrid(env *experiment.Env, filters []string) (*StrategyGrid, error) {
	if len(filters) == 0 {
		return nil, fmt.Errorf("experiment: MeasureStrategyGrid: no filters: %w", experiment.ErrBadArgument)
	}
	start := time.Now()
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	p := profile.Default(profile.PGVector)
	s, coll, err := experiment.FilteredCollection(env, p, false)
	if err != nil {
		return nil, err
	}
	k := env.Scale.K
	type compiled struct {
		text string
		f    *filter.Compiled
	}
	cs := make([]compiled, len(filters))
	for i, text := range filters {
		f, err := coll.Meta().CompileString(text)
		if err != nil {
			return nil, fmt.Errorf("experiment: MeasureStrategyGrid: filter %q: %w", text, err)
		}
		cs[i] = compiled{text, f}
	}
	sort.SliceStable(cs, func(a, b int) bool { return len(cs[a].f.IDs()) < len(cs[b].f.IDs()) })
	g := &StrategyGrid{K: k}
	seen := map[string]string{}
	for _, c := range cs {
		sel := experiment.Selectivity{Filter: c.text, Matching: len(c.f.IDs()), N: ds.Base.N}
		l := selLabel(sel)
		if prev, dup := seen[l]; dup {
			return nil, fmt.Errorf("experiment: MeasureStrategyGrid: filters %q and %q both match %s: %w", prev, c.text, l, experiment.ErrBadArgument)
		}
		seen[l] = c.text
		g.Filters = append(g.Filters, sel)
	}
	for _, gs := range gridStrategies {
		g.Strategies = append(g.Strategies, gs.name)
		g.about = append(g.about, gs.about)
	}
	total := len(cs) * len(gridStrategies)
	// The oracle searches the indexed metadata (env.filterTruth): over
	// pgvector's unindexed column exact search reads every row's payload,
	// a cost the "exact" strategy is measured with but the truth need
	// not pay.
	meta, err := env.Metadata()
	if err != nil {
		return nil, err
	}
	oracle, err := env.FilterTruth()
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		tf, err := meta.CompileString(c.text)
		if err != nil {
			return nil, fmt.Errorf("experiment: MeasureStrategyGrid: filter %q: %w", c.text, err)
		}
		if len(tf.IDs()) != len(c.f.IDs()) {
			return nil, fmt.Errorf("experiment: MeasureStrategyGrid: filter %q matches %d documents in the oracle's metadata and %d in pgvector's", c.text, len(tf.IDs()), len(c.f.IDs()))
		}
		truth, err := experiment.FilteredTruth(env, oracle, tf)
		if err != nil {
			return nil, err
		}
		row := make([]experiment.StrategyMeasurement, len(gridStrategies))
		for j, gs := range gridStrategies {
			env.Step(i*len(gridStrategies)+j, total, "selectivity × strategy")
			fp := p.FilterParams(k, s.Dim())
			fp.Ef = gs.ef
			m, err := experiment.MeasureAgainst(env, coll, c.f, truth, gs.s, fp, gs.name)
			if err != nil {
				return nil, fmt.Errorf("experiment: MeasureStrategyGrid: filter %q: %w", c.text, err)
			}
			row[j] = m
		}
		g.Cells = append(g.Cells, row)
	}
	env.Step(total, total, "selectivity × strategy")
	g.Took = time.Since(start)
	return g, nil
}

// selLabel is a filter's share as the knob shows it: one decimal below
// 10 % ("0.1 %", "4.4 %"), none above ("25 %").
func selLabel(s experiment.Selectivity) string {
	if v := 100 * s.S(); v >= 10 {
		return fmt.Sprintf("%.0f %%", v)
	}
	return fmt.Sprintf("%.1f %%", 100*s.S())
}

// Labels are the selectivity knob's options, one per filter.
func (g *StrategyGrid) Labels() []string {
	out := make([]string, len(g.Filters))
	for i, f := range g.Filters {
		out[i] = selLabel(f)
	}
	return out
}

// cell checks the knob's indexes and returns the measurement.
func (g *StrategyGrid) cell(i, j int) (*experiment.StrategyMeasurement, error) {
	if i < 0 || i >= len(g.Filters) {
		return nil, fmt.Errorf("experiment: strategy grid: filter %d (want 0…%d): %w", i, len(g.Filters)-1, experiment.ErrBadArgument)
	}
	if j < 0 || j >= len(g.Strategies) {
		return nil, fmt.Errorf("experiment: strategy grid: strategy %d (want 0…%d): %w", j, len(g.Strategies)-1, experiment.ErrBadArgument)
	}
	return &g.Cells[i][j], nil
}

// short counts the queries that returned fewer than k rows, and none.
func short(hits []int, k int) (fewer, none int) {
	for _, h := range hits {
		if h < k {
			fewer++
		}
		if h == 0 {
			none++
		}
	}
	return fewer, none
}

// Table is every strategy under filter i: recall@k, the rows returned of
// k, how many queries got fewer than k rows or none, the work and latency
// per query, and the path most queries took.
func (g *StrategyGrid) Table(i int) (*table.Table, error) {
	if _, err := g.cell(i, 0); err != nil {
		return nil, err
	}
	f := g.Filters[i]
	t := table.New(fmt.Sprintf("every strategy at s = %s: %s (%d of %d documents), %d queries, topK=%d (lab)",
		selLabel(f), f.Filter, f.Matching, f.N, len(g.Cells[i][0].Hits), g.K),
		table.Col("strategy", ""),
		table.Column{Header: fmt.Sprintf("recall@%d", g.K), Source: table.Lab, Prec: 3},
		table.Column{Header: fmt.Sprintf("mean hits of %d", g.K), Source: table.Lab, Prec: 1},
		table.Column{Header: fmt.Sprintf("queries < %d rows", g.K), Source: table.Lab, Prec: -1},
		table.Column{Header: "queries with no row", Source: table.Lab, Prec: -1},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 2},
		table.Column{Header: "path (most queries)", Source: table.Lab})
	for _, m := range g.Cells[i] {
		fewer, none := short(m.Hits, g.K)
		if err := t.AddValues(m.Label, m.Recall, m.MeanHits, fewer, none, m.DistComps, m.P50ms(), m.Path); err != nil {
			return nil, err
		}
	}
	for j, a := range g.about {
		t.Note("%s: %s", g.Strategies[j], a)
	}
	if f.Matching < g.K {
		t.Note("only %d documents match: no strategy can return %d rows, and recall is against the %d there are", f.Matching, g.K, f.Matching)
	}
	return t, nil
}

// Overview is the static view of the whole grid: recall@k and, in
// brackets, the mean rows returned, for every strategy under every
// filter.
func (g *StrategyGrid) Overview() *table.Table {
	cols := []table.Column{table.Col("s", ""), table.Col("filter", ""), {Header: "matching", Source: table.Lab, Prec: -1}}
	for _, name := range g.Strategies {
		cols = append(cols, table.Column{Header: name, Source: table.Lab})
	}
	t := table.New(fmt.Sprintf("recall@%d (mean hits of %d) of every strategy at every selectivity, pgvector's graph, %d queries (lab)",
		g.K, g.K, len(g.Cells[0][0].Hits)), cols...)
	for i, f := range g.Filters {
		vals := []any{selLabel(f), f.Filter, f.Matching}
		for _, m := range g.Cells[i] {
			vals = append(vals, fmt.Sprintf("%.3f (%.1f)", m.Recall, m.MeanHits))
		}
		_ = t.AddValues(vals...)
	}
	for j, a := range g.about {
		t.Note("%s: %s", g.Strategies[j], a)
	}
	return t
}

// Chart draws filter i and strategy j: on the left every strategy's
// recall@k at that selectivity; on the right strategy j's recall and rows
// returned (as a share of k) over every selectivity beside pgvector's
// default post-filter's recall, the chosen selectivity labelled "knobs".
func (g *StrategyGrid) Chart(i, j int) (*chart.Grid, error) {
	m, err := g.cell(i, j)
	if err != nil {
		return nil, err
	}
	k := float64(g.K)
	recall := make([]float64, len(g.Strategies))
	for s, c := range g.Cells[i] {
		recall[s] = c.Recall
	}
	short := make([]string, len(gridStrategies))
	for s, gs := range gridStrategies {
		short[s] = gs.short
	}
	bars := chart.NewBars(fmt.Sprintf("every strategy at s = %s", selLabel(g.Filters[i])), fmt.Sprintf("recall@%d", g.K), short...)
	bars.Add("", recall) // one series, no legend: the bars reach 1 where a legend would sit
	xs := make([]float64, len(g.Filters))
	r, h, post := make([]float64, len(g.Filters)), make([]float64, len(g.Filters)), make([]float64, len(g.Filters))
	marks := make([]string, len(g.Filters))
	for f := range g.Filters {
		xs[f] = 100 * g.Filters[f].S()
		r[f], h[f], post[f] = g.Cells[f][j].Recall, g.Cells[f][j].MeanHits/k, g.Cells[f][0].Recall
	}
	marks[i] = "knobs"
	line := chart.NewLine(fmt.Sprintf("%s over the selectivities", g.Strategies[j]), "selectivity s (%)", fmt.Sprintf("recall@%d, hits / %d", g.K, g.K))
	line.LogX = true
	line.AddLabeled(fmt.Sprintf("%s: recall@%d", g.Strategies[j], g.K), xs, r, marks)
	line.Add(fmt.Sprintf("%s: mean hits / %d", g.Strategies[j], g.K), xs, h)
	if j != 0 {
		line.Add(fmt.Sprintf("%s: recall@%d", g.Strategies[0], g.K), xs, post)
	}
	gr := chart.NewGrid(fmt.Sprintf("%s at s = %s: recall@%d %.3f, %.1f rows of %d", g.Strategies[j], selLabel(g.Filters[i]), g.K, m.Recall, m.MeanHits, g.K), 2, bars, line)
	gr.CellWidth = 380
	if err := gr.Err(); err != nil {
		return nil, err
	}
	return gr, nil
}

// Detail prints strategy j under filter i: its recall, rows and latency,
// and how the rows spread over the queries.
func (g *StrategyGrid) Detail(i, j int) (string, error) {
	m, err := g.cell(i, j)
	if err != nil {
		return "", err
	}
	fewer, none := short(m.Hits, g.K)
	return fmt.Sprintf("%s at s = %s (%s): recall@%d %.3f, %.1f rows of %d, p50 %.2f ms, %.0f distances/query, path %s; %d of %d queries got fewer than %d rows, %d none",
		m.Label, selLabel(g.Filters[i]), g.Filters[i].Filter, g.K, m.Recall, m.MeanHits, g.K, m.P50ms(), m.DistComps, m.Path, fewer, len(m.Hits), g.K, none), nil
}

// Story tells pgvector's iterative-scan story at filter i: what the
// default post-filter (ef_search 40) leaves against ef × s, what a
// five times wider scan adds, and what each iterative scan recovers and
// at what work, beside exact search.
func (g *StrategyGrid) Story(i int) (string, error) {
	if _, err := g.cell(i, 0); err != nil {
		return "", err
	}
	f, row := g.Filters[i], g.Cells[i]
	idx := func(name string) *experiment.StrategyMeasurement {
		for j, n := range g.Strategies {
			if n == name {
				return &row[j]
			}
		}
		return nil
	}
	post, wide, rel, str, ex := idx("post-filter 40"), idx("post-filter 200"), idx("relaxed_order"), idx("strict_order"), idx("exact")
	if post == nil || wide == nil || rel == nil || str == nil || ex == nil {
		return "", fmt.Errorf("experiment: strategy grid: a strategy of the story is missing: %w", experiment.ErrBadArgument)
	}
	var b strings.Builder
	_, none := short(post.Hits, g.K)
	fmt.Fprintf(&b, "s = %s: ef_search 40 yields 40 rows, of which ef × s = %.1f match on average; the post-filter kept %.1f of %d (recall %.3f), %d of %d queries got no row.\n",
		selLabel(f), 40*f.S(), post.MeanHits, g.K, post.Recall, none, len(post.Hits))
	fmt.Fprintf(&b, "ef_search 200 (ef × s = %.1f) keeps %.1f rows, recall %.3f, for %s the distances.\n",
		200*f.S(), wide.MeanHits, wide.Recall, ratio(wide.DistComps, post.DistComps))
	for _, it := range []*experiment.StrategyMeasurement{rel, str} {
		fmt.Fprintf(&b, "iterative scan, %s: %.1f rows, recall %.3f, for %s the post-filter's distances (%.0f a query), p50 %.2f ms.\n",
			it.Label, it.MeanHits, it.Recall, ratio(it.DistComps, post.DistComps), it.DistComps, it.P50ms())
	}
	fmt.Fprintf(&b, "exact search over the %d matching rows: %.1f rows, recall %.3f, p50 %.2f ms.", f.Matching, ex.MeanHits, ex.Recall, ex.P50ms())
	return b.String(), nil
}

// ratio prints a/b as "2.5×" ("—" when b is 0).
func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a/b) {
		return "—"
	}
	return fmt.Sprintf("%.1f×", a/b)
}
