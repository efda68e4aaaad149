package experiment

import (
	"encoding/base64"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/veclab/veclab/lab/table"
)

// Status is the outcome of running an experiment.
type Status uint8

// The outcomes.
const (
	OK          Status = iota // ran and measured
	NotRunnable               // a mechanism it needs is missing; Err says which
	Failed                    // an error (or a panic) stopped it; Err says why
)

// String returns "ok", "not runnable" or "failed".
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case NotRunnable:
		return "not runnable"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("Status(%d)", s)
}

// Chart is a figure a report carries: anything that renders as SVG (the
// lab/chart types do).
type Chart interface {
	SVG() string
}

// Report is what an experiment produces: its tables (article beside lab),
// charts and notes, with the conditions of the run.
type Report struct {
	ID, Title, Article string
	Scale              Scale
	Seed               uint64
	Machine            Machine
	Tables             []*table.Table
	Charts             []Chart
	Notes              []string
	Verdicts           Verdicts // the article's claims against the lab's figures
	Elapsed            time.Duration
	Status             Status
	Err                string // why it did not run, when Status is not OK
}

// newReport starts a report for experiment e under env.
func NewReport(e Experiment, env *Env) *Report {
	return &Report{ID: e.ID, Title: e.Title, Article: e.Article, Scale: env.Scale, Seed: env.Seed, Machine: env.Machine}
}

// addTable appends tables.
func (r *Report) AddTable(ts ...*table.Table) { r.Tables = append(r.Tables, ts...) }

// addChart appends charts.
func (r *Report) AddChart(cs ...Chart) { r.Charts = append(r.Charts, cs...) }

// Note appends a note.
func (r *Report) Note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

func (r *Report) heading() string {
	return fmt.Sprintf("%s  %s", r.ID, r.Title)
}

func (r *Report) conditions() string {
	return fmt.Sprintf("scale %s (%v), seed %d; %v", r.Scale.Name, r.Scale, r.Seed, r.Machine)
}

// String renders the report as plain text: heading, conditions, tables,
// notes. Charts are not drawn in text; their count is noted.
func (r *Report) String() string {
	var b strings.Builder
	h := r.heading()
	b.WriteString(h + "\n" + strings.Repeat("=", len([]rune(h))) + "\n")
	if r.Article != "" {
		b.WriteString("article: " + r.Article + "\n")
	}
	b.WriteString("run: " + r.conditions() + "\n")
	if r.Status != OK {
		fmt.Fprintf(&b, "status: %s: %s\n", r.Status, r.Err)
	}
	for _, t := range r.Tables {
		b.WriteString("\n")
		b.WriteString(t.String())
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			b.WriteString("- " + n + "\n")
		}
	}
	if len(r.Verdicts) > 0 {
		b.WriteString("\n" + r.Verdicts.String())
	}
	if len(r.Charts) > 0 {
		fmt.Fprintf(&b, "\n(%d chart(s): see the Markdown or HTML report)\n", len(r.Charts))
	}
	if r.Elapsed > 0 {
		fmt.Fprintf(&b, "elapsed: %s\n", r.Elapsed.Round(time.Millisecond))
	}
	return b.String()
}

// Markdown renders the report as Markdown; charts are embedded as SVG data
// URIs so the file stands alone.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("## " + mdText(r.heading()) + "\n\n")
	if r.Article != "" {
		b.WriteString("*Article:* " + mdText(r.Article) + "  \n")
	}
	b.WriteString("*Run:* " + mdText(r.conditions()) + "\n")
	if r.Status != OK {
		fmt.Fprintf(&b, "\n**Status: %s.** %s\n", r.Status, mdText(r.Err))
	}
	for _, t := range r.Tables {
		b.WriteString("\n")
		b.WriteString(t.Markdown())
	}
	for i, c := range r.Charts {
		fmt.Fprintf(&b, "\n![%s chart %d](data:image/svg+xml;base64,%s)\n", r.ID, i+1, base64.StdEncoding.EncodeToString([]byte(c.SVG())))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			if strings.Contains(strings.TrimRight(n, "\n"), "\n") {
				// A multi-line note (a store's own description) stays verbatim.
				b.WriteString("\n```text\n" + strings.ReplaceAll(strings.TrimRight(n, "\n"), "```", "'''") + "\n```\n\n")
				continue
			}
			b.WriteString("- " + mdText(n) + "\n")
		}
	}
	if len(r.Verdicts) > 0 {
		b.WriteString("\n" + r.Verdicts.Markdown())
	}
	if r.Elapsed > 0 {
		fmt.Fprintf(&b, "\n*Elapsed:* %s\n", r.Elapsed.Round(time.Millisecond))
	}
	return b.String()
}

