//go:build js && wasm

// Command wasm is veclab in the browser: the evaluation core of the Jupyter
// kernel and `veclab run` (kernel/eval, the gomacro interpreter with the
// lab and engine bound) compiled to WebAssembly, with a small JavaScript
// bridge. It is the kernel of the JupyterLite site in lite/ (run in a Web
// Worker there); `veclab serve` builds both and serves them.
//
// # The bridge
//
// main installs globalThis.veclab:
//
//	veclab.version               "veclab <revision> go1.x js/wasm"
//	veclab.packages              the non-standard packages cells can import
//	veclab.eval(code, opts?)     Promise<{outputs, error?, page?, ms}> (page: the
//	                             documentation bundle of an inspection cell, x?;
//	                             opts.parent: the request's msg_id, for comms;
//	                             opts.onInput(prompt, password): a Promise of a
//	                             line of standard input, stdin.go)
//	veclab.complete(code, pos)   Promise<{start, end, matches}>
//	veclab.inspect(code, pos)    Promise<{found, data?}>   (data: a MIME bundle)
//	veclab.isComplete(code)      Promise<{status, indent}>  ("complete", "incomplete", "invalid")
//	veclab.debug(content)        Promise<{reply, event?}>: the debug_reply content of a
//	                             debug_request's content, and the debug_event to publish
//	                             after it, each JSON text (eval.Debugger: the variables panel)
//	veclab.interrupt()           stops the running cell where it can
//	veclab.setInterruptFlag(a)   a: Int32Array on a SharedArrayBuffer; a[0] = 1 from
//	                             another thread interrupts the running cell
//	veclab.goVersion             runtime.Version()
//	veclab.startup               {mainAt, sessionAt}: performance.now() when
//	                             main began (the runtime and the packages'
//	                             init done) and when the session was made
//	veclab.capture               the stream capture (see below)
//	veclab.setCommHandler, veclab.comm, veclab.commInfo
//	                             Jupyter comms and widgets (comm.go)
//
// outputs is the cell's output, in order, each item one of
//
//	{type: "stream", name: "stdout"|"stderr", text}
//	{type: "display", data: {MIME type: data}, id?}   // id: an updatable display
//	{type: "update", data, id}  // replaces a display of an earlier cell
//	{type: "clear", wait}       // onOutput only: the items sent so far are void,
//	                            // the cell's outputs follow again (Jupyter's clear_output)
//	{type: "result", data}      // the value of the cell's last expression
//	{type: "error", name, value, traceback: [lines]}
//
// with data a MIME bundle as in Jupyter (image/png is base64 text). A
// failed cell's error is both the last output and the result's error.
// opts.onOutput, when given, is called with each item (and each update of a
// display of this cell, as {type: "update", …}) as it is produced. Positions
// of complete are UTF-16 indexes, as JavaScript strings count.
// When main has installed the bridge it calls globalThis.veclabReady(),
// if the page defined it.
//
// # Output capture
//
// Browsers have no pipes (os.Pipe fails on js/wasm), so the session runs
// with eval.CaptureNone and captures here instead: every write of the Go
// program to file descriptors 1 and 2 (fmt, os.Stdout, log, println,
// goroutines) goes through fs.writeSync of wasm_exec.js, which main wraps
// with a JavaScript function that keeps the text while a cell runs. The
// text is moved into the cell's outputs before each display and at the end
// of the cell, so streams and displays keep their order. Outside a cell the
// text goes to the console as before.
//
// # Concurrency
//
// Cells and completions run one at a time, in the order they were asked
// for, on one worker goroutine; the JavaScript calls only queue them and
// return a Promise. WebAssembly in the browser is single-threaded: while a
// cell runs compiled code (an index build) the page does not respond; a
// cell that waits (time.Sleep, channels) lets it. No panic reaches
// JavaScript: a panic in a cell becomes an error output, and one in the
// bridge rejects the Promise; a panic in a goroutine started by a cell
// ends the Go program, as it ends the kernel (wasm_exec.js then reports the
// exit).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall/js"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
)

// jobs is the queue of the worker goroutine.
var jobs = make(chan func(), 256)

