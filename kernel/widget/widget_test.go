package widget

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/display"
)

// sent is one message the recording transport saw.
type sent struct {
	typ      string
	content  map[string]any
	metadata map[string]any
	buffers  [][]byte
}

// recorder stands in for the kernel's IOPub (the kernel's own transport is
// driven end to end by the kernel package's TestWidgets and jupyter_client
// test); it records what the widgets send.
type recorder struct {
	mu   sync.Mutex
	msgs []sent
}

func (r *recorder) Send(typ string, content, md map[string]any, bufs [][]byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Round-trip through JSON, as the wire does.
	b, err := json.Marshal(content)
	if err != nil {
		return err
	}
	var c map[string]any
	json.Unmarshal(b, &c)
	r.msgs = append(r.msgs, sent{typ, c, md, bufs})
	return nil
}
func (r *recorder) ParentID() string { return "parent-msg" }
func (r *recorder) Preempt()         {}

func (r *recorder) take() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.msgs
	r.msgs = nil
	return m
}

// connect installs a recorder as comm.Default's transport for the test.
func connect(t *testing.T) *recorder {
	r := &recorder{}
	old := comm.Default.SetTransport(r)
	t.Cleanup(func() { comm.Default.SetTransport(old) })
	return r
}

func methods(ms []sent) string {
	var s []string
	for _, m := range ms {
		d, _ := m.content["data"].(map[string]any)
		meth, _ := d["method"].(string)
		s = append(s, m.typ+":"+meth)
	}
	return strings.Join(s, " ")
}

func TestDetached(t *testing.T) {
	s := NewIntSlider("ef", 500, 10, 400)
	if s.Attached() || s.Value() != 400 {
		t.Errorf("attached %v value %d", s.Attached(), s.Value())
	}
	if err := s.SetValue(-3); err != nil || s.Value() != 10 {
		t.Errorf("SetValue clamps: %v %d", err, s.Value())
	}
	b := display.Render(s)
	if _, ok := b[MIMEView]; ok || b["text/plain"] != `IntSlider(description="ef", value=10)` {
		t.Errorf("detached bundle %v", b)
	}
	ran := 0
	Interact(func() { ran++ }, s)
	if ran != 1 {
		t.Errorf("Interact ran fn %d times detached, want 1", ran)
	}
	if err := s.Send(nil, nil); err != ErrDetached {
		t.Errorf("Send detached: %v", err)
	}
}

func TestModels(t *testing.T) {
	r := connect(t)
	for _, tc := range []struct {
		name      string
		make      func() Model
		model     string
		module    string
		style     string // the style model created before it, "" none
		valueKey  string
		wantValue any
	}{
		{"IntSlider", func() Model { return NewIntSlider("ef", 64, 10, 400) }, "IntSliderModel", controlsModule, "SliderStyleModel", "value", 64.0},
		{"FloatSlider", func() Model { return NewFloatSlider("x", 0.5, 0, 1, 0.1) }, "FloatSliderModel", controlsModule, "SliderStyleModel", "value", 0.5},
		{"FloatLogSlider", func() Model { return NewFloatLogSlider("lr", 0.01, -4, 0) }, "FloatLogSliderModel", controlsModule, "SliderStyleModel", "value", 0.01},
		{"Dropdown", func() Model { return NewDropdown("M", []string{"8", "16"}, "16") }, "DropdownModel", controlsModule, "DescriptionStyleModel", "index", 1.0},
		{"ToggleButtons", func() Model { return NewToggleButtons("bits", []string{"1", "4", "8"}, "4") }, "ToggleButtonsModel", controlsModule, "ToggleButtonsStyleModel", "index", 1.0},
		{"SelectionSlider", func() Model { return NewSelectionSlider("s", []string{"0.1 %", "4.4 %", "50 %"}, "4.4 %") }, "SelectionSliderModel", controlsModule, "SliderStyleModel", "index", 1.0},
		{"Checkbox", func() Model { return NewCheckbox("centre", true) }, "CheckboxModel", controlsModule, "CheckboxStyleModel", "value", true},
		{"Button", func() Model { return NewButton("run") }, "ButtonModel", controlsModule, "ButtonStyleModel", "description", "run"},
		{"Text", func() Model { return NewText("filter", "a") }, "TextModel", controlsModule, "TextStyleModel", "value", "a"},
		{"Label", func() Model { return NewLabel("hi") }, "LabelModel", controlsModule, "LabelStyleModel", "value", "hi"},
		{"HTML", func() Model { return NewHTML("<b>hi</b>") }, "HTMLModel", controlsModule, "HTMLStyleModel", "value", "<b>hi</b>"},
		{"Output", func() Model { return NewOutput() }, "OutputModel", outputModule, "", "msg_id", ""},
		{"HBox", func() Model { return HBox() }, "HBoxModel", controlsModule, "", "box_style", ""},
		{"VBox", func() Model { return VBox() }, "VBoxModel", controlsModule, "", "box_style", ""},
		{"Tab", func() Model { return NewTab([]string{"a"}, NewLabel("x")) }, "TabModel", controlsModule, "", "selected_index", 0.0},
		{"Play", func() Model { return NewPlay(0, 0, 10, 1, 200) }, "PlayModel", controlsModule, "DescriptionStyleModel", "interval", 200.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.take()
			w := tc.make().Base()
			ms := r.take()
			last := ms[len(ms)-1]
			data := last.content["data"].(map[string]any)
			st := data["state"].(map[string]any)
			if last.typ != "comm_open" || last.content["target_name"] != Target || last.metadata["version"] != ProtocolVersion {
				t.Fatalf("last message %s %v %v", last.typ, last.content["target_name"], last.metadata)
			}
			if last.content["comm_id"] != w.ID() || st["_model_name"] != tc.model || st["_model_module"] != tc.module {
				t.Errorf("state %v", st)
			}
			if st[tc.valueKey] != tc.wantValue {
				t.Errorf("%s = %v (%T), want %v", tc.valueKey, st[tc.valueKey], st[tc.valueKey], tc.wantValue)
			}
			// The layout (and style) were opened first and are referenced.
			opened := map[string]string{}
			for _, m := range ms[:len(ms)-1] {
				s := m.content["data"].(map[string]any)["state"].(map[string]any)
				opened[refPrefix+m.content["comm_id"].(string)] = s["_model_name"].(string)
			}
			if lay, _ := st["layout"].(string); opened[lay] != "LayoutModel" {
				t.Errorf("layout %q not opened before (%v)", lay, opened)
			}
			if sty, _ := st["style"].(string); tc.style != opened[sty] {
				t.Errorf("style %q is %q, want %q", sty, opened[sty], tc.style)
			}
			b := display.Render(w)
			view, _ := b[MIMEView].(map[string]any)
			if view["model_id"] != w.ID() || view["version_major"] != 2 || b["text/plain"] == "" {
				t.Errorf("bundle %v", b)
			}
		})
	}
}