// JSON returns the report as a JSON-ready value (a notebook shows it as
// application/json; a saved run keeps it): the experiment, the conditions
// (scale, seed, machine), the status, the tables (see table.Table.JSON)
// and the notes. Charts are left out.
func (r *Report) JSON() map[string]any {
	tables := make([]any, len(r.Tables))
	for i, t := range r.Tables {
		tables[i] = t.JSON()
	}
	notes := make([]any, len(r.Notes))
	for i, n := range r.Notes {
		notes[i] = n
	}
	return map[string]any{
		"id": r.ID, "title": r.Title, "article": r.Article,
		"scale": map[string]any{"name": r.Scale.Name, "n": r.Scale.N, "dim": r.Scale.Dim, "clusters": r.Scale.Clusters,
			"queries": r.Scale.Queries, "warmup": r.Scale.Warmup, "k": r.Scale.K, "batch": r.Scale.Batch},
		"seed": r.Seed,
		"machine": map[string]any{"cpu": r.Machine.CPU, "cores": r.Machine.Cores, "go": r.Machine.GoVersion,
			"os": r.Machine.OS, "arch": r.Machine.Arch, "simd": r.Machine.Features, "kernel": r.Machine.Kernel},
		"status": r.Status.String(), "error": r.Err, "elapsed_seconds": r.Elapsed.Seconds(),
		"tables": tables, "notes": notes, "verdicts": r.Verdicts.JSON(),
	}
}

var mdTextReplacer = strings.NewReplacer("<", "&lt;", ">", "&gt;", "\n", " ")

func mdText(s string) string { return mdTextReplacer.Replace(s) }

// HTML renders the report as an HTML fragment with its tables and inline
// SVG charts; a notebook cell shows it as text/html.
func (r *Report) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="veclab-report">` + "\n")
	b.WriteString("<h3>" + html.EscapeString(r.heading()) + "</h3>\n")
	b.WriteString(`<p style="color:#555;font-size:12px">`)
	if r.Article != "" {
		b.WriteString("article: " + html.EscapeString(r.Article) + "<br>")
	}
	b.WriteString("run: " + html.EscapeString(r.conditions()) + "</p>\n")
	if r.Status != OK {
		b.WriteString(`<p style="color:#b00020"><b>` + html.EscapeString(r.Status.String()) + ":</b> " + html.EscapeString(r.Err) + "</p>\n")
	}
	for _, t := range r.Tables {
		b.WriteString(t.HTML())
	}
	for _, c := range r.Charts {
		b.WriteString(`<div class="veclab-chart">` + stripXMLHeader(c.SVG()) + "</div>\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("<ul>\n")
		for _, n := range r.Notes {
			if strings.Contains(strings.TrimRight(n, "\n"), "\n") {
				b.WriteString(`<li><pre style="font-size:12px;white-space:pre-wrap">` + html.EscapeString(strings.TrimRight(n, "\n")) + "</pre></li>\n")
				continue
			}
			b.WriteString("<li>" + html.EscapeString(n) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	if len(r.Verdicts) > 0 {
		b.WriteString(r.Verdicts.HTML())
	}
	b.WriteString("</div>\n")
	return b.String()
}

// stripXMLHeader drops an SVG document's XML declaration and comments
// before <svg so it can be inlined in HTML.
func stripXMLHeader(svg string) string {
	if i := strings.Index(svg, "<svg"); i > 0 {
		return svg[i:]
	}
	return svg
}