func main() {
	perf := js.Global().Get("performance")
	mainAt := perf.Call("now").Float() // the runtime and every package's init have run
	keepHeapUnderCode()                // memlimit.go
	capture, err := installCapture()
	if err != nil {
		fmt.Fprintln(os.Stderr, "veclab:", err)
		os.Exit(1)
	}
	sess, err := eval.New(eval.Options{Capture: eval.CaptureNone})
	if err != nil {
		fmt.Fprintln(os.Stderr, "veclab:", err)
		os.Exit(1)
	}
	sessionAt := perf.Call("now").Float()
	b := &bridge{sess: sess, capture: capture}
	// A debug_request is answered at once, as ipykernel answers the
	// control channel while a cell runs (see bridge.debug): the session
	// is read only when the worker goroutine is between jobs (busy free),
	// else the variables of the last Snapshot are answered.
	b.dbg = eval.NewDebugger(sess, &b.busy, "/veclab-cells/")
	capture.Set("stdinRead", js.FuncOf(b.readStdin)) // stdin.go
	comm.Default.SetTransport(commTransport{b})
	go b.work()

	api := js.Global().Get("Object").New()
	// startup: performance.now() (ms) when main began, after the runtime's
	// and the packages' initialisation, and when the session was made.
	startup := js.Global().Get("Object").New()
	startup.Set("mainAt", mainAt)
	startup.Set("sessionAt", sessionAt)
	api.Set("startup", startup)
	api.Set("version", version())
	pkgs := []any{}
	for _, p := range eval.BoundPackages() {
		pkgs = append(pkgs, p)
	}
	api.Set("packages", pkgs)
	api.Set("capture", capture)
	api.Set("eval", js.FuncOf(b.eval))
	api.Set("complete", js.FuncOf(b.complete))
	api.Set("inspect", js.FuncOf(b.inspect))
	api.Set("isComplete", js.FuncOf(b.isComplete))
	api.Set("debug", js.FuncOf(b.debug))
	api.Set("goVersion", runtime.Version())
	api.Set("interrupt", js.FuncOf(func(js.Value, []js.Value) any {
		b.interrupt()
		return nil
	}))
	api.Set("setInterruptFlag", js.FuncOf(b.setInterruptFlag))
	api.Set("setCommHandler", js.FuncOf(b.setCommHandler))
	api.Set("comm", js.FuncOf(b.commMessage))
	api.Set("commInfo", js.FuncOf(b.commInfo))
	js.Global().Set("veclab", api)
	if ready := js.Global().Get("veclabReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the bridge lives as long as the page
}

// version names the build: the module's VCS revision when the build
// recorded one, the Go version and the platform.
func version() string {
	rev := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			rev = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = s.Value[:12]
			}
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.modified" && s.Value == "true" {
				rev += "+dirty"
			}
		}
	}
	return fmt.Sprintf("veclab %s %s %s/%s", rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// captureJS wraps fs.writeSync (wasm_exec.js): while on is set, writes to
// fds 1 and 2 are decoded and kept in out as [fd, text] pairs instead of
// going to the console. It is plain JavaScript because the runtime's own
// writes (println, a crash report) call fs.writeSync from where Go code
// cannot run. It also sends fs.read of fd 0 to stdinRead (stdin.go).
const captureJS = `
const fs = globalThis.fs;
const write = fs.writeSync.bind(fs);
const dec = {1: new TextDecoder("utf-8"), 2: new TextDecoder("utf-8")};
const c = {on: false, out: [], stdinRead: null};
fs.writeSync = function (fd, buf) {
	if (c.on && (fd === 1 || fd === 2)) {
		c.out.push([fd, dec[fd].decode(buf, {stream: true})]);
		return buf.length;
	}
	return write(fd, buf);
};
const read = fs.read.bind(fs);
fs.read = function (fd, buffer, offset, length, position, callback) {
	if (fd === 0 && c.stdinRead) return c.stdinRead(buffer, offset, length, callback);
	return read(fd, buffer, offset, length, position, callback);
};
return c;`

func installCapture() (js.Value, error) {
	fs := js.Global().Get("fs")
	if fs.Type() != js.TypeObject || fs.Get("writeSync").Type() != js.TypeFunction {
		return js.Value{}, fmt.Errorf("globalThis.fs.writeSync is missing: load wasm_exec.js of the Go toolchain that built this module")
	}
	return js.Global().Get("Function").New(captureJS).Invoke(), nil
}

type bridge struct {
	sess    *eval.Session
	capture js.Value
	flag    js.Value // an Int32Array on a SharedArrayBuffer, or undefined
	comms   commState
	stdin   stdinState
	dbg     *eval.Debugger
	// busy is held by the worker goroutine while it runs a job (a cell, a
	// comm handler, a completion): the debugger's lock (eval.Debugger's
	// free). Go on js/wasm has one thread, so a debug request that comes
	// while a cell waits (time.Sleep, a channel, input) finds it held.
	busy sync.Mutex
}

// setInterruptFlag is veclab.setInterruptFlag(int32Array): while a cell
// runs, element 0 is polled every pollEvery; a non-zero value is taken
// (reset to 0) as an interrupt of the cell.
func (b *bridge) setInterruptFlag(_ js.Value, args []js.Value) any {
	if len(args) < 1 || !args[0].InstanceOf(js.Global().Get("Int32Array")) {
		panic("veclab.setInterruptFlag(flag): flag must be an Int32Array")
	}
	b.flag = args[0]
	return nil
}

// pollEvery is how often the interrupt flag is read while a cell runs.
const pollEvery = 20 * time.Millisecond

// watchFlag reads the interrupt flag until stop is closed, and interrupts
// the session when the page has set it. The page writes the flag from its
// own thread while this worker is busy in the cell, so no message could
// reach the cell; the flag is read by this goroutine whenever the cell's
// goroutine lets the Go scheduler run (js/wasm has one thread and no
// preemption): at time.Sleep, channel operations and output, and between
// the chunks of the engine's and the lab's long operations
// (engine.Done yields on js/wasm).
func (b *bridge) watchFlag(stop chan struct{}) {
	atomics := js.Global().Get("Atomics")
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if atomics.Call("exchange", b.flag, 0, 0).Int() != 0 {
				b.interrupt()
			}
		}
	}
}

