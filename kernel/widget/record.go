package widget

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// MIMEState is the MIME type under which a notebook's metadata keeps the
// state of its widgets (metadata.widgets[MIMEState]), read by
// @jupyter-widgets/html-manager and the static exports built on it.
const MIMEState = "application/vnd.jupyter.widget-state+json"

// CaptureFunc runs f with what it outputs (streams, displays,
// display.ClearOutput) going to an output area instead of the cell, and
// returns those outputs as nbformat output objects (the "outputs" of an
// Output widget's state), and whether f cleared the area before the
// first of them.
type CaptureFunc func(f func()) (outputs []any, cleared bool)

// Recording keeps the widgets a run without a front end creates, so that
// the saved notebook carries their state (see [Record]).
type Recording struct {
	capture CaptureFunc

	mu    sync.Mutex
	order []*Widget          // in creation order, guarded by mu
	byID  map[string]*Widget // guarded by mu
}

var (
	recMu     sync.Mutex
	recording *Recording // the running recording, guarded by recMu
)

// ErrRecording is returned by Record when a recording runs already.
var ErrRecording = errors.New("widget: a recording runs already")

// Record starts recording, for a run without a front end (`veclab run`):
// until Stop, the widgets cells create are detached as usual (no comm,
// nothing is sent) but kept, they show as
// application/vnd.jupyter.widget-view+json beside their text, and an
// Output captures what runs inside it (Output.Capture, Interact) through
// capture into its "outputs" state, as a front end's output area would.
// [Recording.State] is then what Jupyter's "save widget state" writes.
// A nil capture leaves outputs in the cell. With a front end connected
// widgets are live instead and Record changes nothing for them.
func Record(capture CaptureFunc) (*Recording, error) {
	recMu.Lock()
	defer recMu.Unlock()
	if recording != nil {
		return nil, ErrRecording
	}
	recording = &Recording{capture: capture, byID: map[string]*Widget{}}
	return recording, nil
}

// Stop ends the recording; the widgets it kept stay readable.
func (r *Recording) Stop() {
	recMu.Lock()
	if recording == r {
		recording = nil
	}
	recMu.Unlock()
}

// keep adds w to the running recording, if any, and returns it.
func keep(w *Widget) *Recording {
	recMu.Lock()
	r := recording
	recMu.Unlock()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	w.id = recordedID(len(r.order))
	r.order = append(r.order, w)
	r.byID[w.id] = w
	r.mu.Unlock()
	return r
}

// recordedID is the model id of a run's n-th widget (from 0). A
// recording has no front end to agree ids with, so they need not be
// random, and a notebook saved by two runs of the same cells then carries
// the same ids: its diff shows only what changed. The id keeps the
// 32-hex-digit UUID (version 4) form of live ones (comm.NewID), taken from
// a hash of n so that it does not look like a counter a reader might
// mistake for a live model's.
func recordedID(n int) string {
	b := sha256.Sum256([]byte("veclab recorded widget " + strconv.Itoa(n)))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x", b[:16])
}

// Len returns the number of widgets recorded.
func (r *Recording) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.order)
}

// State returns the state of the recorded widgets not closed, in the form of
// ipywidgets' packages/schema/v2/state.schema.json (the value of
// metadata.widgets[MIMEState]): version 2.0 and, by model id, each
// model's module, version, name and state; []byte values are taken out
// of the state into base64 buffers with their paths.
func (r *Recording) State() map[string]any {
	r.mu.Lock()
	ws := append([]*Widget(nil), r.order...)
	r.mu.Unlock()
	states := map[string]any{}
	for _, w := range ws {
		w.mu.Lock()
		if w.closed { // closed models leave a front end's state too
			w.mu.Unlock()
			continue
		}
		data, paths, bufs := w.fullStateLocked()
		entry := map[string]any{
			"model_name": w.state["_model_name"], "model_module": w.state["_model_module"],
			"model_module_version": w.state["_model_module_version"], "state": data,
		}
		w.mu.Unlock()
		if len(bufs) > 0 {
			list := make([]any, len(bufs))
			for i, b := range bufs {
				list[i] = map[string]any{"path": paths[i], "encoding": "base64", "data": base64.StdEncoding.EncodeToString(b)}
			}
			entry["buffers"] = list
		}
		states[w.id] = entry
	}
	return map[string]any{"version_major": 2, "version_minor": 0, "state": states}
}

// Text returns the plain-text form of the recorded widget id for viewers
// without widgets: a control's description and value, a box's children
// one per line, an Output's text (its streams and the text/plain of its
// displays). ok is false for an id the recording does not hold.
func (r *Recording) Text(id string) (text string, ok bool) {
	r.mu.Lock()
	w := r.byID[id]
	r.mu.Unlock()
	if w == nil {
		return "", false
	}
	return strings.TrimRight(r.text(w, 0), "\n"), true
}

func (r *Recording) text(w *Widget, depth int) string {
	if depth > 16 { // a box that holds itself
		return ""
	}
	switch w.ModelName() {
	case "OutputModel":
		outs, _ := w.Get("outputs").([]any)
		return outputsText(outs)
	case "HBoxModel", "VBoxModel", "BoxModel", "GridBoxModel", "TabModel", "AccordionModel", "StackModel":
		kids, _ := w.Get("children").([]any)
		var b strings.Builder
		for _, k := range kids {
			ref, _ := k.(string)
			r.mu.Lock()
			c := r.byID[strings.TrimPrefix(ref, refPrefix)]
			r.mu.Unlock()
			if c == nil {
				continue
			}
			if t := r.text(c, depth+1); t != "" {
				b.WriteString(strings.TrimRight(t, "\n"))
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	return w.String()
}

// outputsText is the text a plain viewer would show of nbformat outputs.
func outputsText(outs []any) string {
	var b strings.Builder
	for _, o := range outs {
		m, _ := o.(map[string]any)
		switch m["output_type"] {
		case "stream":
			b.WriteString(multiline(m["text"]))
		case "display_data", "execute_result":
			data, _ := m["data"].(map[string]any)
			if t := multiline(data["text/plain"]); t != "" {
				b.WriteString(strings.TrimRight(t, "\n"))
				b.WriteByte('\n')
			}
		case "error":
			fmt.Fprintf(&b, "%v: %v\n", m["ename"], m["evalue"])
		}
	}
	return b.String()
}

// multiline joins an nbformat multi-line string (a string or a list).
func multiline(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, l := range x {
			s, _ := l.(string)
			b.WriteString(s)
		}
		return b.String()
	}
	return ""
}

// recorded reports whether w is kept by a recording (and so shows as a
// view without a front end).
func (w *Widget) recorded() bool { return w.rec != nil }

// capturing reports whether o captures what runs inside it: a front end
// shows it, or a recording with a capture function keeps it.
func (o *Output) capturing() bool {
	return o.Attached() || (o.rec != nil && o.rec.capture != nil)
}

// captureRecorded runs f into the recorded Output o: its outputs replace
// the area's when f cleared it first, else they are appended.
func (o *Output) captureRecorded(f func()) {
	outs, cleared := o.rec.capture(f)
	if !cleared {
		prev, _ := o.Get("outputs").([]any)
		outs = append(append([]any{}, prev...), outs...)
	}
	if outs == nil {
		outs = []any{}
	}
	o.Set("outputs", outs)
}

// ids lists the recording's model ids in creation order.
func (r *Recording) ids() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, len(r.order))
	for i, w := range r.order {
		ids[i] = w.id
	}
	return ids
}
