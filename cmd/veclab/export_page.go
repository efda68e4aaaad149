package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
)

// The static page of a notebook (veclab export -html) is written here, in
// Go, rather than by post-processing nbconvert's HTML: nbconvert's page
// loads require.js, MathJax and @jupyter-widgets/html-manager from CDNs
// (unpkg, cdnjs), so its scripts would all have to be found and replaced,
// and the export would need Python and Jupyter installed; this page needs
// neither and names nothing outside itself. The outputs are written as
// JupyterLab shows them, picking each bundle's richest type: a widget view
// whose model the notebook saved, a Vega-Lite chart, then HTML, Markdown,
// SVG, PNG/JPEG/GIF and plain text. The page's script
// (wasm/export/src/page.js, bundled by build.mjs) renders the Markdown
// with marked and the widgets with html-manager from the saved state; a
// page with a chart also gets vega.js (vega-embed), which draws each chart
// over the SVG or PNG lab/chart writes beside its spec (that picture stays
// where the chart cannot be drawn).

// pageBundle is the bundled scripts and style of the page: JS and CSS
// for every page, Vega for a page with a Vega-Lite chart.
type pageBundle struct {
	JS, CSS, Vega []byte
}

// mimeOrder is the order in which a bundle's types are tried.
var mimeOrder = []string{
	"text/html", "text/markdown", "image/svg+xml", "image/png", "image/jpeg", "image/gif", "text/plain",
}

const (
	mimeWidgetView  = "application/vnd.jupyter.widget-view+json"
	mimeWidgetState = "application/vnd.jupyter.widget-state+json"
	mimeVegaLite    = "application/vnd.vegalite.v5+json"
)

// pageWriter writes the cells' outputs.
type pageWriter struct {
	models map[string]bool // the model ids of the saved widget state
	charts int             // Vega-Lite charts written
}

// ansi matches the colour escapes of tracebacks and streams.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// nbDocument is the part of an nbformat-4 notebook the page reads.
type nbDocument struct {
	NBFormat int            `json:"nbformat"`
	Metadata map[string]any `json:"metadata"`
	Cells    []nbCell       `json:"cells"`
}

type nbCell struct {
	CellType       string           `json:"cell_type"`
	Source         any              `json:"source"`
	ExecutionCount *int             `json:"execution_count"`
	Outputs        []map[string]any `json:"outputs"`
}

