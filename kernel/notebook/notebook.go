// Package notebook executes the code cells of a Jupyter notebook (nbformat
// 4) with an evaluation core, without Jupyter, and writes the outputs back
// into the notebook as Jupyter would. It backs `veclab run`.
//
// Unknown fields of the notebook and its cells are preserved; only the
// outputs and execution_count of code cells are replaced, and the widget
// state in the notebook's metadata. Every cell leaves with the id nbformat
// 4.5 requires: the one it had, or one made from its source (see
// Normalize), so ids stay put across runs.
//
// # Widgets
//
// Run records the widgets the cells create (kernel/widget's Record) as
// Jupyter's "save widget state" would keep them: their state goes into
// metadata.widgets["application/vnd.jupyter.widget-state+json"] (version
// 2.0, by model id the model's module, version, name and state), each
// widget a cell shows is an application/vnd.jupyter.widget-view+json
// output, and what runs inside an Output widget (Interact's function)
// goes into that widget's "outputs" state, as a front end's output area
// would take it, not into the cell. A static export
// (`veclab export -html`, @jupyter-widgets/html-manager) draws the widgets
// from that state with their last values. For viewers without widgets
// (GitHub, nbconvert --to markdown) each view output's text/plain is the
// widget's final text: a control's description and value, a box's
// children one per line, an Output's printed text. A run that creates no
// widget removes the state a front end saved earlier (its model ids name
// widgets of another session).
package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/veclab/veclab/kernel/display"
	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/widget"
)

// Options configure Run.
type Options struct {
	// AllowErrors keeps running after a cell fails (like nbconvert's
	// --allow-errors); by default Run stops at the first error.
	AllowErrors bool
	// Progress, when not nil, receives one line per cell and the text of
	// its outputs (the terminal view of `veclab run`).
	Progress io.Writer
	// Stdin answers standard-input reads of the cells, in order.
	Stdin []string
}

// ErrCell is returned (wrapped) when a cell fails and AllowErrors is off.
var ErrCell = errors.New("notebook: a cell failed")

// Run executes the code cells of the nbformat-4 notebook nb in order and
// returns the notebook with their outputs. On a failing cell it returns
// the notebook so far (outputs up to the failing cell) and an error
// wrapping ErrCell, unless opt.AllowErrors.
func Run(nb []byte, interp eval.Interpreter, opt Options) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(nb, &doc); err != nil {
		return nil, fmt.Errorf("notebook: not JSON%s: %w", jsonWhere(nb, err), err)
	}
	if v, _ := doc["nbformat"].(float64); v != 4 {
		return nil, fmt.Errorf("notebook: nbformat %v, want 4", doc["nbformat"])
	}
	cells, ok := doc["cells"].([]any)
	if !ok {
		return nil, fmt.Errorf("notebook: no cells array")
	}
	rt := &route{}
	rec, recErr := widget.Record(func(f func()) ([]any, bool) { return rt.capture(interp, f) })
	if recErr == nil {
		defer rec.Stop()
	}
	count := 0
	var runErr error
	for i, c := range cells {
		cell, ok := c.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("notebook: cell %d is not an object", i)
		}
		if cell["cell_type"] != "code" {
			continue
		}
		src, err := source(cell["source"])
		if err != nil {
			return nil, fmt.Errorf("notebook: cell %d: %w", i, err)
		}
		if runErr != nil {
			cell["outputs"] = []any{}
			cell["execution_count"] = nil
			continue
		}
		count++
		cr := &eval.Recorder{Stdin: opt.Stdin}
		rt.set(cr)
		res := interp.Eval(src, rt)
		rt.set(nil)
		opt.Stdin = cr.Stdin
		outs := outputs(cr, res, count)
		cell["outputs"] = outs
		cell["execution_count"] = count
		if opt.Progress != nil {
			progress(opt.Progress, i, count, outs)
		}
		if res.Err != nil && !opt.AllowErrors {
			runErr = fmt.Errorf("notebook: cell %d (execution %d): %v: %w", i, count, res.Err, ErrCell)
		}
	}
	if recErr == nil {
		saveWidgets(doc, cells, rec)
	}
	out, err := write(doc, cells)
	if err != nil {
		return nil, err
	}
	return out, runErr
}

