package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// The debug protocol, as much of it as JupyterLab's variables panel uses.
//
// JupyterLab's debugger (jupyterlab/jupyterlab packages/debugger/src:
// session.ts at 06cdfcb47a4e, service.ts at 01c82d6cb57c; handler.ts asks
// for the variables on each IOPub message of an execute_request) sends
// Debug Adapter Protocol requests in debug_request messages on the
// control channel: debugInfo when a notebook opens, initialize then attach
// when the debugger is switched on, inspectVariables after each cell,
// richInspectVariables when a variable is opened, disconnect when it is
// switched off; configurationDone, setBreakpoints and dumpCell when
// breakpoints are set. The replies follow ipykernel's (ipython/ipykernel
// ipykernel/debugger.py at 0021a6a7b823: Debugger.debugInfo,
// inspectVariables, richInspectVariables, configurationDone).
// The kernel lists the variables, constants and functions cells defined
// ([eval.Lister]); it does not stop a cell: setBreakpoints answers each
// breakpoint unverified, debugInfo reports no stopped thread, and the
// requests of a stopped program (stackTrace, scopes, continue, next …)
// answer that there is none.

// debugger is the kernel's debug state.
type debugger struct {
	mu      sync.Mutex
	started bool            // initialize seen, disconnect not
	vars    []eval.Variable // the variables when the shell was last free
	lister  eval.Lister     // nil: the interpreter lists nothing (no debugger)
	evalMu  *sync.Mutex     // held by the shell goroutine while it handles a request
	tmp     string          // debugInfo's tmpFilePrefix
}

// noBreakpoints is the message of every unverified breakpoint.
const noBreakpoints = "breakpoints are not supported by the veclab kernel: its debugger lists the session's variables only"

// dapRequest is a Debug Adapter Protocol request.
type dapRequest struct {
	Seq       int             `json:"seq"`
	Type      string          `json:"type"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// variables returns the session's variables: listed now when the shell
// is free, else those of the last time it was (a cell is running: the
// interpreter cannot be read).
func (d *debugger) variables() []eval.Variable {
	if d.evalMu.TryLock() {
		vs := d.lister.Variables()
		d.evalMu.Unlock()
		d.mu.Lock()
		d.vars = vs
		d.mu.Unlock()
		return vs
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vars
}

// snapshot keeps the variables for the requests that come while the next
// cell runs; the shell goroutine calls it, holding evalMu, after a cell
// while the debugger is started.
func (d *debugger) snapshot() {
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

// debugRequest answers a debug_request.
func (k *kernel) debugRequest(sock zmq4.Socket, msg *wire.Message) {
	d := k.dbg
	var req dapRequest
	if err := json.Unmarshal(msg.Content, &req); err != nil || req.Command == "" {
		k.logf("debug_request: bad content: %v", err)
		k.reply(sock, msg, "debug_reply", map[string]any{"type": "response", "request_seq": req.Seq, "success": false,
			"command": req.Command, "message": "debug_request content is not a Debug Adapter Protocol request"})
		return
	}
	resp := map[string]any{"seq": req.Seq, "type": "response", "request_seq": req.Seq, "success": true, "command": req.Command}
	fail := func(m string) {
		resp["success"] = false
		resp["message"] = m
	}
	if d.lister == nil {
		fail("this interpreter has no debugger")
		k.reply(sock, msg, "debug_reply", resp)
		return
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
		defer k.publish("debug_event", msg, map[string]any{"seq": 0, "type": "event", "event": "initialized"})
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
			"tmpFileSuffix":  ".go",
			"breakpoints":    []any{},
			"stoppedThreads": []any{},
			"richRendering":  true,
			"exceptionPaths": []any{},
			"copyToGlobals":  false,
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
		if !d.evalMu.TryLock() {
			fail("a cell is running: " + a.Name + " can be shown when it ends")
			break
		}
		b, ok := d.lister.VariableBundle(a.Name)
		d.evalMu.Unlock()
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
		var a struct {
			Breakpoints []struct {
				Line int `json:"line"`
			} `json:"breakpoints"`
		}
		json.Unmarshal(req.Arguments, &a)
		bps := make([]map[string]any, 0, len(a.Breakpoints))
		for _, b := range a.Breakpoints {
			bps = append(bps, map[string]any{"verified": false, "line": b.Line, "message": noBreakpoints})
		}
		resp["body"] = map[string]any{"breakpoints": bps}
	case "setExceptionBreakpoints":
		resp["body"] = map[string]any{"breakpoints": []any{}}
	case "dumpCell":
		fail(noBreakpoints)
	case "threads":
		resp["body"] = map[string]any{"threads": []any{}}
	case "stackTrace":
		resp["body"] = map[string]any{"stackFrames": []any{}, "totalFrames": 0}
	case "scopes":
		resp["body"] = map[string]any{"scopes": []any{}}
	case "modules":
		mods := eval.BoundPackages()
		sort.Strings(mods)
		list := make([]map[string]any, len(mods))
		for i, m := range mods {
			list[i] = map[string]any{"id": i, "name": m}
		}
		resp["body"] = map[string]any{"modules": list, "totalModules": len(list)}
	default:
		fail("debug request " + req.Command + " is not supported by the veclab kernel: its debugger lists the session's variables (inspectVariables, richInspectVariables) and stops no cell")
	}
	k.reply(sock, msg, "debug_reply", resp)
}

// newDebugger returns the kernel's debug state over interp.
func newDebugger(interp eval.Interpreter, evalMu *sync.Mutex) *debugger {
	d := &debugger{evalMu: evalMu, tmp: filepath.Join(os.TempDir(), "veclab-cells") + string(filepath.Separator)}
	if l, ok := interp.(eval.Lister); ok {
		d.lister = l
	}
	return d
}