// exportPage renders the nbformat-4 notebook nb as one self-contained
// HTML page, titled by its first Markdown heading, else by fallback.
func exportPage(nb []byte, fallback string, b pageBundle) ([]byte, error) {
	var doc nbDocument
	if err := json.Unmarshal(nb, &doc); err != nil {
		return nil, fmt.Errorf("the notebook is not nbformat JSON: %w", err)
	}
	if doc.NBFormat != 4 {
		return nil, fmt.Errorf("the notebook is nbformat %d; want 4", doc.NBFormat)
	}
	if len(b.JS) == 0 || len(b.CSS) == 0 {
		return nil, errors.New("the page's script or style is empty (wasm/export's build)")
	}
	state, models, err := widgetState(doc.Metadata)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	pw := &pageWriter{models: models}
	title := ""
	for i, c := range doc.Cells {
		src, err := multilineText(c.Source)
		if err != nil {
			return nil, fmt.Errorf("cell %d: source: %w", i, err)
		}
		switch c.CellType {
		case "markdown":
			if title == "" {
				title = firstHeading(src)
			}
			fmt.Fprintf(&body, "<div class=\"vl-cell vl-text\"><pre class=\"vl-md\">%s</pre></div>\n", html.EscapeString(src))
		case "code":
			prompt := " "
			if c.ExecutionCount != nil {
				prompt = fmt.Sprint(*c.ExecutionCount)
			}
			fmt.Fprintf(&body, "<div class=\"vl-cell vl-code\">\n<div class=\"vl-in\"><div class=\"vl-prompt\">[%s]:</div><pre class=\"vl-source\">%s</pre></div>\n",
				prompt, html.EscapeString(src))
			if len(c.Outputs) > 0 {
				body.WriteString("<div class=\"vl-outputs\">\n")
				for j, o := range c.Outputs {
					if err := pw.output(&body, o); err != nil {
						return nil, fmt.Errorf("cell %d, output %d: %w", i, j, err)
					}
				}
				body.WriteString("</div>\n")
			}
			body.WriteString("</div>\n")
		case "raw":
			fmt.Fprintf(&body, "<div class=\"vl-cell vl-raw\"><pre>%s</pre></div>\n", html.EscapeString(src))
		default:
			return nil, fmt.Errorf("cell %d: unknown cell_type %q", i, c.CellType)
		}
	}
	if title == "" {
		title = fallback
	}
	var page bytes.Buffer
	fmt.Fprintf(&page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", html.EscapeString(title))
	page.WriteString("<meta name=\"generator\" content=\"veclab export -html\">\n")
	// The bundle goes in as data: URLs: inlined text would have to be kept
	// from closing its element (a "</script" or "<!--" in a string of the
	// minified code), which base64 rules out.
	fmt.Fprintf(&page, "<link rel=\"stylesheet\" href=\"data:text/css;base64,%s\">\n", base64.StdEncoding.EncodeToString(b.CSS))
	page.WriteString("<style>\n" + pageCSS + "</style>\n</head>\n<body>\n<main class=\"vl-notebook\">\n")
	page.Write(body.Bytes())
	page.WriteString("</main>\n")
	if state != nil {
		page.WriteString("<script type=\"" + mimeWidgetState + "\">")
		page.Write(state)
		page.WriteString("</script>\n")
	}
	fmt.Fprintf(&page, "<script src=\"data:text/javascript;base64,%s\"></script>\n", base64.StdEncoding.EncodeToString(b.JS))
	if pw.charts > 0 {
		if len(b.Vega) == 0 {
			return nil, errors.New("the notebook has Vega-Lite charts and the page's vega.js is empty (wasm/export's build)")
		}
		fmt.Fprintf(&page, "<script src=\"data:text/javascript;base64,%s\"></script>\n", base64.StdEncoding.EncodeToString(b.Vega))
	}
	page.WriteString("</body>\n</html>\n")
	return page.Bytes(), nil
}

// widgetState returns the notebook's saved widget state, re-encoded for a
// script element (json.Marshal escapes <, > and &, so no "</script" can
// end it early), and the model ids it holds; nil when there is none.
func widgetState(md map[string]any) ([]byte, map[string]bool, error) {
	ws, _ := md["widgets"].(map[string]any)
	st, ok := ws[mimeWidgetState]
	if !ok {
		return nil, nil, nil
	}
	m, _ := st.(map[string]any)
	models, _ := m["state"].(map[string]any)
	if m == nil || models == nil {
		return nil, nil, fmt.Errorf("metadata.widgets[%q] has no state object", mimeWidgetState)
	}
	if v, _ := m["version_major"].(float64); v != 2 {
		return nil, nil, fmt.Errorf("metadata.widgets[%q] is version %v; the page's html-manager reads version 2", mimeWidgetState, m["version_major"])
	}
	ids := make(map[string]bool, len(models))
	for id := range models {
		ids[id] = true
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	return b, ids, nil
}

// output writes one nbformat output.
func (pw *pageWriter) output(w *bytes.Buffer, o map[string]any) error {
	switch o["output_type"] {
	case "stream":
		text, err := multilineText(o["text"])
		if err != nil {
			return err
		}
		name, _ := o["name"].(string)
		fmt.Fprintf(w, "<pre class=\"vl-stream vl-%s\">%s</pre>\n", html.EscapeString(name), html.EscapeString(ansi.ReplaceAllString(text, "")))
	case "error":
		var lines []string
		tb, _ := o["traceback"].([]any)
		for _, l := range tb {
			s, _ := l.(string)
			lines = append(lines, s)
		}
		if len(lines) == 0 {
			lines = []string{fmt.Sprintf("%v: %v", o["ename"], o["evalue"])}
		}
		fmt.Fprintf(w, "<pre class=\"vl-error\">%s</pre>\n", html.EscapeString(ansi.ReplaceAllString(strings.Join(lines, "\n"), "")))
	case "display_data", "execute_result":
		data, _ := o["data"].(map[string]any)
		return pw.data(w, data)
	default:
		return fmt.Errorf("unknown output_type %v", o["output_type"])
	}
	return nil
}

// data writes the richest type of a MIME bundle the page can draw.
func (pw *pageWriter) data(w *bytes.Buffer, data map[string]any) error {
	plain, _ := multilineText(data["text/plain"])
	if v, ok := data[mimeWidgetView].(map[string]any); ok {
		if id, _ := v["model_id"].(string); pw.models[id] {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			// html-manager draws the view before the script; page.js then
			// removes the text after it, which stays where the widget
			// cannot be drawn (no script).
			fmt.Fprintf(w, "<div class=\"vl-output vl-widget\"><script type=\"%s\">%s</script><pre class=\"vl-widget-text\">%s</pre></div>\n",
				mimeWidgetView, b, html.EscapeString(plain))
			return nil
		}
	}
	if spec, ok := data[mimeVegaLite]; ok {
		if _, isObj := spec.(map[string]any); !isObj {
			return fmt.Errorf("%s is %T, want a JSON object", mimeVegaLite, spec)
		}
		b, err := json.Marshal(spec)
		if err != nil {
			return err
		}
		// vega.js draws the chart before the script and removes the
		// picture, which stays where the chart cannot be drawn.
		fmt.Fprintf(w, "<div class=\"vl-output vl-vega\"><div class=\"vl-vega-fallback\">\n")
		rest := map[string]any{}
		for k, v := range data {
			if k != mimeVegaLite {
				rest[k] = v
			}
		}
		if err := pw.data(w, rest); err != nil {
			return err
		}
		fmt.Fprintf(w, "</div><script type=\"%s\">%s</script></div>\n", mimeVegaLite, b)
		pw.charts++
		return nil
	}
	for _, mt := range mimeOrder {
		v, ok := data[mt]
		if !ok {
			continue
		}
		s, err := multilineText(v)
		if err != nil {
			return fmt.Errorf("%s: %w", mt, err)
		}
		switch mt {
		case "text/html", "image/svg+xml":
			fmt.Fprintf(w, "<div class=\"vl-output vl-html\">%s</div>\n", s)
		case "text/markdown":
			fmt.Fprintf(w, "<div class=\"vl-output\"><pre class=\"vl-md\">%s</pre></div>\n", html.EscapeString(s))
		case "image/png", "image/jpeg", "image/gif":
			b64 := strings.Map(func(r rune) rune {
				if r == '\n' || r == '\r' || r == ' ' {
					return -1
				}
				return r
			}, s)
			if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
				return fmt.Errorf("%s is not base64: %w", mt, err)
			}
			fmt.Fprintf(w, "<div class=\"vl-output\"><img src=\"data:%s;base64,%s\" alt=\"%s\"></div>\n", mt, b64, html.EscapeString(plain))
		case "text/plain":
			fmt.Fprintf(w, "<pre class=\"vl-output vl-plain\">%s</pre>\n", html.EscapeString(ansi.ReplaceAllString(s, "")))
		}
		return nil
	}
	return nil // a bundle with no type the page draws shows nothing, as in nbconvert
}

// multilineText joins an nbformat multi-line string (a string or a list
// of strings; absent is empty).
func multilineText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []any:
		var b strings.Builder
		for _, l := range x {
			s, ok := l.(string)
			if !ok {
				return "", fmt.Errorf("a line is %T, want a string", l)
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%T, want a string or a list of strings", v)
}

// firstHeading returns the text of the first Markdown heading in src.
func firstHeading(src string) string {
	for _, l := range strings.Split(src, "\n") {
		if t := strings.TrimLeft(l, "#"); len(t) < len(l) && strings.HasPrefix(t, " ") {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// pageCSS lays out the cells; the widgets' own style (html-manager's, with
// JupyterLab's CSS variables) comes with the bundle.
const pageCSS = `body { margin: 0; background: #fff; color: #212121; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.vl-notebook { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
.vl-cell { margin: 10px 0; }
.vl-in { display: flex; gap: 8px; }
.vl-prompt { flex: 0 0 56px; color: #307fc1; font: 13px/1.3 ui-monospace, Menlo, Consolas, monospace; text-align: right; padding-top: 6px; }
pre { font: 13px/1.35 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.vl-source { flex: 1; background: #f5f5f5; border: 1px solid #e0e0e0; border-radius: 2px; padding: 6px 8px; }
.vl-outputs { margin-left: 64px; padding: 4px 0; overflow-x: auto; }
.vl-output, .vl-stream, .vl-error { margin: 4px 0; }
.vl-stderr { background: #fdd; }
.vl-error { background: #fdd; padding: 4px; }
.vl-output img, .vl-output svg { max-width: 100%; height: auto; }
.vl-output table, .vl-markdown table { border-collapse: collapse; font-size: 13px; }
.vl-output th, .vl-output td, .vl-markdown th, .vl-markdown td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
.vl-text pre.vl-md { white-space: pre-wrap; }
.vl-text { margin-left: 64px; }
`
