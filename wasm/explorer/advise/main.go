//go:build js && wasm

// Command advise is the explorer page's second WebAssembly module
// (advise.wasm, served beside explorer.wasm at /explorer/): lab/advise —
// the code path of `veclab advise`, [advise.LoadReader] then [advise.Run]
// — on a file dropped on the page, with no server.
//
// It is a module of its own, loaded only when a file is dropped, because
// lab/advise brings the store profiles, the Parquet reader and the
// charts (gonum/plot and its fonts): 26.8 MB of WebAssembly (6.3 MB
// brotli) against the engine-only explorer.wasm's 6 MB, which every
// visit loads.
//
// # The bridge
//
// main installs globalThis.veclabAdvise and then calls
// globalThis.veclabAdviseReady(), if defined:
//
//	run(bytes, name, optionsJSON, onProgress?)  JSON {report, body} or {error}
//	version                                     "veclab-advise go1.x js/wasm"
//
// bytes is the file's Uint8Array, name its name (its extension says the
// format), optionsJSON an [Options]; onProgress(done, total, what) is
// told of each step. The call is synchronous: the page runs it in a Web
// Worker (web/advise-worker.js) and stops it by terminating the worker.
// No panic reaches JavaScript: every call returns {error} instead.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"syscall/js"

	"github.com/veclab/veclab/lab/advise"
)

// Options are the page's choices, each with the page's default.
type Options struct {
	K       int      `json:"k"`       // recall@k (10)
	Target  float64  `json:"target"`  // 0.95
	Queries int      `json:"queries"` // rows held out as queries (200)
	Seed    uint64   `json:"seed"`    // 1
	N       int64    `json:"n"`       // memory projected to (the file's rows)
	Stores  []string `json:"stores"`  // lab/profile syntax (the four stores on their defaults)
}

// Answer is what run returns.
type Answer struct {
	Report *advise.Report `json:"report"`
	Body   string         `json:"body"` // the report's HTML body: sentences, charts, table
}

func run(args []js.Value) (*Answer, error) {
	if len(args) < 3 || args[0].Type() != js.TypeObject || args[1].Type() != js.TypeString || args[2].Type() != js.TypeString {
		return nil, fmt.Errorf("run(bytes, name, optionsJSON, onProgress?): a Uint8Array, a name and options expected")
	}
	o := Options{K: 10, Target: 0.95, Queries: 200, Seed: 1}
	if err := json.Unmarshal([]byte(args[2].String()), &o); err != nil {
		return nil, fmt.Errorf("options: %v", err)
	}
	if len(o.Stores) == 0 {
		// The rows `veclab advise` starts with, without its quantized
		// variants, so that the advice on a dropped file takes seconds,
		// not minutes.
		o.Stores = advise.Stores()
	}
	var progress func(done, total int, what string)
	if len(args) > 3 && args[3].Type() == js.TypeFunction {
		cb := args[3]
		progress = func(done, total int, what string) { cb.Invoke(done, total, what) }
	}
	b := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(b, args[0])
	name := args[1].String()
	ctx := context.Background()
	if progress != nil {
		progress(0, 1, "reading "+name)
	}
	d, err := advise.LoadReader(ctx, name, bytes.NewReader(b), int64(len(b)), advise.LoadOptions{K: o.K, Queries: o.Queries, Seed: o.Seed, HoldOut: true})
	b = nil // the file's bytes are read: let them go before the stores are built
	if err != nil {
		return nil, err
	}
	debug.SetGCPercent(advise.GCPercent)
	opt := advise.Options{K: o.K, Target: o.Target, N: o.N, Seed: o.Seed, Profiles: o.Stores, InMemory: true, Progress: progress}
	rep, err := advise.Run(ctx, d, opt)
	if err != nil {
		return nil, err
	}
	return &Answer{Report: rep, Body: rep.Body()}, nil
}

func main() {
	o := js.Global().Get("Object").New()
	o.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf("advise: internal error: %v", r)})
				out = string(b)
			}
		}()
		a, err := run(args)
		if err != nil {
			b, _ := json.Marshal(map[string]string{"error": err.Error()})
			return string(b)
		}
		b, err := json.Marshal(a)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"error": "advise: encoding the answer: " + err.Error()})
		}
		return string(b)
	}))
	o.Set("version", "veclab-advise "+runtime.Version()+" js/wasm")
	js.Global().Set("veclabAdvise", o)
	if r := js.Global().Get("veclabAdviseReady"); r.Type() == js.TypeFunction {
		r.Invoke()
	}
	select {}
}
