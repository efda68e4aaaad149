package advise

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/table"
)

// advice is the one sentence for a row.
func advice(r Row, opt Options) string {
	var b strings.Builder
	b.WriteString(r.Store + ": " + oneSearch(r.Unfiltered, opt))
	if r.Exact {
		b.WriteString(" (every vector is compared: the collection is below Qdrant's indexing_threshold, so it has no graph yet and the knob plays no part; a larger collection gets one)")
	}
	if r.Oversample != nil {
		b.WriteString("; with rescoring: " + oneSearch(*r.Oversample, opt))
	}
	if r.Filtered != nil {
		b.WriteString("; filtered: " + oneSearch(*r.Filtered, opt))
	}
	fmt.Fprintf(&b, "; about %s for %d vectors (%.0f B/vector)", bytesString(r.Projected), opt.N, r.BytesPerVector)
	if r.Real != nil {
		fmt.Fprintf(&b, "; the real pgvector reads %.3f at %d (emulation %.3f, Δ %+.3f)", r.Real.AtFound.Recall, r.Real.AtFound.Value, r.Unfiltered.AtFound.Recall, r.Real.AtFound.Recall-r.Unfiltered.AtFound.Recall)
	}
	b.WriteString(".")
	return b.String()
}

func oneSearch(s Search, opt Options) string {
	d, f, res := s.AtDefault, s.AtFound, s.Result
	def := fmt.Sprint(d.Value)
	if s.DefaultSetting != "" {
		def += ", " + s.DefaultSetting
	}
	switch {
	case !res.Reached && res.Plateau:
		return fmt.Sprintf("recall@%d %.3f on the default %s (%s); the target %.2f is not reachable by this knob: recall stopped growing (best %.3f at %d, nothing gained up to %d)",
			opt.K, d.Recall, s.Knob, def, opt.Target, res.Best.Recall, res.Best.Value, res.Value)
	case !res.Reached:
		return fmt.Sprintf("recall@%d %.3f on the default %s (%s); the target %.2f is not reachable below %d: the best reached is %.3f at %d (a wider graph, m or ef_construction, or another index type is the next step)",
			opt.K, d.Recall, s.Knob, def, opt.Target, res.Value, res.Best.Recall, res.Best.Value)
	case d.Recall >= opt.Target && s.DefaultSetting == "":
		return fmt.Sprintf("the default %s = %s already reaches recall@%d %.3f (target %.2f); the smallest value that does is %d (%.3f, p50 %s)",
			s.Knob, def, opt.K, d.Recall, opt.Target, f.Value, f.Recall, ms(f.P50))
	}
	return fmt.Sprintf("set %s = %d (the default, %s, reads %.3f): recall@%d %.3f, p50 %s → %s, p95 %s → %s",
		s.Knob, f.Value, def, d.Recall, opt.K, f.Recall, ms(d.P50), ms(f.P50), ms(d.P95), ms(f.P95))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3g ms", float64(d)/1e6) }

func bytesString(b float64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", b/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.0f kB", b/1e3)
}

func msf(d time.Duration) float64 { return float64(d) / 1e6 }