// TestSync: an update from the front end is echoed first, applied, and
// its observers run; a value set back to what was sent is not sent again.
func TestSync(t *testing.T) {
	r := connect(t)
	s := NewIntSlider("ef", 64, 10, 400)
	l := NewLabel("")
	s.OnChange(func() {
		s.SetValue(s.Value()) // the front end's value: no update back
		l.SetValue(fmt.Sprintf("ef=%d", s.Value()))
	})
	r.take()
	if err := comm.Default.HandleMsg(s.ID(), comm.Msg{Data: map[string]any{"method": "update", "state": map[string]any{"value": 128.0}, "buffer_paths": []any{}}}); err != nil {
		t.Fatal(err)
	}
	ms := r.take()
	if got := methods(ms); got != "comm_msg:echo_update comm_msg:update" {
		t.Fatalf("messages %s", got)
	}
	if ms[0].content["comm_id"] != s.ID() || ms[1].content["comm_id"] != l.ID() {
		t.Errorf("echo to %v, update to %v", ms[0].content["comm_id"], ms[1].content["comm_id"])
	}
	if s.Value() != 128 || l.Value() != "ef=128" {
		t.Errorf("value %d label %q", s.Value(), l.Value())
	}
	// request_state: the whole state.
	comm.Default.HandleMsg(s.ID(), comm.Msg{Data: map[string]any{"method": "request_state"}})
	ms = r.take()
	if len(ms) != 1 || ms[0].content["data"].(map[string]any)["state"].(map[string]any)["max"] != 400.0 {
		t.Errorf("request_state answered %v", ms)
	}
	// Bad input is an error, not a panic out of HandleMsg.
	for _, bad := range []map[string]any{
		{"method": "nonsense"},
		{"method": "update", "state": map[string]any{"v": nil}, "buffer_paths": []any{[]any{"v"}}},
	} {
		if err := comm.Default.HandleMsg(s.ID(), comm.Msg{Data: bad}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestBuffers(t *testing.T) {
	r := connect(t)
	w, err := New(map[string]any{"_model_module": "m", "_model_module_version": "1", "_model_name": "VecModel",
		"_view_module": "m", "_view_module_version": "1", "_view_name": "VecView",
		"data": []byte{1, 2, 3}, "nested": map[string]any{"list": []any{"x", []byte{9}}}})
	if err != nil {
		t.Fatal(err)
	}
	ms := r.take()
	d := ms[0].content["data"].(map[string]any)
	paths, _ := json.Marshal(d["buffer_paths"])
	if string(paths) != `[["data"],["nested","list",1]]` || len(ms[0].buffers) != 2 || ms[0].buffers[1][0] != 9 {
		t.Errorf("buffer_paths %s, buffers %v", paths, ms[0].buffers)
	}
	st := d["state"].(map[string]any)
	if st["data"] != nil {
		t.Errorf("a buffer travelled in the JSON: %v", st["data"])
	}
	// From the front end.
	err = comm.Default.HandleMsg(w.ID(), comm.Msg{Data: map[string]any{"method": "update",
		"state": map[string]any{"data": nil}, "buffer_paths": []any{[]any{"data"}}}, Buffers: [][]byte{{7, 7}}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := w.Get("data").([]byte); len(b) != 2 || b[0] != 7 {
		t.Errorf("data after update %v", w.Get("data"))
	}
	echo := r.take()[0]
	if len(echo.buffers) != 1 || echo.content["data"].(map[string]any)["method"] != "echo_update" {
		t.Errorf("echo %v", echo)
	}
}

func TestControlAndClick(t *testing.T) {
	r := connect(t)
	b := NewButton("go")
	clicks := 0
	b.OnClick(func() { clicks++ })
	comm.Default.HandleMsg(b.ID(), comm.Msg{Data: map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}})
	if clicks != 1 {
		t.Errorf("clicks %d", clicks)
	}
	if err := comm.Default.HandleOpen("ctl-1", ControlTarget, comm.Msg{}); err != nil {
		t.Fatal(err)
	}
	r.take()
	comm.Default.HandleMsg("ctl-1", comm.Msg{Data: map[string]any{"method": "request_states"}})
	ms := r.take()
	states, _ := ms[0].content["data"].(map[string]any)["states"].(map[string]any)
	entry, _ := states[b.ID()].(map[string]any)
	if ms[0].content["data"].(map[string]any)["method"] != "update_states" || entry["model_name"] != "ButtonModel" ||
		entry["state"].(map[string]any)["description"] != "go" {
		t.Errorf("update_states entry %v", entry)
	}
	// A model the front end creates.
	if err := comm.Default.HandleOpen("fe-1", Target, comm.Msg{Data: map[string]any{"state": map[string]any{"_model_name": "LayoutModel"}, "buffer_paths": []any{}}}); err != nil {
		t.Errorf("front-end model: %v", err)
	}
	if err := comm.Default.HandleOpen("fe-2", Target, comm.Msg{Data: map[string]any{}}); err == nil {
		t.Errorf("a model without state was accepted")
	}
	// Close.
	n := Live()
	b.Close()
	if Live() != n-1 {
		t.Errorf("Live %d after close, was %d", Live(), n)
	}
}

func TestSelectionAndLink(t *testing.T) {
	connect(t)
	d := NewDropdown("M", []string{"8", "16", "32"}, "nope")
	if d.Value() != "8" || d.Index() != 0 {
		t.Errorf("default selection %q %d", d.Value(), d.Index())
	}
	if err := d.SetValue("32"); err != nil || d.Index() != 2 {
		t.Errorf("SetValue: %v %d", err, d.Index())
	}
	if err := d.SetValue("64"); err == nil {
		t.Errorf("an unknown option was selected")
	}
	p, s := NewPlay(0, 0, 10, 1, 100), NewIntSlider("i", 0, 0, 10)
	l, err := Link(p, "value", s, "value")
	if err != nil || l.ModelName() != "LinkModel" {
		t.Fatalf("Link: %v", err)
	}
	if src, _ := l.Get("source").([]any); len(src) != 2 || src[0] != p.Ref() || src[1] != "value" {
		t.Errorf("source %v", l.Get("source"))
	}
	if _, err := Link(p, "nope", s, "value"); err == nil {
		t.Errorf("Link to a missing attribute")
	}
	if _, err := New(map[string]any{"_model_name": "X"}); err == nil {
		t.Errorf("New without module keys")
	}
	if err := s.Set("_model_name", "Y"); err == nil {
		t.Errorf("changed _model_name")
	}
}

// TestInteractRedrawsOnEachControl: a front end's change of any control
// kind Interact takes reruns fn (a selection by its index, a slider by its
// value); a control Interact does not observe would leave the view stale.
func TestInteractRedrawsOnEachControl(t *testing.T) {
	connect(t)
	for _, tc := range []struct {
		name  string
		make  func() Model
		state map[string]any
	}{
		{"IntSlider", func() Model { return NewIntSlider("ef", 10, 5, 80) }, map[string]any{"value": 20.0}},
		{"Dropdown", func() Model { return NewDropdown("bits", []string{"1", "2"}, "1") }, map[string]any{"index": 1.0}},
		{"ToggleButtons", func() Model { return NewToggleButtons("s", []string{"a", "b"}, "a") }, map[string]any{"index": 1.0}},
		{"SelectionSlider", func() Model { return NewSelectionSlider("s", []string{"0.1 %", "50 %"}, "0.1 %") }, map[string]any{"index": 1.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.make()
			ran := 0
			Interact(func() { ran++ }, c)
			before := ran
			if err := comm.Default.HandleMsg(c.Base().ID(), comm.Msg{Data: map[string]any{"method": "update", "state": tc.state, "buffer_paths": []any{}}}); err != nil {
				t.Fatal(err)
			}
			if ran != before+1 {
				t.Errorf("fn ran %d times after the change, want 1", ran-before)
			}
		})
	}
}
