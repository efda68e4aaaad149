package eval

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The debug protocol, as much of it as JupyterLab's variables panel uses,
// answered alike by the native kernel (control channel) and the browser
// kernel (wasm/, through the JupyterLite site's kernel.js).
//
// JupyterLab's debugger (jupyterlab/jupyterlab packages/debugger/src:
// session.ts at 06cdfcb47a4e, service.ts at 01c82d6cb57c; handler.ts asks
// for the variables on each IOPub message of an execute_request) sends
// Debug Adapter Protocol requests in debug_request messages on the
// control channel: debugInfo when a notebook opens, initialize then attach
// when the debugger is switched on, inspectVariables after each cell,
// richInspectVariables when a variable is opened, disconnect when it is
// switched off; configurationDone, setBreakpoints and dumpCell when
// breakpoints are set, source when a breakpoint of the Breakpoints panel
// or a file of the Kernel Sources panel is opened. The replies follow
// ipykernel's (ipython/ipykernel ipykernel/debugger.py at 0021a6a7b823:
// Debugger.debugInfo, inspectVariables, richInspectVariables,
// configurationDone, source).
// The debugger lists the variables, constants and functions cells defined
// ([Lister]); it does not stop a cell: setBreakpoints answers each
// breakpoint unverified, debugInfo reports no stopped thread and no
// breakpoint (and says why), dumpCell names the path JupyterLab computes
// for the cell (its editors send it when a breakpoint is set) and keeps
// the cell's code under it in memory, not in a file: source answers it
// (as ipykernel's reads the file dumpCell wrote), and modules lists the
// kept cells with their paths after the bound packages, so that
// JupyterLab's Kernel Sources panel opens them. The requests of a stopped
// program (stackTrace, scopes,
// continue, next …) answer that there is none.

// NoBreakpoints is the message of every unverified breakpoint and of
// dumpCell.
const NoBreakpoints = "breakpoints are not supported by the veclab kernel: its debugger lists the session's variables only"

// A TryLocker is a lock that can be tried, as sync.Mutex.
type TryLocker interface {
	TryLock() bool
	Unlock()
}

// A Debugger answers Debug Adapter Protocol requests over a Lister. Its
// methods may be called from any goroutine.
type Debugger struct {
	lister Lister
	// free, when set, is the lock the shell holds while a cell runs (the
	// native kernel's evaluation lock, the browser kernel's busy lock of
	// its worker goroutine): the lister is read only when it can be taken
	// (else the variables of the last Snapshot are answered). Nil: the
	// caller runs requests between cells.
	free   TryLocker
	tmp    string // debugInfo's tmpFilePrefix
	suffix string

	mu      sync.Mutex
	started bool       // initialize seen, disconnect not
	vars    []Variable // the variables when the shell was last free
	cells   []cell     // the cells dumpCell named, in the order first dumped
}

// A cell is a cell's code under the path dumpCell named for it.
type cell struct{ path, code string }

// maxCells bounds the cells a Debugger keeps: JupyterLab dumps a cell each
// time a breakpoint changes in it, and an edited cell is a new one (its
// path is its code's hash); past the bound the oldest are forgotten, and
// source answers that their source is no longer kept.
const maxCells = 1000

// NewDebugger returns a debugger over l (nil: every request is answered
// that this interpreter has no debugger). free is the shell's lock (see
// Debugger.free), tmpPrefix the prefix debugInfo names for cell files.
func NewDebugger(l Lister, free TryLocker, tmpPrefix string) *Debugger {
	return &Debugger{lister: l, free: free, tmp: tmpPrefix, suffix: ".go"}
}

// Enabled says whether the debugger lists anything (kernel_info's
// debugger flag).
func (d *Debugger) Enabled() bool { return d.lister != nil }

func (d *Debugger) tryLock() bool {
	return d.free == nil || d.free.TryLock()
}

func (d *Debugger) unlock() {
	if d.free != nil {
		d.free.Unlock()
	}
}

