// Package notebook executes the code cells of a Jupyter notebook (nbformat
// 4) with an evaluation core, without Jupyter, and writes the outputs back
// into the notebook as Jupyter would. It backs `veclab run`.
//
// Unknown fields of the notebook and its cells are preserved; only the
// outputs and execution_count of code cells are replaced.
package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/veclab/veclab/kernel/display"
	"github.com/veclab/veclab/kernel/eval"
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
		rec := &eval.Recorder{Stdin: opt.Stdin}
		res := interp.Eval(src, rec)
		opt.Stdin = rec.Stdin
		outs := outputs(rec, res, count)
		cell["outputs"] = outs
		cell["execution_count"] = count
		if opt.Progress != nil {
			progress(opt.Progress, i, count, outs)
		}
		if res.Err != nil && !opt.AllowErrors {
			runErr = fmt.Errorf("notebook: cell %d (execution %d): %v: %w", i, count, res.Err, ErrCell)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), runErr
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