// work runs the queued jobs one at a time.
func (b *bridge) work() {
	for job := range jobs {
		b.busy.Lock()
		job()
		b.dbg.Snapshot() // the variables for debug requests during the next job
		b.busy.Unlock()
	}
}

// promise queues job and returns a Promise of its result. The job runs on
// the worker goroutine; a panic in it rejects the Promise.
func promise(yield bool, job func() any) any {
	var resolve, reject js.Value
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject = args[0], args[1]
		return nil
	})
	p := js.Global().Get("Promise").New(executor)
	executor.Release()
	run := func() {
		defer func() {
			if r := recover(); r != nil {
				reject.Invoke(js.Global().Get("Error").New(fmt.Sprintf("veclab: %v", r)))
			}
		}()
		if yield {
			// Let JavaScript have the Promise (and the page repaint)
			// before the cell takes the thread.
			time.Sleep(time.Millisecond)
		}
		resolve.Invoke(job())
	}
	select {
	case jobs <- run:
	default:
		reject.Invoke(js.Global().Get("Error").New("veclab: too many cells queued"))
	}
	return p
}

// eval is veclab.eval(code, opts?).
func (b *bridge) eval(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.eval: %v", r))
		}
	}()
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return rejected("veclab.eval(code, opts?): code must be a string")
	}
	code := args[0].String()
	var onOutput, onInput js.Value
	parent := ""
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		if f := args[1].Get("onOutput"); f.Type() == js.TypeFunction {
			onOutput = f
		}
		if f := args[1].Get("onInput"); f.Type() == js.TypeFunction {
			onInput = f
		}
		if p := args[1].Get("parent"); p.Type() == js.TypeString {
			parent = p.String()
		}
	}
	return promise(true, func() any {
		b.setParent(parent)
		if expr, ok := eval.PagerQuery(code); ok {
			return b.page(expr, onOutput)
		}
		return b.run(code, onOutput, onInput)
	})
}

func rejected(msg string) any {
	return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(msg))
}

// run evaluates one cell and returns the JavaScript result object.
func (b *bridge) run(code string, onOutput, onInput js.Value) any {
	b.drain(nil) // anything written between cells goes to the console
	b.resetStdin()
	defer b.resetStdin()
	out := &cellOutput{b: b, onOutput: onOutput, onInput: onInput}
	if b.flag.Truthy() {
		// An interrupt asked for before the cell started is not its own.
		js.Global().Get("Atomics").Call("store", b.flag, 0, 0)
		stop := make(chan struct{})
		defer close(stop)
		go b.watchFlag(stop)
	}
	b.capture.Set("on", true)
	b.setCurrent(out)
	defer b.setCurrent(nil)
	start := time.Now()
	res := b.sess.Eval(code, out)
	ms := time.Since(start).Seconds() * 1000
	b.drain(out)
	b.capture.Set("on", false)
	if res.Value != nil {
		out.add(map[string]any{"type": "result", "data": bundle(res.Value)})
	}
	obj := map[string]any{"ms": ms}
	if res.Err != nil {
		e := errorItem(res.Err)
		out.add(e)
		obj["error"] = e
	}
	out.mu.Lock()
	obj["outputs"] = out.items
	out.mu.Unlock()
	return obj
}