// Normalize returns the nbformat-4 notebook nb as Run writes it, without
// running anything: every cell with an id (nbformat 4.5), the notebook
// marked 4.5, the JSON laid out as Jupyter lays it out (one-space indent,
// sorted keys). Ids a cell already has are kept.
func Normalize(nb []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(nb, &doc); err != nil {
		return nil, fmt.Errorf("notebook: not JSON%s: %w", jsonWhere(nb, err), err)
	}
	if v, _ := doc["nbformat"].(float64); v != 4 {
		return nil, fmt.Errorf("notebook: nbformat %v, want 4", doc["nbformat"])
	}
	cells, ok := doc["cells"].([]any)
	if !ok {
		return nil, fmt.Errorf("notebook: no cells array")
	}
	return write(doc, cells)
}

// write gives the cells their ids and encodes doc as Jupyter does.
func write(doc map[string]any, cells []any) ([]byte, error) {
	if err := ensureCellIDs(cells); err != nil {
		return nil, err
	}
	setMinor4_5(doc)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func source(v any) (string, error) {
	switch s := v.(type) {
	case string:
		return s, nil
	case []any:
		var b strings.Builder
		for _, l := range s {
			ls, ok := l.(string)
			if !ok {
				return "", fmt.Errorf("source line is %T, want string", l)
			}
			b.WriteString(ls)
		}
		return b.String(), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("source is %T, want string or list", v)
}

// lines splits text the way nbformat stores multi-line strings.
func lines(s string) []any {
	var out []any
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func data(b eval.Bundle) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		switch x := v.(type) {
		case string:
			if strings.HasPrefix(k, "text/") || k == display.MIMESVG {
				out[k] = lines(x)
			} else {
				out[k] = x
			}
		case json.RawMessage:
			var j any
			if json.Unmarshal(x, &j) == nil {
				out[k] = j
			}
		default:
			out[k] = x
		}
	}
	return out
}

func outputs(rec *eval.Recorder, res eval.Result, count int) []any {
	outs := []any{}
	for _, it := range rec.Items {
		if it.Stream != "" {
			outs = append(outs, map[string]any{"output_type": "stream", "name": it.Stream, "text": lines(it.Text)})
			continue
		}
		d := map[string]any{"output_type": "display_data", "data": data(it.Data), "metadata": map[string]any{}}
		outs = append(outs, d)
	}
	if res.Err != nil {
		tb := res.Err.Traceback
		if tb == nil {
			tb = []string{res.Err.Error()}
		}
		outs = append(outs, map[string]any{"output_type": "error", "ename": res.Err.Name, "evalue": res.Err.Value, "traceback": tb})
	} else if res.Value != nil {
		outs = append(outs, map[string]any{"output_type": "execute_result", "execution_count": count,
			"data": data(res.Value), "metadata": map[string]any{}})
	}
	return outs
}

func progress(w io.Writer, index, count int, outs []any) {
	fmt.Fprintf(w, "── cell %d [%d]\n", index, count)
	for _, o := range outs {
		m := o.(map[string]any)
		switch m["output_type"] {
		case "stream":
			for _, l := range m["text"].([]any) {
				fmt.Fprint(w, l)
			}
		case "error":
			fmt.Fprintf(w, "%s: %s\n", m["ename"], m["evalue"])
		default:
			d := m["data"].(map[string]any)
			kinds := []string{}
			for k := range d {
				if k != display.MIMEText {
					kinds = append(kinds, k)
				}
			}
			if t, ok := d[display.MIMEText].([]any); ok {
				for _, l := range t {
					fmt.Fprint(w, l)
				}
				fmt.Fprintln(w)
			}
			sort.Strings(kinds)
			if len(kinds) > 0 {
				fmt.Fprintf(w, "  (also %s)\n", strings.Join(kinds, ", "))
			}
		}
	}
}

// jsonWhere names the line and column of a JSON syntax error (or the end
// of input for a truncated file), so a broken notebook can be found.
func jsonWhere(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input"):
		off = int64(len(b)) // just past the last byte
	case errors.As(err, &se):
		off = se.Offset - 1 // Offset counts the offending byte
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return ""
	}
	off = min(off, int64(len(b)))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Sprintf(" at line %d, column %d", line, col)
}