// Table is the report as one table: a row per store (and its filtered
// search, and the real pgvector, on rows of their own), with the notes.
func (r *Report) Table() *table.Table {
	k := r.K
	t := table.New(fmt.Sprintf("advise: %s, %d × %d (%s), recall@%d target %.2f", r.Data.Name, r.Data.Base, r.Data.Dim, r.Data.Metric, k, r.Target),
		table.Col("store", ""), table.Col("search", ""), table.Col("knob", ""),
		table.Column{Header: "default", Align: table.Right},
		table.Column{Header: fmt.Sprintf("recall@%d", k), Align: table.Right, Prec: 3},
		table.Column{Header: "hits", Align: table.Right, Prec: 1},
		table.Column{Header: "p50", Unit: "ms", Align: table.Right, Prec: 3},
		table.Column{Header: "p95", Unit: "ms", Align: table.Right, Prec: 3},
		table.Column{Header: "found", Align: table.Right},
		table.Column{Header: fmt.Sprintf("recall@%d", k), Align: table.Right, Prec: 3},
		table.Column{Header: "p50", Unit: "ms", Align: table.Right, Prec: 3},
		table.Column{Header: "p95", Unit: "ms", Align: table.Right, Prec: 3},
		table.Column{Header: "build", Unit: "s", Align: table.Right, Prec: 2},
		table.Column{Header: "B/vector", Align: table.Right, Prec: 0},
		table.Column{Header: fmt.Sprintf("memory at %d", r.N), Align: table.Right},
	)
	add := func(store, what string, s Search, row *Row) {
		found := fmt.Sprint(s.Result.Value)
		switch {
		case !s.Result.Reached && s.Result.Plateau:
			found = fmt.Sprintf("no: flat to %d (best %.3f at %d)", s.Result.Value, s.Result.Best.Recall, s.Result.Best.Value)
		case !s.Result.Reached:
			found = fmt.Sprintf("not below %d (best %.3f at %d)", s.Result.Value, s.Result.Best.Recall, s.Result.Best.Value)
		}
		var build, bpv, mem any
		if row != nil {
			build, bpv, mem = row.Build.Seconds(), row.BytesPerVector, bytesString(row.Projected)
		}
		def := fmt.Sprint(s.AtDefault.Value)
		if s.DefaultSetting != "" {
			def += " (" + s.DefaultSetting + ")"
		}
		t.AddValues(store, what, s.Knob, def, s.AtDefault.Recall, s.AtDefault.MeanHits, msf(s.AtDefault.P50), msf(s.AtDefault.P95),
			found, s.AtFound.Recall, msf(s.AtFound.P50), msf(s.AtFound.P95), build, bpv, mem)
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		what := "unfiltered"
		if row.Exact {
			what = "unfiltered, exact"
		}
		add(row.Store, what, row.Unfiltered, row)
		if row.Oversample != nil {
			add("", "unfiltered", *row.Oversample, nil)
		}
		if row.Filtered != nil {
			add("", "filtered", *row.Filtered, nil)
		}
		if rl := row.Real; rl != nil {
			t.AddValues("", "real pgvector", "hnsw.ef_search", fmt.Sprint(rl.AtDefault.Value), rl.AtDefault.Recall, rl.AtDefault.MeanHits, nil, nil,
				fmt.Sprint(rl.AtFound.Value), rl.AtFound.Recall, nil, nil, nil, nil, nil)
			t.AddValues("", "real − emulated", "", nil, rl.AtDefault.Recall-row.Unfiltered.AtDefault.Recall, nil, nil, nil,
				nil, rl.AtFound.Recall-row.Unfiltered.AtFound.Recall, nil, nil, nil, nil, nil)
		}
	}
	t.Note("data: %s; %d base rows, %d queries (%s)", r.Data.Source, r.Data.Base, r.Data.Queries, r.Data.QuerySource)
	for _, n := range r.Notes {
		t.Note("%s", n)
	}
	for _, row := range r.Rows {
		if row.Real != nil {
			t.Note("real pgvector beside %s: %s; Spring AI's table loaded with the HNSW index (m = %d, ef_construction = %d, as the emulation's) built as rows arrive, enable_seqscan = off so the planner keeps the index as the emulated rows do; its latencies (WebAssembly when embedded) are not shown", row.Store, row.Real.Server, row.Real.M, row.Real.EfConstruction)
		}
		if row.Exact {
			t.Note("%s: searched exactly (no graph below indexing_threshold, %d KB of vectors), so its knob plays no part and its bytes per vector are the vectors alone; a collection past the threshold is indexed, with the graph's links on top", row.Store, 10000)
		}
		for _, s := range []*Search{&row.Unfiltered, row.Oversample, row.Filtered} {
			if s != nil && len(s.Result.Dips) > 0 {
				var ds []string
				for _, p := range s.Result.Dips {
					ds = append(ds, fmt.Sprintf("%d → %.3f", p.Value, p.Recall))
				}
				t.Note("%s %s: recall fell below the target minus the tolerance above a reaching value (%s); the search resumed above it", row.Store, s.Knob, strings.Join(ds, ", "))
			}
		}
	}
	return t
}

