package widget

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/veclab/veclab/kernel/comm"
)

// Protocol constants (ipywidgets packages/schema/messages.md).
const (
	// ProtocolVersion is the widget messaging protocol spoken: the
	// metadata version of every comm_open.
	ProtocolVersion = "2.1.0"
	// Target is the comm target of widget models; ControlTarget the one
	// that answers request_states.
	Target        = "jupyter.widget"
	ControlTarget = "jupyter.widget.control"
	// MIMEView is the MIME type of a widget's display.
	MIMEView = "application/vnd.jupyter.widget-view+json"

	baseModule     = "@jupyter-widgets/base"
	controlsModule = "@jupyter-widgets/controls"
	outputModule   = "@jupyter-widgets/output"
	baseVersion    = "2.0.0"
	controlsVer    = "2.0.0"
	outputVersion  = "1.0.0"
	refPrefix      = "IPY_MODEL_"
)

// Model is anything that is a widget: every type of this package (they
// embed *Widget).
type Model interface {
	Base() *Widget
}

// Widget is one widget model: its state and the comm that syncs it.
type Widget struct {
	mu     sync.Mutex
	id     string
	comm   *comm.Comm             // nil: detached (no front end)
	state  map[string]any         // guarded by mu
	obs    map[string][]func()    // observers by key (""), guarded by mu
	custom []func(map[string]any) // custom message handlers, guarded by mu
	lock   map[string]any         // values being applied from the front end, guarded by mu
	closed bool                   // guarded by mu
	text   func(w *Widget) string // text/plain form (nil: String's default), set at creation
	rec    *Recording             // the recording that keeps a detached widget (nil: none), set at creation
}

var (
	regMu sync.Mutex
	live  = map[string]*Widget{} // widgets with an open comm, by model id
)

func init() {
	comm.Default.Register(Target, openFromFrontEnd)
	comm.Default.Register(ControlTarget, openControl)
}

// New creates a widget with this state (which must hold the six
// _model_*/_view_* keys), opening its comm when a front end is connected.
// Values are JSON values; []byte anywhere travels as a binary buffer; a
// Model is stored as its reference ("IPY_MODEL_<id>").
func New(state map[string]any) (*Widget, error) {
	for _, k := range []string{"_model_module", "_model_module_version", "_model_name", "_view_module", "_view_module_version", "_view_name"} {
		if _, ok := state[k]; !ok {
			return nil, fmt.Errorf("widget: state has no %s", k)
		}
	}
	w := &Widget{state: map[string]any{}, obs: map[string][]func(){}}
	for k, v := range state {
		w.state[k] = normalize(v)
	}
	w.id = comm.NewID()
	if !comm.Default.Connected() {
		w.rec = keep(w)
		return w, nil
	}
	data, paths, bufs := w.fullStateLocked()
	c, err := comm.Default.Open(Target, comm.Msg{
		Data:     map[string]any{"state": data, "buffer_paths": paths},
		Metadata: map[string]any{"version": ProtocolVersion},
		Buffers:  bufs,
	})
	if err != nil {
		return nil, fmt.Errorf("widget: %w", err)
	}
	w.id = c.ID() // the model id is the comm id
	w.attach(c)
	return w, nil
}

// must is New for the constructors of this package, whose states are
// always complete: an error can only be the comm's, and a widget that
// cannot reach the front end is still usable detached.
func must(state map[string]any) *Widget {
	w, err := New(state)
	if err != nil {
		w = &Widget{id: comm.NewID(), state: map[string]any{}, obs: map[string][]func(){}}
		for k, v := range state {
			w.state[k] = normalize(v)
		}
	}
	return w
}

func (w *Widget) attach(c *comm.Comm) {
	w.comm = c
	c.OnMsg(w.handle)
	c.OnClose(func(comm.Msg) {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		regMu.Lock()
		delete(live, w.id)
		regMu.Unlock()
	})
	regMu.Lock()
	live[w.id] = w
	regMu.Unlock()
}

// Base returns w (Model).
func (w *Widget) Base() *Widget { return w }

