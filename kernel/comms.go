package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// commTransport sends the kernel side's comm messages on IOPub as children
// of the shell request being handled (kernel.parent).
type commTransport struct{ k *kernel }

func (t commTransport) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	// What the cell printed before comes first (an Output widget's capture
	// starts and ends with a comm message).
	if f, ok := t.k.cfg.Interp.(interface{ Flush() }); ok {
		f.Flush()
	}
	m, err := wire.New(msgType, t.k.session, nil, content)
	if err != nil {
		return err
	}
	if p := t.k.parent.Load(); p != nil {
		m.ParentHeader = p.Header
	}
	if metadata != nil {
		if m.Metadata, err = marshalMetadata(metadata); err != nil {
			return err
		}
	}
	m.Buffers = buffers
	m.Identities = [][]byte{[]byte(msgType)}
	t.k.iopubMu.Lock()
	defer t.k.iopubMu.Unlock()
	t.k.send(t.k.iopub, m)
	return nil
}

func (t commTransport) ParentID() string {
	if p := t.k.parent.Load(); p != nil {
		return p.Header.MsgID
	}
	return ""
}

func (t commTransport) Preempt() { t.k.interrupt() }

// serveShell reads shell requests on one goroutine and handles them in
// order on another, so that a comm_msg that arrives while a widget
// callback runs is seen at once: comm.Manager.Arrived counts it (a redraw
// that is stale already is skipped) and preempts a redraw it makes stale
// (widget.Interact), instead of the redraws queueing up behind each other.
func (k *kernel) serveShell(ctx context.Context) {
	queue := make(chan *wire.Message, 1024)
	go func() {
		defer close(queue)
		for {
			zm, err := k.shell.Recv()
			if err != nil {
				if ctx.Err() == nil {
					k.logf("shell: receive: %v", err)
					if errors.Is(err, context.Canceled) {
						return
					}
					time.Sleep(10 * time.Millisecond) // no busy loop on a persistent error
					continue
				}
				return
			}
			msg, err := wire.Decode(zm.Frames, k.signer)
			if err != nil {
				k.logf("shell: dropped a message: %v", err)
				continue
			}
			if msg.Header.MsgType == "comm_msg" {
				if id, _, _, err := comm.Decode(msg.Content); err == nil {
					k.comms.Arrived(id)
				}
			}
			select {
			case queue <- msg:
			case <-ctx.Done():
				return
			}
		}
	}()
	for msg := range queue {
		k.parent.Store(msg)
		k.handle(ctx, k.shell, "shell", msg)
		if ctx.Err() != nil {
			return
		}
	}
}

// commMessage delivers a comm_open, comm_msg or comm_close from the front
// end to the comm registry. Handlers run as a cell runs (eval.Caller): on
// this goroutine, their output published as children of msg, an interrupt
// stops them, and a panic or an interrupt is published as an error on
// IOPub and logged; the kernel goes on.
func (k *kernel) commMessage(msg *wire.Message) {
	typ := msg.Header.MsgType
	id, target, data, err := comm.Decode(msg.Content)
	if err != nil {
		k.logf("%s: %v", typ, err)
		return
	}
	cm := comm.Msg{Data: data, Buffers: msg.Buffers}
	if len(msg.Metadata) > 0 {
		cm.Metadata, _ = unmarshalMetadata(msg.Metadata)
	}
	var handlerErr error
	deliver := func() {
		switch typ {
		case "comm_open":
			handlerErr = k.comms.HandleOpen(id, target, cm)
		case "comm_msg":
			handlerErr = k.comms.HandleMsg(id, cm)
		default:
			handlerErr = k.comms.HandleClose(id, cm)
		}
		var pe *comm.PanicError
		if errors.As(handlerErr, &pe) {
			// Raise it again inside Call, which names it as it names a
			// cell's panic (and knows an interrupt when it sees one).
			handlerErr = nil
			panic(pe.Value)
		}
	}
	out := &cellOutput{k: k, parent: msg}
	k.comms.TakePreempted()
	var cerr *eval.Error
	if c, ok := k.cfg.Interp.(eval.Caller); ok {
		endCell := k.procsForCell()
		cerr = c.Call(typ+" "+id, deliver, out)
		endCell()
	} else {
		func() {
			defer func() {
				if r := recover(); r != nil {
					cerr = &eval.Error{Name: "panic", Value: fmt.Sprint(r)}
				}
			}()
			deliver()
		}()
	}
	if handlerErr != nil {
		// An unknown target or comm (the comm_close the protocol asks for
		// has been sent) or an open handler that refused: the kernel's log.
		k.logf("%s: %v", typ, handlerErr)
	}
	if cerr == nil {
		return
	}
	if cerr.Name == eval.InterruptedName && k.comms.TakePreempted() {
		k.logf("%s %s: a newer message preempted the callback", typ, id)
		return
	}
	k.logf("%s %s: callback failed: %v", typ, id, cerr)
	tb := cerr.Traceback
	if tb == nil {
		tb = []string{cerr.Error()}
	}
	k.publish("error", msg, map[string]any{"ename": cerr.Name, "evalue": cerr.Value, "traceback": tb})
}

func marshalMetadata(md map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(md)
	return json.RawMessage(b), err
}

func unmarshalMetadata(raw json.RawMessage) (map[string]any, error) {
	var md map[string]any
	err := json.Unmarshal(raw, &md)
	return md, err
}