// variables returns the session's variables: listed now when the shell
// is free, else those of the last time it was (a cell is running: the
// interpreter cannot be read).
func (d *Debugger) variables() []Variable {
	if d.tryLock() {
		vs := d.lister.Variables()
		d.unlock()
		d.mu.Lock()
		d.vars = vs
		d.mu.Unlock()
		return vs
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vars
}

// Snapshot keeps the variables for the requests that come while the next
// cell runs; the shell calls it after a cell, while it holds the lock,
// and it lists nothing unless the debugger is started.
func (d *Debugger) Snapshot() {
	d.mu.Lock()
	started := d.started
	d.mu.Unlock()
	if !started || d.lister == nil {
		return
	}
	vs := d.lister.Variables()
	d.mu.Lock()
	d.vars = vs
	d.mu.Unlock()
}

// Answer answers the content of a debug_request: the content of its
// debug_reply, and the content of a debug_event to publish on IOPub after
// the reply (nil: none; initialize is followed by the initialized event).
func (d *Debugger) Answer(content []byte) (reply, event map[string]any) {
	var req struct {
		Seq       int             `json:"seq"`
		Command   string          `json:"command"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(content, &req); err != nil || req.Command == "" {
		return map[string]any{"seq": req.Seq, "type": "response", "request_seq": req.Seq, "success": false,
			"command": req.Command, "message": "debug_request content is not a Debug Adapter Protocol request (a JSON object with a command)"}, nil
	}
	resp := map[string]any{"seq": req.Seq, "type": "response", "request_seq": req.Seq, "success": true, "command": req.Command}
	fail := func(m string) {
		resp["success"] = false
		resp["message"] = m
	}
	if d.lister == nil {
		fail("this interpreter has no debugger")
		return resp, nil
	}
	switch req.Command {
	case "initialize":
		d.mu.Lock()
		d.started = true
		d.mu.Unlock()
		resp["body"] = map[string]any{
			"supportsConfigurationDoneRequest": true,
			"supportsVariableType":             true,
			"exceptionBreakpointFilters":       []any{},
		}
		event = map[string]any{"seq": 0, "type": "event", "event": "initialized"}
	case "attach", "configurationDone":
	case "disconnect":
		d.mu.Lock()
		d.started = false
		d.mu.Unlock()
	case "debugInfo":
		d.mu.Lock()
		started := d.started
		d.mu.Unlock()
		resp["body"] = map[string]any{
			"isStarted":      started,
			"hashMethod":     "Murmur2",
			"hashSeed":       0,
			"tmpFilePrefix":  d.tmp,
			"tmpFileSuffix":  d.suffix,
			"breakpoints":    []any{},
			"stoppedThreads": []any{},
			"richRendering":  true,
			"exceptionPaths": []any{},
			"copyToGlobals":  false,
			// Not in ipykernel's reply: says why the list above stays
			// empty, for a client that reads it.
			"breakpointsSupported": false,
			"message":              NoBreakpoints,
		}
	case "inspectVariables":
		vs := d.variables()
		list := make([]map[string]any, 0, len(vs))
		for _, v := range vs {
			list = append(list, map[string]any{"name": v.Name, "value": v.Value, "type": v.Type,
				"evaluateName": v.Name, "variablesReference": 0})
		}
		resp["body"] = map[string]any{"variables": list}
	case "richInspectVariables":
		var a struct {
			Name string `json:"variableName"`
		}
		json.Unmarshal(req.Arguments, &a)
		if !d.tryLock() {
			fail("a cell is running: " + a.Name + " can be shown when it ends")
			break
		}
		b, ok := d.lister.VariableBundle(a.Name)
		d.unlock()
		if !ok {
			resp["body"] = map[string]any{"data": map[string]any{}, "metadata": map[string]any{}}
			fail("no variable " + a.Name + " in the session")
			break
		}
		resp["body"] = map[string]any{"data": b, "metadata": map[string]any{}}
	case "variables":
		// Every variable is listed with variablesReference 0: none has
		// children to expand.
		resp["body"] = map[string]any{"variables": []any{}}
	case "setBreakpoints":
		// Each breakpoint names its source, as debugpy's reply does:
		// JupyterLab's Breakpoints panel shows a breakpoint by its
		// source's path (a breakpoint without one threw in its
		// getDisplayName).
		var a struct {
			Source      json.RawMessage `json:"source"`
			Breakpoints []struct {
				Line int `json:"line"`
			} `json:"breakpoints"`
		}
		json.Unmarshal(req.Arguments, &a)
		bps := make([]map[string]any, 0, len(a.Breakpoints))
		for _, b := range a.Breakpoints {
			bp := map[string]any{"verified": false, "line": b.Line, "message": NoBreakpoints}
			if len(a.Source) > 0 {
				bp["source"] = a.Source
			}
			bps = append(bps, bp)
		}
		resp["body"] = map[string]any{"breakpoints": bps}
	case "setExceptionBreakpoints":
		resp["body"] = map[string]any{"breakpoints": []any{}}
	case "dumpCell":
		// The path JupyterLab gives the cell (its Config.getCodeId, from
		// debugInfo's hash and file parameters), as ipykernel's reply
		// names the file it wrote; the kernel writes none (no breakpoint
		// is ever set in it).
		var a struct {
			Code string `json:"code"`
		}
		json.Unmarshal(req.Arguments, &a)
		path := d.tmp + strconv.FormatUint(uint64(murmur2([]byte(a.Code), 0)), 10) + d.suffix
		d.keep(path, a.Code)
		resp["body"] = map[string]any{"sourcePath": path}
	case "source":
		// DAP's source request (arguments source.path, or a
		// sourceReference the kernel never hands out): the code of a cell
		// dumpCell named.
		var a struct {
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
		}
		json.Unmarshal(req.Arguments, &a)
		code, ok := d.source(a.Source.Path)
		switch {
		case a.Source.Path == "":
			fail("source: no source.path given (the veclab kernel's sources are the cells dumpCell named, by path)")
		case !ok:
			fail("source: " + a.Source.Path + " is not a cell this kernel's debugger was given (dumpCell), or no longer kept: the veclab kernel has no source files, only cells")
		default:
			resp["body"] = map[string]any{"content": code, "mimeType": "text/x-go"}
		}
	case "threads":
		resp["body"] = map[string]any{"threads": []any{}}
	case "stackTrace":
		resp["body"] = map[string]any{"stackFrames": []any{}, "totalFrames": 0}
	case "scopes":
		resp["body"] = map[string]any{"scopes": []any{}}
	case "modules":
		mods := BoundPackages()
		sort.Strings(mods)
		list := make([]map[string]any, len(mods))
		for i, m := range mods {
			list[i] = map[string]any{"id": i, "name": m}
		}
		d.mu.Lock()
		for _, c := range d.cells {
			list = append(list, map[string]any{"id": len(list), "name": "cell " + strings.TrimSuffix(c.path[len(d.tmp):], d.suffix), "path": c.path})
		}
		d.mu.Unlock()
		resp["body"] = map[string]any{"modules": list, "totalModules": len(list)}
	default:
		fail("debug request " + req.Command + " is not supported by the veclab kernel: its debugger lists the session's variables (inspectVariables, richInspectVariables) and stops no cell")
	}
	return resp, event
}

// keep keeps code as the source of path (dumpCell), once.
func (d *Debugger) keep(path, code string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.cells {
		if c.path == path {
			return
		}
	}
	if len(d.cells) == maxCells {
		d.cells = append(d.cells[:0], d.cells[1:]...)
	}
	d.cells = append(d.cells, cell{path, code})
}

// source returns the code dumpCell kept for path.
func (d *Debugger) source(path string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.cells {
		if c.path == path {
			return c.code, true
		}
	}
	return "", false
}

// murmur2 is MurmurHash2 (32 bits) of data with seed, the hash debugInfo
// names (hashMethod Murmur2, hashSeed 0) and JupyterLab's debugger
// computes for a cell's code (jupyterlab/jupyterlab
// packages/debugger/src/hash.ts, after Gary Court's murmurhash2_gc.js).
func murmur2(data []byte, seed uint32) uint32 {
	const m = 0x5bd1e995
	h := seed ^ uint32(len(data))
	for len(data) >= 4 {
		k := uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h = h*m ^ k
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