// page answers an inspection cell (`x?`): {outputs, page?, ms}, page the
// documentation bundle the kernel puts in the reply's pager payload, or a
// line saying the name is unknown.
func (b *bridge) page(expr string, onOutput js.Value) any {
	out := &cellOutput{b: b, onOutput: onOutput}
	obj := map[string]any{"ms": 0.0}
	if data, found := b.sess.Inspect(expr, len(expr)); found && len(data) > 0 {
		obj["page"] = bundle(data)
	} else {
		out.stream("stdout", "Object `"+expr+"` not found.\n")
	}
	out.mu.Lock()
	obj["outputs"] = out.items
	out.mu.Unlock()
	return obj
}

func errorItem(e *eval.Error) map[string]any {
	tb := make([]any, len(e.Traceback))
	for i, l := range e.Traceback {
		tb[i] = l
	}
	return map[string]any{"type": "error", "name": e.Name, "value": e.Value, "traceback": tb}
}

// drain moves the captured stream text into out (or, with out nil, to the
// real standard error).
func (b *bridge) drain(out *cellOutput) {
	pending := b.capture.Get("out")
	n := pending.Length()
	if n == 0 {
		return
	}
	b.capture.Set("out", js.Global().Get("Array").New())
	for i := 0; i < n; i++ {
		p := pending.Index(i)
		name := "stdout"
		if p.Index(0).Int() == 2 {
			name = "stderr"
		}
		text := p.Index(1).String()
		if out == nil {
			wasOn := b.capture.Get("on").Bool()
			b.capture.Set("on", false)
			fmt.Fprintf(os.Stderr, "[%s, no cell] %s", name, text)
			b.capture.Set("on", wasOn)
			continue
		}
		out.stream(name, text)
	}
}

// cellOutput is the eval.Output of one cell: it keeps the items in order
// and passes them on to onOutput.
type cellOutput struct {
	b        *bridge
	onOutput js.Value
	onInput  js.Value // func(prompt, password) Promise<string>, or undefined (stdin.go)
	mu       sync.Mutex
	items    []any
}

func (o *cellOutput) notify(item map[string]any) {
	if o.onOutput.Type() != js.TypeFunction {
		return
	}
	func() {
		defer func() { recover() }() // a failing page callback must not fail the cell
		o.onOutput.Invoke(item)
	}()
}

func (o *cellOutput) add(item map[string]any) {
	o.mu.Lock()
	o.items = append(o.items, item)
	o.mu.Unlock()
	o.notify(item)
}

func (o *cellOutput) stream(name, text string) {
	if text == "" {
		return
	}
	o.mu.Lock()
	if n := len(o.items); n > 0 {
		if last := o.items[n-1].(map[string]any); last["type"] == "stream" && last["name"] == name {
			last["text"] = last["text"].(string) + text
			o.mu.Unlock()
			o.notify(map[string]any{"type": "stream", "name": name, "text": text})
			return
		}
	}
	o.mu.Unlock()
	o.add(map[string]any{"type": "stream", "name": name, "text": text})
}

// Stream implements eval.Output (gomacro's diagnostics, the session's notices).
func (o *cellOutput) Stream(name, text string) {
	o.b.drain(o)
	o.stream(name, text)
}

// Display implements eval.Output.
func (o *cellOutput) Display(data eval.Bundle, id string, update bool) {
	o.b.drain(o) // what the cell printed before comes first
	item := map[string]any{"type": "display", "data": bundle(data)}
	if id != "" {
		item["id"] = id
	}
	if update && id != "" {
		item["type"] = "update"
		o.mu.Lock()
		found := false
		for _, it := range o.items {
			if m := it.(map[string]any); m["type"] == "display" && m["id"] == id {
				m["data"] = item["data"]
				found = true
			}
		}
		if !found {
			o.items = append(o.items, item)
		}
		o.mu.Unlock()
		o.notify(item)
		return
	}
	o.add(item)
}

// RemoveDisplays implements eval.Remover (display.Progress bars leave the
// outputs when the cell ends): the items lose those displays, and onOutput
// gets a clear and the items kept.
func (o *cellOutput) RemoveDisplays(ids []string) {
	o.b.drain(o)
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	o.mu.Lock()
	var kept []any
	for _, it := range o.items {
		m := it.(map[string]any)
		if n := len(kept); m["type"] == "stream" && n > 0 && kept[n-1].(map[string]any)["type"] == "stream" && kept[n-1].(map[string]any)["name"] == m["name"] {
			kept[n-1].(map[string]any)["text"] = kept[n-1].(map[string]any)["text"].(string) + m["text"].(string)
		} else if id, _ := m["id"].(string); m["type"] != "display" || !drop[id] {
			kept = append(kept, m)
		}
	}
	o.items = kept
	o.mu.Unlock()
	o.notify(map[string]any{"type": "clear", "wait": len(kept) > 0})
	for _, it := range kept {
		o.notify(it.(map[string]any))
	}
}