// route is the Output a cell runs with: the cell's Recorder, or, while an
// Output widget of the recording captures, that capture's own (the
// session writes to one Output per cell; route switches under it).
type route struct {
	mu  sync.Mutex
	cur eval.Output // guarded by mu
}

func (r *route) set(o eval.Output) (prev eval.Output) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, r.cur = r.cur, o
	return prev
}

func (r *route) get() eval.Output {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return eval.Discard{}
	}
	return r.cur
}

func (r *route) Stream(name, text string)                 { r.get().Stream(name, text) }
func (r *route) Display(d eval.Bundle, id string, u bool) { r.get().Display(d, id, u) }
func (r *route) Input(prompt string, password bool) (string, error) {
	return r.get().Input(prompt, password)
}

func (r *route) RemoveDisplays(ids []string) {
	if rm, ok := r.get().(eval.Remover); ok {
		rm.RemoveDisplays(ids)
	}
}

func (r *route) ClearOutput(wait bool) {
	if c, ok := r.get().(eval.Clearer); ok {
		c.ClearOutput(wait)
	}
}

// capture is what an Output widget captures: a Recorder that notes a
// clear_output and asks the cell's Output for standard input.
type capture struct {
	eval.Recorder
	parent  eval.Output
	cleared bool
}

func (c *capture) ClearOutput(wait bool) {
	c.Recorder.ClearOutput(wait)
	c.cleared = true
}

func (c *capture) Input(prompt string, password bool) (string, error) {
	return c.parent.Input(prompt, password)
}

// capture runs f with its outputs going to a capture of their own (the
// recording's CaptureFunc): what the cell wrote before and after stays
// the cell's, because the session delivers it (Flush) at each switch.
func (r *route) capture(interp eval.Interpreter, f func()) (outs []any, cleared bool) {
	flush := func() {
		if fl, ok := interp.(interface{ Flush() }); ok {
			fl.Flush()
		}
	}
	flush()
	c := &capture{parent: r.get()}
	prev := r.set(c)
	defer func() {
		flush()
		r.set(prev)
	}()
	f()
	flush()
	return outputs(&c.Recorder, eval.Result{}, 0), c.cleared
}

// saveWidgets writes the recording's widget state into the notebook's
// metadata and gives each widget view among the cells' outputs the
// widget's final text as its text/plain; with no widget recorded it
// removes a widget state saved before.
func saveWidgets(doc map[string]any, cells []any, rec *widget.Recording) {
	md, _ := doc["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		doc["metadata"] = md
	}
	ws, _ := md["widgets"].(map[string]any)
	if rec.Len() == 0 {
		if ws != nil {
			delete(ws, widget.MIMEState)
			if len(ws) == 0 {
				delete(md, "widgets")
			}
		}
		return
	}
	if ws == nil {
		ws = map[string]any{}
		md["widgets"] = ws
	}
	ws[widget.MIMEState] = rec.State()
	for _, c := range cells {
		cell, _ := c.(map[string]any)
		outs, _ := cell["outputs"].([]any)
		for _, o := range outs {
			d, _ := o.(map[string]any)["data"].(map[string]any)
			view, _ := d[widget.MIMEView].(map[string]any)
			id, _ := view["model_id"].(string)
			if t, ok := rec.Text(id); ok && t != "" {
				d[display.MIMEText] = lines(t)
			}
		}
	}
}
