//go:build js && wasm

// Command explorer is the engine-only WebAssembly module of the explorer
// page (wasm/explorer/web, served by `veclab serve` at /explorer/): the
// computing side of package explore — data, HNSW builds (float32 or
// quantized codes), searches with and without filters, the 2-D picture —
// with no interpreter, so the module stays a few MB. Advice on a dropped
// file (lab/advise) is a second module, wasm/explorer/advise, which the
// page fetches only then.
//
// # The bridge
//
// main installs globalThis.veclabExplorer and then calls
// globalThis.veclabExplorerReady(), if defined:
//
//	build(paramsJSON, onProgress?)  JSON {info} or {error}; onProgress(phase, done, total)
//	search(paramsJSON)              JSON explore.SearchResult or {error}
//	acorn(gamma)                    JSON explore.ACORNInfo or {error}: builds the ACORN-γ graph (once per γ)
//	compare(paramsJSON)             JSON [explore.StrategyRow] or {error}: every strategy at the current ef and filter
//	draw(ef, k, seed)               JSON explore.PictureData or {error}
//	scan(paramsJSON)                JSON explore.ScanResult or {error}: every query scanned exhaustively (float32, or 4-/1-bit codes)
//	data()                          {dim, metric, base, queries: Float32Array, k, truth: Int32Array (exact top-10 ids per query)}
//	strategies                      the filter strategies search accepts
//	version                         "veclab-explorer go1.x js/wasm"
//
// Calls are synchronous: the page runs the module in a Web Worker
// (web/worker.js), which posts progress while a build runs; a new build
// supersedes a running one by terminating that worker. No panic reaches
// JavaScript: every call returns {error} instead.
package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"syscall/js"
	"unsafe"

	"github.com/veclab/veclab/lab/explore"
)

var lab *explore.Lab

// Info describes a built index to the page.
type Info struct {
	Params         explore.BuildParams `json:"params"`
	Metric         string              `json:"metric"`
	Quant          string              `json:"quant"`
	BuildSeconds   float64             `json:"buildSeconds"`
	DataSeconds    float64             `json:"dataSeconds"`
	QuantSeconds   float64             `json:"quantSeconds"`
	PictureSeconds float64             `json:"pictureSeconds"`
	MaxLevel       int                 `json:"maxLevel"`
	BytesPerVector float64             `json:"bytesPerVector"`
	GraphBytes     float64             `json:"graphBytesPerVector"`
}

func reply(v any, err error) (out string) {
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "explorer: encoding the answer: " + err.Error()})
	}
	return string(b)
}

// guard turns a panic in the bridge into an {error} answer.
func guard(f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				out = reply(nil, fmt.Errorf("explorer: internal error: %v", r))
			}
		}()
		v, err := f(args)
		if s, ok := v.(js.Value); ok && err == nil {
			return s
		}
		return reply(v, err)
	})
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func build(args []js.Value) (any, error) {
	var p explore.BuildParams
	if err := json.Unmarshal([]byte(arg(args, 0).String()), &p); err != nil {
		return nil, fmt.Errorf("explorer: build: parameters: %w", err)
	}
	var progress explore.Progress
	if cb := arg(args, 1); cb.Type() == js.TypeFunction {
		progress = func(phase string, done, total int) { cb.Invoke(phase, done, total) }
	}
	lab = nil
	runtime.GC()
	l, err := explore.Build(p, progress)
	if err != nil {
		return nil, err
	}
	lab = l
	return Info{Params: l.P, Metric: l.Metric.String(), Quant: l.Quant, BuildSeconds: l.BuildSeconds,
		DataSeconds: l.DataSeconds, QuantSeconds: l.QuantSeconds, PictureSeconds: l.PictureSeconds,
		MaxLevel: l.Index.MaxLevel(), BytesPerVector: l.Index.BytesPerVector(), GraphBytes: l.Index.GraphBytesPerVector()}, nil
}

func search(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: search: no index built yet")
	}
	var p explore.SearchParams
	if err := json.Unmarshal([]byte(arg(args, 0).String()), &p); err != nil {
		return nil, fmt.Errorf("explorer: search: parameters: %w", err)
	}
	return lab.Search(p)
}

func acorn(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: acorn: no index built yet")
	}
	if a := arg(args, 0); a.Type() != js.TypeNumber {
		return nil, fmt.Errorf("explorer: acorn(gamma): a number expected")
	}
	return lab.BuildACORN(args[0].Int())
}

func compare(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: compare: no index built yet")
	}
	var p explore.SearchParams
	if err := json.Unmarshal([]byte(arg(args, 0).String()), &p); err != nil {
		return nil, fmt.Errorf("explorer: compare: parameters: %w", err)
	}
	return lab.Compare(p)
}

func scan(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: scan: no index built yet")
	}
	var p explore.ScanParams
	if err := json.Unmarshal([]byte(arg(args, 0).String()), &p); err != nil {
		return nil, fmt.Errorf("explorer: scan: parameters: %w", err)
	}
	return lab.Scan(p)
}

func draw(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: draw: no index built yet")
	}
	if len(args) < 3 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeNumber || args[2].Type() != js.TypeNumber {
		return nil, fmt.Errorf("explorer: draw(ef, k, seed): three numbers expected")
	}
	return lab.Draw(args[0].Int(), args[1].Int(), uint64(args[2].Int()))
}

// floats copies a float32 slice into a new Float32Array.
func floats(v []float32) js.Value {
	u8 := js.Global().Get("Uint8Array").New(len(v) * 4)
	if len(v) > 0 {
		js.CopyBytesToJS(u8, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4))
	}
	return js.Global().Get("Float32Array").New(u8.Get("buffer"))
}

func data(args []js.Value) (any, error) {
	if lab == nil {
		return nil, fmt.Errorf("explorer: data: no index built yet")
	}
	o := js.Global().Get("Object").New()
	o.Set("dim", lab.Base.Dim)
	o.Set("metric", lab.Metric.String())
	o.Set("base", floats(lab.Base.Data[:lab.Base.N*lab.Base.Stride]))
	o.Set("queries", floats(lab.Queries.Data[:lab.Queries.N*lab.Queries.Stride]))
	const k = 10
	truth, err := lab.Truth(k)
	if err != nil {
		return nil, err
	}
	t := js.Global().Get("Int32Array").New(len(truth) * k)
	for i, row := range truth {
		for j, id := range row {
			t.SetIndex(i*k+j, int(id))
		}
	}
	o.Set("k", k)
	o.Set("truth", t)
	return o, nil
}

func main() {
	o := js.Global().Get("Object").New()
	o.Set("build", guard(build))
	o.Set("search", guard(search))
	o.Set("acorn", guard(acorn))
	o.Set("compare", guard(compare))
	o.Set("draw", guard(draw))
	o.Set("scan", guard(scan))
	o.Set("data", guard(data))
	st := js.Global().Get("Array").New()
	for _, s := range explore.Strategies() {
		st.Call("push", s)
	}
	o.Set("strategies", st)
	o.Set("version", "veclab-explorer "+runtime.Version()+" js/wasm")
	js.Global().Set("veclabExplorer", o)
	if r := js.Global().Get("veclabExplorerReady"); r.Type() == js.TypeFunction {
		r.Invoke()
	}
	select {}
}