// String is the table as text, then one recommendation a line.
func (r *Report) String() string {
	var b strings.Builder
	b.WriteString(r.Table().String())
	b.WriteString("\nrecommendation:\n")
	for _, row := range r.Rows {
		b.WriteString("  " + row.Advice + "\n")
	}
	fmt.Fprintf(&b, "(%s in all)\n", r.Elapsed.Round(100*time.Millisecond))
	return b.String()
}

// JSON is the report as indented JSON (durations in nanoseconds).
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// Charts are the recall-vs-knob curves of every store (and, with a
// filter, the filtered ones), with the target as a line and, beside an
// emulated pgvector's curve, the real pgvector's two readings.
func (r *Report) Charts() []*chart.Line {
	mk := func(title string, pick func(Row) *Search, real bool) *chart.Line {
		c := chart.NewLine(title, "knob value (the store's beam; log scale)", fmt.Sprintf("recall@%d", r.K))
		c.LogX = true
		lo, hi := 0.0, 0.0
		for _, row := range r.Rows {
			s := pick(row)
			if s == nil {
				continue
			}
			var x, y []float64
			var labels []string
			for _, p := range s.Result.Curve {
				x, y = append(x, float64(p.Value)), append(y, p.Recall)
				l := ""
				if p.Value == s.Result.Value && s.Result.Reached {
					l = fmt.Sprint(p.Value)
				}
				labels = append(labels, l)
				if lo == 0 || float64(p.Value) < lo {
					lo = float64(p.Value)
				}
				hi = max(hi, float64(p.Value))
			}
			c.AddLabeled(row.Store+" ("+s.Knob+")", x, y, labels)
			if rl := row.Real; real && rl != nil {
				// The real pgvector's two readings (default and found)
				// over the emulation's curve.
				c.Add("real "+row.Label+" beside "+row.Store, []float64{float64(rl.AtDefault.Value), float64(rl.AtFound.Value)}, []float64{rl.AtDefault.Recall, rl.AtFound.Recall})
			}
		}
		if hi > lo {
			c.Add(fmt.Sprintf("target %.2f", r.Target), []float64{lo, hi}, []float64{r.Target, r.Target})
		}
		return c
	}
	cs := []*chart.Line{mk(fmt.Sprintf("%s: recall@%d against each store's knob", r.Data.Name, r.K), func(row Row) *Search { return &row.Unfiltered }, true)}
	if r.Data.Filter != "" {
		cs = append(cs, mk(fmt.Sprintf("%s, filtered (%s): recall@%d against each store's knob", r.Data.Name, r.Data.Filter, r.K), func(row Row) *Search { return row.Filtered }, false))
	}
	return cs
}

// HTML is one offline page: the table, the recommendations and the
// curves as SVG (no script, nothing fetched).
func (r *Report) HTML() string {
	var b strings.Builder
	title := "veclab advise: " + r.Data.Name
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}li{margin:.3em 0}</style></head><body>\n<h1>%s</h1>\n", html.EscapeString(title), html.EscapeString(title))
	b.WriteString(r.Body())
	b.WriteString("</body></html>\n")
	return b.String()
}

// Body is the page's content without its head, for a host page to place
// (the explorer's dropped-file advice): the data, the recommendations,
// the curves as SVG, the table, the time.
func (r *Report) Body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p>%s: %d base rows × %d dimensions, %s; %s. Target recall@%d %.2f, memory projected to %d vectors, seed %d.</p>\n",
		html.EscapeString(r.Data.Source), r.Data.Base, r.Data.Dim, r.Data.Metric, html.EscapeString(r.Data.QuerySource), r.K, r.Target, r.N, r.Seed)
	b.WriteString("<h2>Recommendation</h2>\n<ul>\n")
	for _, row := range r.Rows {
		b.WriteString("<li>" + html.EscapeString(row.Advice) + "</li>\n")
	}
	b.WriteString("</ul>\n<h2>Recall against each store's knob</h2>\n")
	for _, c := range r.Charts() {
		b.WriteString("<figure>" + c.SVG() + "</figure>\n")
	}
	b.WriteString("<h2>Measurements</h2>\n<div style=\"overflow-x:auto\">" + r.Table().HTML() + "</div>\n")
	fmt.Fprintf(&b, "<p>Measured in %s.</p>\n", r.Elapsed.Round(100*time.Millisecond))
	return b.String()
}