// ID returns the model id (the comm id).
func (w *Widget) ID() string { return w.id }

// Ref returns the reference other models use for w: "IPY_MODEL_<id>".
func (w *Widget) Ref() string { return refPrefix + w.id }

// Attached reports whether a front end syncs the widget.
func (w *Widget) Attached() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.comm != nil && !w.closed
}

// ModelName returns the state's _model_name.
func (w *Widget) ModelName() string {
	s, _ := w.Get("_model_name").(string)
	return s
}

// Get returns the state value of key (nil when absent). Numbers set by the
// front end are float64, as JSON decodes them.
func (w *Widget) Get(key string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state[key]
}

// Has reports whether the state has key.
func (w *Widget) Has(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.state[key]
	return ok
}

// Keys lists the state's keys, sorted.
func (w *Widget) Keys() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ks := make([]string, 0, len(w.state))
	for k := range w.state {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Set changes one state value and sends it to the front end (an update
// message), then runs the key's observers. Setting the value it has is a
// no-op.
func (w *Widget) Set(key string, v any) error {
	return w.SetState(map[string]any{key: v})
}

// SetState changes several values in one update message, then runs the
// observers of the keys that changed.
func (w *Widget) SetState(st map[string]any) error {
	if len(st) == 0 {
		return nil
	}
	w.mu.Lock()
	changed := map[string]any{} // to send
	var keys []string           // to observe
	for k, v := range st {
		if strings.HasPrefix(k, "_model_") || strings.HasPrefix(k, "_view_") {
			w.mu.Unlock()
			return fmt.Errorf("widget: %s is set at creation and never changed", k)
		}
		v = normalize(v)
		if old, ok := w.state[k]; ok && reflect.DeepEqual(old, v) {
			continue
		}
		w.state[k] = v
		keys = append(keys, k)
		if lv, locked := w.lock[k]; locked && reflect.DeepEqual(lv, v) {
			continue // the front end sent this very value: no need to send it back
		}
		changed[k] = v
	}
	var err error
	if len(changed) > 0 && w.comm != nil && !w.closed {
		data, paths, bufs := splitBuffers(changed)
		err = w.comm.Send(comm.Msg{Data: map[string]any{"method": "update", "state": data, "buffer_paths": paths}, Buffers: bufs})
	}
	sort.Strings(keys)
	fs := w.observersLocked(keys)
	w.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return err
}

// Observe runs f after key changes (from the front end or from Set); key
// "" observes every key.
func (w *Widget) Observe(key string, f func()) {
	if f == nil {
		return
	}
	w.mu.Lock()
	w.obs[key] = append(w.obs[key], f)
	w.mu.Unlock()
}

// OnCustom runs f with the content of each custom message the front end
// sends (method "custom").
func (w *Widget) OnCustom(f func(content map[string]any)) {
	if f == nil {
		return
	}
	w.mu.Lock()
	w.custom = append(w.custom, f)
	w.mu.Unlock()
}

// Send sends a custom message (method "custom") with content and buffers.
func (w *Widget) Send(content map[string]any, buffers [][]byte) error {
	w.mu.Lock()
	c, closed := w.comm, w.closed
	w.mu.Unlock()
	if c == nil || closed {
		return ErrDetached
	}
	return c.Send(comm.Msg{Data: map[string]any{"method": "custom", "content": content}, Buffers: buffers})
}

// ErrDetached is returned by what needs a front end when the widget has
// none.
var ErrDetached = errors.New("widget: no front end (the widget is detached)")

// Close closes the widget's comm: the front end drops the model and its
// views.
func (w *Widget) Close() error {
	w.mu.Lock()
	c, was := w.comm, w.closed
	w.closed = true
	w.mu.Unlock()
	regMu.Lock()
	delete(live, w.id)
	regMu.Unlock()
	if c == nil || was {
		return nil
	}
	return c.Close(nil)
}

// MIMEBundle is the widget's display (kernel/display calls it): the view
// reference, and a text/plain fallback for viewers without widgets. A
// detached widget has only the text, unless a recording keeps it ([Record]:
// its state will be saved with the notebook, where a static export draws
// the view).
func (w *Widget) MIMEBundle() map[string]any {
	b := map[string]any{"text/plain": w.String()}
	if w.Attached() || w.recorded() {
		b[MIMEView] = map[string]any{"version_major": 2, "version_minor": 0, "model_id": w.id}
	}
	return b
}

// String is the text fallback: the model name and its value or
// description.
func (w *Widget) String() string {
	if w.text != nil {
		return w.text(w)
	}
	name := strings.TrimSuffix(w.ModelName(), "Model")
	var parts []string
	if d, _ := w.Get("description").(string); d != "" {
		parts = append(parts, "description="+strconv.Quote(d))
	}
	if w.Has("value") {
		parts = append(parts, fmt.Sprintf("value=%v", textValue(w.Get("value"))))
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

func textValue(v any) any {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []byte:
		return fmt.Sprintf("<%d bytes>", len(x))
	}
	return v
}

// handle is the comm's OnMsg: the widget protocol's methods.
func (w *Widget) handle(m comm.Msg) {
	method, _ := m.Data["method"].(string)
	switch method {
	case "update":
		st, _ := m.Data["state"].(map[string]any)
		if err := putBuffers(st, m.Data["buffer_paths"], m.Buffers); err != nil {
			panic(err)
		}
		w.applyFromFrontEnd(st)
	case "request_state":
		w.mu.Lock()
		data, paths, bufs := w.fullStateLocked()
		c := w.comm
		w.mu.Unlock()
		if c != nil {
			c.Send(comm.Msg{Data: map[string]any{"method": "update", "state": data, "buffer_paths": paths}, Buffers: bufs})
		}
	case "custom":
		content, _ := m.Data["content"].(map[string]any)
		w.mu.Lock()
		fs := append([]func(map[string]any){}, w.custom...)
		w.mu.Unlock()
		for _, f := range fs {
			f(content)
		}
	default:
		panic(fmt.Errorf("widget: %s: unknown method %q", w.ModelName(), method))
	}
}

// applyFromFrontEnd echoes an update (echo_update), applies it, and runs
// the observers of the keys that changed; while they run, values they set
// back to what the front end sent are not sent again.
func (w *Widget) applyFromFrontEnd(st map[string]any) {
	if len(st) == 0 {
		return
	}
	w.mu.Lock()
	if w.comm != nil && !w.closed {
		// Protocol 2.1: echo the keys the model has, as received, before
		// anything an observer sends (ipywidgets' Widget.set_state).
		echo := map[string]any{}
		for k, v := range st {
			if _, known := w.state[k]; known {
				echo[k] = v
			}
		}
		if len(echo) > 0 {
			data, paths, bufs := splitBuffers(echo)
			w.comm.Send(comm.Msg{Data: map[string]any{"method": "echo_update", "state": data, "buffer_paths": paths}, Buffers: bufs})
		}
	}
	var keys []string
	for k, v := range st {
		if strings.HasPrefix(k, "_model_") || strings.HasPrefix(k, "_view_") {
			continue
		}
		if old, ok := w.state[k]; ok && reflect.DeepEqual(old, v) {
			continue
		}
		w.state[k] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	prev := w.lock
	w.lock = st
	fs := w.observersLocked(keys)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.lock = prev
		w.mu.Unlock()
	}()
	for _, f := range fs {
		f()
	}
}

func (w *Widget) observersLocked(keys []string) []func() {
	if len(keys) == 0 {
		return nil
	}
	var fs []func()
	for _, k := range keys {
		fs = append(fs, w.obs[k]...)
	}
	return append(fs, w.obs[""]...)
}

func (w *Widget) fullStateLocked() (map[string]any, [][]any, [][]byte) {
	return splitBuffers(w.state)
}

func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// normalize turns the values a cell sets into JSON-ready ones: a Model
// becomes its reference, a slice of Models a list of references.
func normalize(v any) any {
	switch x := v.(type) {
	case Model:
		return x.Base().Ref()
	case []Model:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m.Base().Ref()
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	}
	return v
}

// splitBuffers returns a copy of state with every []byte replaced by nil,
// the path of each (keys and list indexes) and the buffers, in order.
func splitBuffers(state map[string]any) (map[string]any, [][]any, [][]byte) {
	paths := [][]any{}
	var bufs [][]byte
	var walk func(v any, path []any) any
	walk = func(v any, path []any) any {
		switch x := v.(type) {
		case []byte:
			paths = append(paths, append([]any{}, path...))
			bufs = append(bufs, x)
			return nil
		case map[string]any:
			out := make(map[string]any, len(x))
			for _, k := range keysOf(x) {
				out[k] = walk(x[k], append(path, k))
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e, append(path, i))
			}
			return out
		}
		return v
	}
	out := walk(state, nil).(map[string]any)
	return out, paths, bufs
}

// putBuffers places buffers into state at their buffer_paths.
func putBuffers(state map[string]any, paths any, bufs [][]byte) error {
	list, _ := paths.([]any)
	if len(list) != len(bufs) {
		return fmt.Errorf("widget: %d buffer_paths for %d buffers", len(list), len(bufs))
	}
	for i, p := range list {
		path, _ := p.([]any)
		if len(path) == 0 {
			return fmt.Errorf("widget: buffer path %d is empty", i)
		}
		var cur any = state
		for j, step := range path {
			last := j == len(path)-1
			switch c := cur.(type) {
			case map[string]any:
				k, ok := step.(string)
				if !ok {
					return fmt.Errorf("widget: buffer path %v: %v is not a key", path, step)
				}
				if last {
					c[k] = bufs[i]
				} else {
					cur = c[k]
				}
			case []any:
				f, ok := step.(float64)
				if !ok || f < 0 || int(f) >= len(c) {
					return fmt.Errorf("widget: buffer path %v: bad index %v", path, step)
				}
				if last {
					c[int(f)] = bufs[i]
				} else {
					cur = c[int(f)]
				}
			default:
				return fmt.Errorf("widget: buffer path %v does not lead into the state", path)
			}
		}
	}
	return nil
}

// openFromFrontEnd accepts a model a front end created (jupyter.widget).
func openFromFrontEnd(c *comm.Comm, open comm.Msg) error {
	st, _ := open.Data["state"].(map[string]any)
	if st == nil {
		return errors.New("widget: comm_open without a state")
	}
	if err := putBuffers(st, open.Data["buffer_paths"], open.Buffers); err != nil {
		return err
	}
	w := &Widget{id: c.ID(), state: st, obs: map[string][]func(){}}
	w.attach(c)
	return nil
}

// openControl serves jupyter.widget.control: request_states gets every
// live widget's state in one update_states message.
func openControl(c *comm.Comm, _ comm.Msg) error {
	c.OnMsg(func(m comm.Msg) {
		if method, _ := m.Data["method"].(string); method != "request_states" {
			panic(fmt.Errorf("widget: control comm: unknown method %q", method))
		}
		regMu.Lock()
		ws := make([]*Widget, 0, len(live))
		for _, w := range live {
			ws = append(ws, w)
		}
		regMu.Unlock()
		states := map[string]any{}
		for _, w := range ws {
			w.mu.Lock()
			// The spec's state entry: the model's module, name and state.
			st := map[string]any{}
			for k, v := range w.state {
				st[k] = v
			}
			states[w.id] = map[string]any{
				"model_name": w.state["_model_name"], "model_module": w.state["_model_module"],
				"model_module_version": w.state["_model_module_version"], "state": st,
			}
			w.mu.Unlock()
		}
		data, paths, bufs := splitBuffers(states)
		c.Send(comm.Msg{Data: map[string]any{"method": "update_states", "states": data, "buffer_paths": paths}, Buffers: bufs})
	})
	return nil
}

// Live returns the number of widgets with an open comm.
func Live() int {
	regMu.Lock()
	defer regMu.Unlock()
	return len(live)
}
