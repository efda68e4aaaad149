//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
)

// Comms in the browser: the same registry (kernel/comm's Default, where
// kernel/widget registers jupyter.widget and jupyter.widget.control) as the
// native kernel, served through the bridge:
//
//	veclab.setCommHandler(f)     f({msgType, content, metadata, buffers, parent})
//	                             receives what the Go side sends (comm_open,
//	                             comm_msg, comm_close; buffers: Uint8Arrays;
//	                             parent: the msg_id of the request being handled)
//	veclab.comm(msgType, contentJSON, buffers, opts)
//	                             Promise<{error?}>: a comm message of the front
//	                             end; the handler runs as a cell runs (opts.parent,
//	                             opts.onOutput as for eval)
//	veclab.commInfo(target)      Promise<{comm id: {target_name}}>
//
// A comm_msg is counted the moment it reaches the bridge (comm.Manager's
// Arrived), before it is queued behind the running callback, so a redraw
// made stale by it is skipped or preempted (kernel/widget's Interact) —
// in the browser when the running callback lets the Go scheduler run.

// commTransport sends the Go side's comm messages to the page.
type commTransport struct {
	b *bridge
}

func (t commTransport) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	// What the cell printed before comes first (an Output widget's capture
	// starts and ends with a comm message).
	if o := t.b.current(); o != nil {
		t.b.drain(o)
	}
	f := t.b.onComm()
	if f.Type() != js.TypeFunction {
		return errors.New("veclab: no comm handler (veclab.setCommHandler)")
	}
	c, err := jsJSON(content)
	if err != nil {
		return err
	}
	md, err := jsJSON(metadata)
	if err != nil {
		return err
	}
	bufs := make([]any, len(buffers))
	for i, b := range buffers {
		a := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(a, b)
		bufs[i] = a
	}
	m := js.Global().Get("Object").New()
	m.Set("msgType", msgType)
	m.Set("content", c)
	m.Set("metadata", md)
	m.Set("buffers", bufs)
	m.Set("parent", t.b.parentID())
	f.Invoke(m)
	return nil
}

func (t commTransport) ParentID() string { return t.b.parentID() }

func (t commTransport) Preempt() { t.b.sess.Interrupt() }

// jsJSON converts a Go JSON value to a JavaScript one (through JSON text:
// js.ValueOf does not take every JSON-shaped Go value).
func jsJSON(v any) (js.Value, error) {
	if v == nil {
		return js.Global().Get("Object").New(), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return js.Value{}, err
	}
	return js.Global().Get("JSON").Call("parse", string(b)), nil
}

// commState is the bridge's comm side: the page's handler and the request
// being handled.
type commState struct {
	mu      sync.Mutex
	handler js.Value    // guarded by mu
	parent  string      // guarded by mu
	out     *cellOutput // the running cell's or callback's output, guarded by mu
}

// current returns the output of the running cell or callback, nil between
// them.
func (b *bridge) current() *cellOutput {
	b.comms.mu.Lock()
	defer b.comms.mu.Unlock()
	return b.comms.out
}

func (b *bridge) setCurrent(o *cellOutput) {
	b.comms.mu.Lock()
	b.comms.out = o
	b.comms.mu.Unlock()
}

func (b *bridge) onComm() js.Value {
	b.comms.mu.Lock()
	defer b.comms.mu.Unlock()
	return b.comms.handler
}

func (b *bridge) parentID() string {
	b.comms.mu.Lock()
	defer b.comms.mu.Unlock()
	return b.comms.parent
}

func (b *bridge) setParent(id string) {
	b.comms.mu.Lock()
	b.comms.parent = id
	b.comms.mu.Unlock()
}

// setCommHandler is veclab.setCommHandler(f).
func (b *bridge) setCommHandler(_ js.Value, args []js.Value) any {
	if len(args) < 1 || args[0].Type() != js.TypeFunction {
		panic("veclab.setCommHandler(f): f must be a function")
	}
	b.comms.mu.Lock()
	b.comms.handler = args[0]
	b.comms.mu.Unlock()
	return nil
}

