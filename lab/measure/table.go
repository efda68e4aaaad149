package measure

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// Figure is one number an article printed: its row (a store, a setting),
// the measure ("recall@10", "p50"), the value and its unit. An article's
// figure is quoted, never computed.
type Figure struct {
	Row     string  // the article table's row, e.g. "pgvector", "50"
	Measure string  // e.g. "recall@10", "p50", "docs/s"
	Value   float64 // as the article printed it
	Unit    string  // e.g. "", "ms", "s", "docs/s"
}

// String prints the figure as "row measure = value unit".
func (f Figure) String() string {
	s := fmt.Sprintf("%s %s = %g", f.Row, f.Measure, f.Value)
	if f.Unit != "" {
		s += " " + f.Unit
	}
	return s
}

// Table tabulates results, one row each: recall@k, p50, p95, mean hits,
// distances per query, bytes per vector and the plan, all the lab's.
func Table(title string, rs []Result) (*table.Table, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("measure: Table(%q): no results: %w", title, engine.ErrInvalidArgument)
	}
	t := table.New(title, table.Col(rowHeader(rs), ""))
	for _, name := range []string{metrics.RecallHeader(rs[0].K), "p50", "p95", "mean hits", "distances/query", "bytes/vector"} {
		_, unit, _ := rs[0].Value(name)
		t.AddColumns(table.Column{Header: name, Unit: unit, Source: table.Lab, Prec: prec(name)})
	}
	t.AddColumns(table.Column{Header: "query plan", Source: table.Lab})
	for _, r := range rs {
		row := []any{r.Label}
		for _, c := range t.Columns[1 : len(t.Columns)-1] {
			v, _, _ := r.Value(c.Header)
			row = append(row, v)
		}
		if err := t.AddValues(append(row, r.Plan)...); err != nil {
			return nil, fmt.Errorf("measure: Table(%q): %w", title, err)
		}
	}
	note(t, rs)
	return t, nil
}

// Beside puts the article's figures beside the lab's results: one row
// per result (matched to the figures by its Label), and for each measure
// the article gives, in the order it first gives them, the article's
// column and the lab's beside it (table.Pair), so chart.Compare can draw
// any of them. A figure of a measure the lab does not take (see
// [Measures]) or in another unit is an error; an article row no result
// has is listed in a note.
func Beside(title string, rs []Result, article []Figure) (*table.Table, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("measure: Beside(%q): no results: %w", title, engine.ErrInvalidArgument)
	}
	if len(article) == 0 {
		return nil, fmt.Errorf("measure: Beside(%q): no article figures (measure.Table tabulates the lab's alone): %w", title, engine.ErrInvalidArgument)
	}
	var names []string
	seen := map[string]bool{}
	for _, f := range article {
		_, unit, ok := rs[0].Value(f.Measure)
		if !ok {
			return nil, fmt.Errorf("measure: Beside(%q): the article's %v: the lab measures %s, not %q: %w",
				title, f, strings.Join(knownMeasures(rs[0].K), ", "), f.Measure, engine.ErrInvalidArgument)
		}
		if f.Unit != unit {
			return nil, fmt.Errorf("measure: Beside(%q): the article's %v is in %q, the lab's %s in %q: %w", title, f, f.Unit, f.Measure, unit, engine.ErrInvalidArgument)
		}
		if !seen[f.Measure] {
			seen[f.Measure] = true
			names = append(names, f.Measure)
		}
	}
	t := table.New(title, table.Col(rowHeader(rs), ""))
	for _, name := range names {
		_, unit, _ := rs[0].Value(name)
		t.AddColumns(table.Pair(name, unit, prec(name))...)
	}
	rows := map[string]bool{}
	for _, r := range rs {
		rows[r.Label] = true
		row := []any{r.Label}
		for _, name := range names {
			var a any // the article's figure, or a missing cell
			for _, f := range article {
				if f.Row == r.Label && f.Measure == name {
					a = f.Value
				}
			}
			v, _, _ := r.Value(name)
			row = append(row, a, v)
		}
		if err := t.AddValues(row...); err != nil {
			return nil, fmt.Errorf("measure: Beside(%q): %w", title, err)
		}
	}
	var missing []string
	for _, f := range article {
		if !rows[f.Row] && !contains(missing, f.Row) {
			missing = append(missing, f.Row)
		}
	}
	if len(missing) > 0 {
		t.Note("the article's rows %s were not measured here", strings.Join(missing, ", "))
	}
	note(t, rs)
	return t, nil
}

func knownMeasures(k int) []string {
	out := append([]string(nil), Measures...)
	out[0] = metrics.RecallHeader(k)
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// rowHeader names the first column: the swept setting, or "store".
func rowHeader(rs []Result) string {
	if rs[0].Knob != "" {
		return rs[0].Knob
	}
	return "store"
}

// prec is a measure's decimals in a table.
func prec(name string) int {
	switch {
	case strings.HasPrefix(name, "recall@"):
		return 3
	case name == "p50" || name == "p95":
		return 2
	case name == "mean hits":
		return 1
	}
	return -1
}

// note says how the lab measured, once under the table (the recall
// definition is the table's caption, from its recall@k header).
func note(t *table.Table, rs []Result) {
	r := rs[0]
	t.Note("lab: %d queries after %d warm-up, topK=%d, one timed pass, single-threaded", r.Queries, r.Warmup, r.K)
	if r.Where != "" {
		t.Note("filter: %s", r.Where)
	}
}
