//go:build js && wasm

package main

import (
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/veclab/veclab/kernel/eval"
)

// TestBridgeStdin runs the browser kernel's standard input under Node
// (with the other tests of this package, by cmd/veclab's
// TestLiteBridgeOnWasm): a cell's fmt.Scanln is answered by the page's
// onInput, once per line, with the prompt it gave; two reads of one cell
// take two lines; without onInput the cell reads end of file and its
// stderr says why; an interrupt while the cell waits for input ends the
// cell with the Interrupted error.
func TestBridgeStdin(t *testing.T) {
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
	readStdin := js.FuncOf(b.readStdin)
	defer readStdin.Release()
	capture.Set("stdinRead", readStdin)
	defer capture.Set("stdinRead", js.Null())

	// answer returns an onInput that resolves with lines in turn,
	// counting the calls.
	var asked int
	answer := func(lines ...string) js.Func {
		return js.FuncOf(func(_ js.Value, args []js.Value) any {
			if args[0].String() != "" || args[1].Bool() {
				t.Errorf("onInput(%v, %v): want no prompt (it was printed) and no password", args[0], args[1])
			}
			line := lines[asked%len(lines)]
			asked++
			return js.Global().Get("Promise").Call("resolve", line)
		})
	}
	onInput := answer("Ada Lovelace", "1815")
	defer onInput.Release()
	r := b.run(`var first, last string
var year int
fmt.Print("name: ")
n, err := fmt.Scanln(&first, &last)
fmt.Print("born: ")
m, err2 := fmt.Scanln(&year)
fmt.Sprintf("%d %v %s %s %d %v %d", n, err, first, last, m, err2, year)`, js.Undefined(), onInput.Value).(map[string]any)
	if r["error"] != nil {
		t.Fatalf("cell: %v", r["error"])
	}
	if got, want := resultText(r), "2 <nil> Ada Lovelace 1 <nil> 1815"; got != want {
		t.Errorf("two reads: %q, want %q", got, want)
	}
	if asked != 2 {
		t.Errorf("onInput called %d times, want 2", asked)
	}

	// A cell's stdin is its own: the next cell asks again.
	asked = 0
	r = b.run(`var w string
fmt.Scanln(&w)
w`, js.Undefined(), onInput.Value).(map[string]any)
	if got := resultText(r); got != "Ada" {
		t.Errorf("next cell: %q, want the first line's first word", got)
	}
	if asked != 1 {
		t.Errorf("next cell: onInput called %d times, want 1", asked)
	}

	// No onInput: end of file, and a line on stderr saying why.
	r = b.run(`var v string
_, err := fmt.Scanln(&v)
err`, js.Undefined(), js.Undefined()).(map[string]any)
	if got := resultText(r); !strings.Contains(got, "EOF") {
		t.Errorf("without onInput the read gave %q, want EOF", got)
	}
	if got := streamText(r, "stderr"); !strings.Contains(got, "veclab: standard input: this page gives the kernel no standard input") {
		t.Errorf("without onInput stderr is %q, want why there is no input", got)
	}

	// An interrupt while the cell waits for a line that never comes.
	never := js.FuncOf(func(js.Value, []js.Value) any {
		return js.Global().Get("Promise").New(js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	})
	defer never.Release()
	go func() {
		time.Sleep(300 * time.Millisecond)
		b.interrupt()
	}()
	start := time.Now()
	r = b.run(`import "time"
var z string
fmt.Scanln(&z)
for { time.Sleep(time.Millisecond) }`, js.Undefined(), never.Value).(map[string]any)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["name"] != "Interrupted" {
		t.Errorf("interrupted while waiting for input: error %v, want Interrupted (outputs %v)", r["error"], r["outputs"])
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the interrupted cell took %v", d)
	}
	if got := streamText(r, "stderr"); !strings.Contains(got, "interrupted while waiting for input") {
		t.Errorf("interrupted: stderr %q, want it to say the input was interrupted", got)
	}
}

func resultText(r map[string]any) string {
	for _, it := range r["outputs"].([]any) {
		if m := it.(map[string]any); m["type"] == "result" {
			s, _ := m["data"].(map[string]any)["text/plain"].(string)
			return s
		}
	}
	return ""
}

func streamText(r map[string]any, name string) string {
	var sb strings.Builder
	for _, it := range r["outputs"].([]any) {
		if m := it.(map[string]any); m["type"] == "stream" && m["name"] == name {
			sb.WriteString(m["text"].(string))
		}
	}
	return sb.String()
}