// commMessage is veclab.comm(msgType, contentJSON, buffers, opts).
func (b *bridge) commMessage(_ js.Value, args []js.Value) (ret any) {
	defer func() {
		if r := recover(); r != nil {
			ret = rejected(fmt.Sprintf("veclab.comm: %v", r))
		}
	}()
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return rejected("veclab.comm(msgType, contentJSON, buffers?, opts?): msgType and contentJSON must be strings")
	}
	typ := args[0].String()
	if typ != "comm_open" && typ != "comm_msg" && typ != "comm_close" {
		return rejected(fmt.Sprintf("veclab.comm: %q is not a comm message", typ))
	}
	id, target, data, err := comm.Decode([]byte(args[1].String()))
	if err != nil {
		return rejected(err.Error())
	}
	var bufs [][]byte
	if len(args) > 2 && args[2].Truthy() {
		for i := 0; i < args[2].Length(); i++ {
			a := js.Global().Get("Uint8Array").New(args[2].Index(i))
			buf := make([]byte, a.Length())
			js.CopyBytesToGo(buf, a)
			bufs = append(bufs, buf)
		}
	}
	var onOutput js.Value
	parent := ""
	if len(args) > 3 && args[3].Type() == js.TypeObject {
		if f := args[3].Get("onOutput"); f.Type() == js.TypeFunction {
			onOutput = f
		}
		if p := args[3].Get("parent"); p.Type() == js.TypeString {
			parent = p.String()
		}
	}
	if typ == "comm_msg" {
		comm.Default.Arrived(id) // now, not when its turn comes
	}
	msg := comm.Msg{Data: data, Buffers: bufs}
	return promise(false, func() any { return b.deliver(typ, id, target, msg, parent, onOutput) })
}

// deliver runs a comm message's handler as a cell runs (eval.Session.Call)
// and returns {error?, log?}: an error item as eval's, a log line for a
// message the registry refused (an unknown target, whose comm_close has
// been sent, or an unknown comm).
func (b *bridge) deliver(typ, id, target string, msg comm.Msg, parent string, onOutput js.Value) any {
	b.drain(nil)
	b.setParent(parent)
	out := &cellOutput{b: b, onOutput: onOutput}
	if b.flag.Truthy() { // the page's interrupt reaches a callback as a cell
		js.Global().Get("Atomics").Call("store", b.flag, 0, 0)
		stop := make(chan struct{})
		defer close(stop)
		go b.watchFlag(stop)
	}
	var handlerErr error
	comm.Default.TakePreempted()
	b.capture.Set("on", true)
	b.setCurrent(out)
	defer b.setCurrent(nil)
	cerr := b.sess.Call(typ+" "+id, func() {
		switch typ {
		case "comm_open":
			handlerErr = comm.Default.HandleOpen(id, target, msg)
		case "comm_msg":
			handlerErr = comm.Default.HandleMsg(id, msg)
		default:
			handlerErr = comm.Default.HandleClose(id, msg)
		}
		var pe *comm.PanicError
		if errors.As(handlerErr, &pe) {
			handlerErr = nil
			panic(pe.Value) // named and classified by Call, as a cell's panic
		}
	}, out)
	b.drain(out)
	b.capture.Set("on", false)
	r := map[string]any{}
	if handlerErr != nil {
		r["log"] = handlerErr.Error()
	}
	if cerr != nil && !(cerr.Name == eval.InterruptedName && comm.Default.TakePreempted()) {
		e := errorItem(cerr)
		out.add(e)
		r["error"] = e
	}
	return r
}

// commInfo is veclab.commInfo(target): the open comms, of target only
// when it is a non-empty string.
func (b *bridge) commInfo(_ js.Value, args []js.Value) any {
	target := ""
	if len(args) > 0 && args[0].Type() == js.TypeString {
		target = args[0].String()
	}
	return promise(false, func() any {
		info := comm.Default.Info(target)
		out := map[string]any{}
		for id, v := range info {
			out[id] = map[string]any{"target_name": v["target_name"]}
		}
		return out
	})
}
