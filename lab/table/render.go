package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"html"
	"strings"
)

// Markdown renders the table as a GitHub-flavoured Markdown table: the
// title in bold, the table, then the notes as a list.
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("**")
		b.WriteString(mdEscape(t.Title))
		b.WriteString("**\n\n")
	}
	n := len(t.Columns)
	if n > 0 {
		b.WriteString("|")
		for _, c := range t.Columns {
			b.WriteString(" ")
			b.WriteString(mdEscape(c.Label()))
			b.WriteString(" |")
		}
		b.WriteString("\n|")
		for i := range t.Columns {
			switch t.align(i) {
			case Right:
				b.WriteString("---:|")
			case Center:
				b.WriteString(":---:|")
			default:
				b.WriteString(":---|")
			}
		}
		b.WriteString("\n")
		for _, row := range t.Rows {
			b.WriteString("|")
			for i := 0; i < n; i++ {
				s := ""
				if i < len(row) {
					s = row[i].String()
				}
				b.WriteString(" ")
				b.WriteString(mdEscape(s))
				b.WriteString(" |")
			}
			b.WriteString("\n")
		}
	}
	if notes := t.notes(); len(notes) > 0 {
		b.WriteString("\n")
		for _, note := range notes {
			b.WriteString("- ")
			b.WriteString(mdEscape(note))
			b.WriteString("\n")
		}
	}
	return b.String()
}

var mdReplacer = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ")

func mdEscape(s string) string { return mdReplacer.Replace(s) }

// Styles of the HTML rendering; inline so the table looks the same in a
// notebook, a browser page and an exported report.
const (
	styleScroll  = "overflow-x:auto;max-width:100%"
	styleTable   = "border-collapse:collapse;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:13px;margin:0.5em 0"
	styleCaption = "caption-side:top;text-align:left;font-weight:600;padding:4px 0"
	styleTh      = "border-bottom:2px solid #444;padding:4px 10px;white-space:nowrap"
	styleTd      = "border-bottom:1px solid #ddd;padding:3px 10px;white-space:nowrap"
	styleArticle = ";background:#f3f3f3;color:#555;font-style:italic"
	styleLab     = ";font-weight:600"
	styleLive    = ";font-weight:600;color:#1f4e79"
	styleNotes   = "padding:6px 10px 2px 10px;color:#555;font-size:12px;text-align:left;white-space:normal"
)

// HTML renders the table as a styled, escaped HTML <table>: article columns
// grey and italic, lab columns bold, the notes in the footer. The table is
// inside a <div> that scrolls sideways, so a table wider than a
// notebook's output column keeps its right-hand columns in reach.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="veclab-table-scroll" style="` + styleScroll + `">`)
	b.WriteString(`<table class="veclab-table" style="` + styleTable + `">`)
	b.WriteString("\n")
	if t.Title != "" {
		b.WriteString(`<caption style="` + styleCaption + `">`)
		b.WriteString(html.EscapeString(t.Title))
		b.WriteString("</caption>\n")
	}
	n := len(t.Columns)
	cellStyle := func(base string, i int) string {
		s := base + ";text-align:" + cssAlign(t.align(i))
		switch t.Columns[i].Source {
		case Article:
			s += styleArticle
		case Lab:
			s += styleLab
		case Live:
			s += styleLive
		}
		return s
	}
	if n > 0 {
		b.WriteString("<thead><tr>")
		for i, c := range t.Columns {
			b.WriteString(`<th style="` + cellStyle(styleTh, i) + `">`)
			b.WriteString(html.EscapeString(c.Label()))
			b.WriteString("</th>")
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, row := range t.Rows {
			b.WriteString("<tr>")
			for i := 0; i < n; i++ {
				s := ""
				if i < len(row) {
					s = row[i].String()
				}
				b.WriteString(`<td style="` + cellStyle(styleTd, i) + `">`)
				b.WriteString(html.EscapeString(s))
				b.WriteString("</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n")
	}
	if notes := t.notes(); len(notes) > 0 {
		b.WriteString(`<tfoot><tr><td colspan="`)
		b.WriteString(itoa(max(n, 1)))
		b.WriteString(`" style="` + styleNotes + `">`)
		for i, note := range notes {
			if i > 0 {
				b.WriteString("<br>")
			}
			b.WriteString(html.EscapeString(note))
		}
		b.WriteString("</td></tr></tfoot>\n")
	}
	b.WriteString("</table></div>\n")
	return b.String()
}

func cssAlign(a Align) string {
	switch a {
	case Right:
		return "right"
	case Center:
		return "center"
	}
	return "left"
}

func itoa(n int) string { return Int(n).String() }

// CSV renders the header labels and the rows as RFC 4180 CSV, numbers at
// full precision and missing cells empty. The title and notes are not part
// of the CSV.
func (t *Table) CSV() string {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	labels := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		labels[i] = c.Label()
	}
	_ = w.Write(labels) // writes to a bytes.Buffer cannot fail
	for _, row := range t.Rows {
		rec := make([]string, len(t.Columns))
		for i := range rec {
			if i < len(row) {
				rec[i] = row[i].raw()
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return buf.String()
}

// JSON returns the table as a JSON-ready value: title, columns (header,
// unit, source, label), rows of values (null for missing) and notes. A
// notebook shows it as application/json.
func (t *Table) JSON() map[string]any {
	cols := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = map[string]any{
			"header": c.Header,
			"unit":   c.Unit,
			"source": c.Source.String(),
			"label":  c.Label(),
			"align":  t.align(i).String(),
		}
	}
	rows := make([]any, len(t.Rows))
	for r, row := range t.Rows {
		vals := make([]any, len(t.Columns))
		for i := range vals {
			if i < len(row) {
				vals[i] = row[i].json()
			}
		}
		rows[r] = vals
	}
	tn := t.notes()
	notes := make([]any, len(tn))
	for i, n := range tn {
		notes[i] = n
	}
	return map[string]any{"title": t.Title, "columns": cols, "rows": rows, "notes": notes}
}

// MarshalJSON encodes [Table.JSON], so a table inside a saved report is
// written in the same shape.
func (t *Table) MarshalJSON() ([]byte, error) { return json.Marshal(t.JSON()) }
