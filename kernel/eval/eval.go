package eval

import (
	"fmt"
	"strings"
	"sync"

	"github.com/veclab/veclab/kernel/display"
)

// Bundle is a MIME bundle (MIME type → data), as in [display.Bundle].
type Bundle = display.Bundle

// Output receives what a running cell produces. Its methods may be called
// from several goroutines, also after Eval returned (goroutines left
// running by a cell).
type Output interface {
	// Stream delivers text written to "stdout" or "stderr".
	Stream(name, text string)
	// Display shows a bundle; a non-empty id names an updatable display
	// and update replaces it.
	Display(data Bundle, id string, update bool)
	// Input asks the user for one line of standard input (without the
	// newline); an error means no input can be had (the read sees EOF).
	Input(prompt string, password bool) (string, error)
}

// A Remover is an Output that can take displays away again. At the end of
// a cell that showed transient displays (display.Progress), after
// everything else the cell produced has been delivered and before Eval
// returns, the session calls RemoveDisplays with their ids, in the order
// they were first shown. Jupyter has no message that removes one output:
// the kernel clears the cell's outputs and sends the others again, in
// order and with their display ids; a Recorder drops the items.
type Remover interface {
	RemoveDisplays(ids []string)
}

// A Clearer is an Output that can clear what the cell has shown so far
// (display.ClearOutput): Jupyter's clear_output message. With wait, the
// front end clears when the next output arrives, so a redraw does not
// flicker. Without Clearer, a ClearOutput call is dropped.
type Clearer interface {
	ClearOutput(wait bool)
}

// A Caller is an Interpreter that can run a Go function as it runs a cell:
// output to out, under a cell context that Interrupt cancels, with panics
// and interrupts returned as an Error. The kernel runs comm callbacks
// (widget events from the front end) this way.
type Caller interface {
	Call(label string, fn func(), out Output) *Error
}

// Error is a failed cell: Name is the kind ("compile error", "panic",
// "runtime error", "interrupted", "exit"), Value the message, Traceback the
// lines to show, pointing at the cell line when it is known.
type Error struct {
	Name      string
	Value     string
	Traceback []string
}

func (e *Error) Error() string { return e.Name + ": " + e.Value }

// Result is the outcome of one cell: the bundle of its last expression
// (nil when there is none to show) or an error.
type Result struct {
	Value Bundle
	Err   *Error
}

// Interpreter runs cells. Implementations keep state between cells.
type Interpreter interface {
	// Eval runs code and returns its result; outputs stream to out while
	// it runs and are all delivered before Eval returns.
	Eval(code string, out Output) Result
	// Complete returns the completions of the identifier or selector
	// ending at cursor (a byte offset), replacing code[start:end].
	Complete(code string, cursor int) (start, end int, matches []string)
	// Inspect returns the documentation of the symbol at cursor.
	Inspect(code string, cursor int) (Bundle, bool)
	// IsComplete reports "complete", "incomplete" or "invalid", and for
	// an incomplete cell the indent of the next line.
	IsComplete(code string) (status, indent string)
	// Interrupt stops the running cell, if any, as soon as it can.
	Interrupt()
	// Close releases the session (restores captured file descriptors).
	Close() error
}

// Discard is an Output that drops everything and has no standard input.
type Discard struct{}

func (Discard) Stream(string, string)        {}
func (Discard) Display(Bundle, string, bool) {}
func (Discard) Input(string, bool) (string, error) {
	return "", fmt.Errorf("eval: no standard input")
}

// Recorder is an Output that keeps everything in order, for `veclab run`
// and tests; it is safe for concurrent use (read Items after Eval
// returns). Displays with an id that is updated are replaced in place;
// removed displays (a Recorder is a [Remover]) are dropped, and stream
// text they separated is joined.
type Recorder struct {
	mu    sync.Mutex
	Items []Item
	// Stdin, when not nil, answers Input requests in order.
	Stdin []string
}

// Item is one recorded output: a stream chunk or a display.
type Item struct {
	Stream string // "stdout"/"stderr" for stream text, "" for a display
	Text   string
	Data   Bundle
	ID     string
}

func (r *Recorder) Stream(name, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.Items); n > 0 && r.Items[n-1].Stream == name {
		r.Items[n-1].Text += text
		return
	}
	r.Items = append(r.Items, Item{Stream: name, Text: text})
}

func (r *Recorder) Display(data Bundle, id string, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if update && id != "" {
		for i := range r.Items {
			if r.Items[i].ID == id {
				r.Items[i].Data = data
				return
			}
		}
		return
	}
	r.Items = append(r.Items, Item{Data: data, ID: id})
}

func (r *Recorder) Input(prompt string, password bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.Stdin) == 0 {
		return "", fmt.Errorf("eval: no more standard input")
	}
	s := r.Stdin[0]
	r.Stdin = r.Stdin[1:]
	return s, nil
}

// RemoveDisplays drops the displays with these ids and joins the stream
// chunks of one name that become neighbours.
func (r *Recorder) RemoveDisplays(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	drop := make(map[string]bool, len(ids))
	for _, id := range ids {
		drop[id] = true
	}
	kept := r.Items[:0]
	for _, it := range r.Items {
		switch n := len(kept); {
		case it.Stream == "" && it.ID != "" && drop[it.ID]:
		case it.Stream != "" && n > 0 && kept[n-1].Stream == it.Stream:
			kept[n-1].Text += it.Text
		default:
			kept = append(kept, it)
		}
	}
	clear(r.Items[len(kept):])
	r.Items = kept
}

// ClearOutput drops everything recorded so far, as a front end clears
// a cell's output area (wait changes nothing for a recording).
func (r *Recorder) ClearOutput(wait bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.Items)
	r.Items = r.Items[:0]
}

// Text concatenates the recorded stream text of name.
func (r *Recorder) Text(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, it := range r.Items {
		if it.Stream == name {
			b.WriteString(it.Text)
		}
	}
	return b.String()
}