// ClearOutput implements eval.Clearer (display.ClearOutput): the items so
// far are void, and onOutput gets a clear.
func (o *cellOutput) ClearOutput(wait bool) {
	o.b.drain(o)
	o.mu.Lock()
	o.items = nil
	o.mu.Unlock()
	o.notify(map[string]any{"type": "clear", "wait": wait})
}

// bundle converts a MIME bundle to values js.ValueOf accepts.
func bundle(b eval.Bundle) map[string]any {
	out := make(map[string]any, len(b))
	for k, v := range b {
		switch x := v.(type) {
		case string:
			out[k] = x
		case []byte:
			out[k] = string(x)
		case json.RawMessage:
			var j any
			if json.Unmarshal(x, &j) == nil {
				out[k] = j
			}
		default:
			// A JSON value (a widget's view reference): through JSON text,
			// to the maps and slices js.ValueOf takes.
			var j any
			if raw, err := json.Marshal(x); err == nil && json.Unmarshal(raw, &j) == nil {
				out[k] = j
			} else {
				out[k] = fmt.Sprint(x)
			}
		}
	}
	return out
}

// complete is veclab.complete(code, pos).
func (b *bridge) complete(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.complete: %v", r))
		}
	}()
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeNumber {
		return rejected("veclab.complete(code, pos): code must be a string, pos a number")
	}
	code, pos := args[0].String(), args[1].Int()
	return promise(false, func() any {
		cursor := byteOffset(code, pos)
		start, end, matches := b.sess.Complete(code, cursor)
		ms := make([]any, len(matches))
		for i, m := range matches {
			ms[i] = m
		}
		return map[string]any{"start": utf16Offset(code, start), "end": utf16Offset(code, end), "matches": ms}
	})
}

// inspect is veclab.inspect(code, pos): {found, data}.
func (b *bridge) inspect(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.inspect: %v", r))
		}
	}()
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeNumber {
		return rejected("veclab.inspect(code, pos): code must be a string, pos a number")
	}
	code, pos := args[0].String(), args[1].Int()
	return promise(false, func() any {
		data, found := b.sess.Inspect(code, byteOffset(code, pos))
		r := map[string]any{"found": found}
		if found {
			r["data"] = bundle(data)
		}
		return r
	})
}

// isComplete is veclab.isComplete(code): {status, indent}.
func (b *bridge) isComplete(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.isComplete: %v", r))
		}
	}()
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return rejected("veclab.isComplete(code): code must be a string")
	}
	code := args[0].String()
	return promise(false, func() any {
		status, indent := b.sess.IsComplete(code)
		return map[string]any{"status": status, "indent": indent}
	})
}

// debug is veclab.debug(content): the debug_request's content (JSON
// text) answered by eval.Debugger, as the native kernel answers it.
func (b *bridge) debug(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.debug: %v", r))
		}
	}()
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return rejected("veclab.debug(content): content must be the debug_request's content as JSON text")
	}
	// Answered here, not queued behind the running job as the other
	// requests are: the front end waits for every debug_reply (JupyterLab's
	// debugger sends debugInfo when a notebook opens and the page errs when
	// the notebook closes before the reply), and ipykernel answers the
	// control channel while a cell runs. eval.Debugger reads the session
	// only when busy is free (TryLock: this callback must not block).
	reply, event := b.dbg.Answer([]byte(args[0].String()))
	r, err := json.Marshal(reply)
	if err != nil {
		return rejected(fmt.Sprintf("veclab.debug: %v", err))
	}
	out := map[string]any{"reply": string(r)}
	if event != nil {
		e, _ := json.Marshal(event)
		out["event"] = string(e)
	}
	return js.Global().Get("Promise").Call("resolve", js.ValueOf(out))
}

// byteOffset converts a UTF-16 index of s to a byte offset.
func byteOffset(s string, u int) int {
	n := 0
	for i, r := range s {
		if n >= u {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(s)
}

// utf16Offset converts a byte offset of s to a UTF-16 index.
func utf16Offset(s string, b int) int {
	if b > len(s) {
		b = len(s)
	}
	n := 0
	for _, r := range s[:b] {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}
