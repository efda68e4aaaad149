//go:build js && wasm

package main

import (
	"fmt"
	"strings"
	"sync"
	"syscall/js"
	"testing"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
)

// TestBridgeComms runs the browser kernel's comm side under Node
// (cmd/veclab's TestLiteBridgeOnWasm runs it with wasmsimd's node_exec.js):
// a cell's widget opens its comms through the page's handler, a front
// end's update is delivered as a cell runs (echo_update to the page, the
// observer's output to the cell's onOutput), a panicking callback is an
// error item, an unknown target gets its comm_close, commInfo lists the
// open comms, an inspection cell has a page, and display.ClearOutput is a
// clear item. (Under Node, Go's writes to stdout go to Node's fs, not the
// browser's fs.writeSync that the capture wraps: streams are not checked.)
func TestBridgeComms(t *testing.T) {
	capture, err := installCapture()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := eval.New(eval.Options{Capture: eval.CaptureNone})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	b := &bridge{sess: sess, capture: capture}
	old := comm.Default.SetTransport(commTransport{b})
	defer comm.Default.SetTransport(old)

	var mu sync.Mutex
	var sent []js.Value
	h := js.FuncOf(func(_ js.Value, args []js.Value) any {
		mu.Lock()
		sent = append(sent, args[0])
		mu.Unlock()
		return nil
	})
	defer h.Release()
	b.setCommHandler(js.Undefined(), []js.Value{h.Value})
	take := func() []js.Value {
		mu.Lock()
		defer mu.Unlock()
		s := sent
		sent = nil
		return s
	}
	method := func(m js.Value) string {
		d := m.Get("content").Get("data")
		if d.Type() != js.TypeObject || d.Get("method").Type() != js.TypeString {
			return m.Get("msgType").String()
		}
		return m.Get("msgType").String() + ":" + d.Get("method").String()
	}

	res := b.run(`import "github.com/veclab/veclab/kernel/widget"
import "github.com/veclab/veclab/kernel/display"
s := widget.NewIntSlider("k", 3, 0, 10)
s.OnChange(func() { fmt.Println("k is", s.Value()) })
bad := widget.NewButton("bad")
bad.OnClick(func() { panic("oops") })
s`, js.Undefined(), js.Undefined()).(map[string]any)
	if res["error"] != nil {
		t.Fatalf("cell: %v", res["error"])
	}
	opens := take()
	var slider, button string
	for _, m := range opens {
		st := m.Get("content").Get("data").Get("state")
		switch st.Get("_model_name").String() {
		case "IntSliderModel":
			slider = m.Get("content").Get("comm_id").String()
		case "ButtonModel":
			button = m.Get("content").Get("comm_id").String()
		}
		if m.Get("msgType").String() != "comm_open" || m.Get("metadata").Get("version").String() != "2.1.0" {
			t.Errorf("sent %s with metadata %v", method(m), js.Global().Get("JSON").Call("stringify", m.Get("metadata")))
		}
	}
	if slider == "" || button == "" || len(opens) != 6 {
		t.Fatalf("%d comm_open (slider %q, button %q)", len(opens), slider, button)
	}
	outs := res["outputs"].([]any)
	last := outs[len(outs)-1].(map[string]any)
	if data := last["data"].(map[string]any); last["type"] != "result" || !strings.Contains(js.Global().Get("JSON").Call("stringify", js.ValueOf(data)).String(), slider) {
		t.Errorf("the cell's result %v", last)
	}

	got := b.deliver("comm_msg", slider, "", comm.Msg{Data: map[string]any{"method": "update", "state": map[string]any{"value": 7.0}, "buffer_paths": []any{}}}, "parent-1", js.Undefined()).(map[string]any)
	if got["error"] != nil {
		t.Errorf("update: %v", got["error"])
	}
	if ms := take(); len(ms) != 1 || method(ms[0]) != "comm_msg:echo_update" || ms[0].Get("parent").String() != "parent-1" {
		t.Errorf("update sent %d messages", len(ms))
	}
	if r := b.run(`s.Value()`, js.Undefined(), js.Undefined()).(map[string]any); !strings.Contains(itemsText(r), "7") {
		t.Errorf("the slider after the update: %v", r)
	}
	got = b.deliver("comm_msg", button, "", comm.Msg{Data: map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}}, "parent-2", js.Undefined()).(map[string]any)
	if e, _ := got["error"].(map[string]any); e == nil || e["name"] != "panic" || !strings.HasPrefix(fmt.Sprint(e["value"]), "oops (") {
		t.Errorf("a panicking callback: %v", got)
	}
	got = b.deliver("comm_open", "fe-1", "no.such.target", comm.Msg{Data: map[string]any{}}, "parent-3", js.Undefined()).(map[string]any)
	if ms := take(); len(ms) != 1 || method(ms[0]) != "comm_close" || got["log"] == nil {
		t.Errorf("unknown target: %d messages, %v", len(ms), got)
	}
	info := comm.Default.Info("jupyter.widget")
	if _, ok := info[slider]; !ok {
		t.Errorf("commInfo lacks the slider")
	}
	var kinds []string
	note := js.FuncOf(func(_ js.Value, args []js.Value) any {
		kinds = append(kinds, args[0].Get("type").String())
		return nil
	})
	defer note.Release()
	r := b.run(`display.Markdown("old"); display.ClearOutput(true); display.Markdown("new")`, note.Value, js.Undefined()).(map[string]any)
	if got := strings.Join(kinds, ","); !strings.Contains(got, "clear") || itemsText(r) != "new" {
		t.Errorf("ClearOutput: notified %s, kept %q", got, itemsText(r))
	}
	p := b.page("fmt.Println", js.Undefined()).(map[string]any)
	if p["page"] == nil {
		t.Errorf("no page for fmt.Println?: %v", p)
	}
}

func itemsText(r map[string]any) string {
	var sb strings.Builder
	for _, it := range r["outputs"].([]any) {
		m := it.(map[string]any)
		if t, ok := m["text"].(string); ok {
			sb.WriteString(t)
		}
		if d, ok := m["data"].(map[string]any); ok {
			if t, ok := d["text/plain"].(string); ok {
				sb.WriteString(t)
			}
		}
	}
	return sb.String()
}
