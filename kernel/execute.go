package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

type executeRequest struct {
	Code         string `json:"code"`
	Silent       bool   `json:"silent"`
	StoreHistory *bool  `json:"store_history"`
	AllowStdin   bool   `json:"allow_stdin"`
	StopOnError  bool   `json:"stop_on_error"`
	// UserExpressions are evaluated after a cell that succeeded, each as
	// a cell of its own, and returned by name as mime bundles.
	UserExpressions map[string]string `json:"user_expressions"`
}

func (k *kernel) execute(sock zmq4.Socket, msg *wire.Message) {
	var req executeRequest
	if err := json.Unmarshal(msg.Content, &req); err != nil {
		k.logf("execute_request: bad content: %v", err)
		k.reply(sock, msg, "execute_reply", map[string]any{"status": "error", "ename": "bad request",
			"evalue": err.Error(), "traceback": []string{err.Error()}, "execution_count": k.execCount})
		return
	}
	// Jupyter's stop_on_error: requests queued before a failed cell (sent
	// before it failed) are aborted, not run — as ipykernel does.
	if sent, err := time.Parse(time.RFC3339Nano, msg.Header.Date); err == nil && sent.Before(k.abortBefore) {
		k.reply(sock, msg, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.execCount})
		return
	}
	if !req.Silent && (req.StoreHistory == nil || *req.StoreHistory) {
		k.execCount++
	}
	count := k.execCount
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	if store {
		if err := k.hist.AddInput(count, req.Code); err != nil {
			k.logf("%v", err)
		}
	}
	if !req.Silent {
		k.publish("execute_input", msg, map[string]any{"code": req.Code, "execution_count": count})
	}
	if expr, ok := eval.PagerQuery(req.Code); ok {
		k.page(sock, msg, expr, count)
		return
	}
	out := &cellOutput{k: k, parent: msg, silent: req.Silent, allowStdin: req.AllowStdin}
	endCell := k.procsForCell()
	res := k.cfg.Interp.Eval(req.Code, out)
	endCell()
	if res.Err != nil {
		e := res.Err
		tb := e.Traceback
		if tb == nil {
			tb = []string{e.Error()}
		}
		if !req.Silent {
			k.publish("error", msg, map[string]any{"ename": e.Name, "evalue": e.Value, "traceback": tb})
		}
		k.reply(sock, msg, "execute_reply", map[string]any{"status": "error", "execution_count": count,
			"ename": e.Name, "evalue": e.Value, "traceback": tb})
		if req.StopOnError {
			k.abortBefore = time.Now()
		}
		return
	}
	if text, ok := res.Value["text/plain"].(string); ok && store {
		if err := k.hist.AddOutput(count, text); err != nil {
			k.logf("%v", err)
		}
	}
	if res.Value != nil && !req.Silent {
		k.publish("execute_result", msg, map[string]any{"execution_count": count, "data": res.Value, "metadata": map[string]any{}})
	}
	k.reply(sock, msg, "execute_reply", map[string]any{"status": "ok", "execution_count": count,
		"user_expressions": k.userExpressions(req.UserExpressions), "payload": []any{}})
}

// page answers an inspection cell (`x?`, eval.PagerQuery) as IPython
// does: the documentation of expr as an execute_reply payload with source
// "page", which front ends show in their pager (JupyterLab: below the
// cell); an unknown name prints a line saying so.
func (k *kernel) page(sock zmq4.Socket, msg *wire.Message, expr string, count int) {
	payload := []any{}
	if data, found := k.cfg.Interp.Inspect(expr, len(expr)); found && len(data) > 0 {
		payload = append(payload, map[string]any{"source": "page", "data": data, "start": 0})
	} else {
		k.publish("stream", msg, map[string]any{"name": "stdout", "text": "Object `" + expr + "` not found.\n"})
	}
	k.reply(sock, msg, "execute_reply", map[string]any{"status": "ok", "execution_count": count,
		"user_expressions": map[string]any{}, "payload": payload})
}

// userExpressions evaluates an execute_request's user_expressions (in
// name order, so that side effects are reproducible) as ipykernel does:
// {status: ok, data, metadata} or {status: error, ename, evalue, traceback}.
func (k *kernel) userExpressions(exprs map[string]string) map[string]any {
	out := map[string]any{}
	names := make([]string, 0, len(exprs))
	for name := range exprs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := k.cfg.Interp.Eval(exprs[name], eval.Discard{})
		if r.Err != nil {
			tb := r.Err.Traceback
			if tb == nil {
				tb = []string{r.Err.Error()}
			}
			out[name] = map[string]any{"status": "error", "ename": r.Err.Name, "evalue": r.Err.Value, "traceback": tb}
			continue
		}
		data := r.Value
		if data == nil {
			data = eval.Bundle{}
		}
		out[name] = map[string]any{"status": "ok", "data": data, "metadata": map[string]any{}}
	}
	return out
}

// cellRaiseAfter is how long a cell runs on the idle P before it gets all
// of them: a trivial cell ends first and pays for no GOMAXPROCS change
// (each is a stop-the-world, about 0.1 ms here).
const cellRaiseAfter = 2 * time.Millisecond

// procsForCell gives a cell that runs longer than cellRaiseAfter the
// GOMAXPROCS the process had (Config.IdleOnOneP); the returned func, called
// when the cell ends, goes back to one P.
func (k *kernel) procsForCell() (end func()) {
	if k.cellProcs <= 1 {
		return func() {}
	}
	var (
		mu      sync.Mutex
		running = true
		raised  bool
	)
	t := time.AfterFunc(cellRaiseAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		if running {
			runtime.GOMAXPROCS(k.cellProcs)
			raised = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		running = false
		if raised {
			runtime.GOMAXPROCS(1)
		}
	}
}

// cellOutput publishes what a cell produces on IOPub, as children of the
// execute_request, and asks for standard input on the stdin socket. It
// keeps the cell's outputs as a front end shows them (log), so that it can
// take displays away again (eval.Remover): Jupyter has no message that
// removes one output, so it sends clear_output and then the outputs it
// keeps, in order, displays with their display ids (a later
// update_display_data still finds them).
type cellOutput struct {
	k          *kernel
	parent     *wire.Message
	silent     bool
	allowStdin bool
	mu         sync.Mutex    // orders publication with log changes
	log        eval.Recorder // the cell's outputs, guarded by mu
}

func (o *cellOutput) Stream(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log.Stream(name, text)
	o.publishStream(name, text)
}

func (o *cellOutput) publishStream(name, text string) {
	o.k.publish("stream", o.parent, map[string]any{"name": name, "text": text})
}

func (o *cellOutput) Display(data eval.Bundle, id string, update bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log.Display(data, id, update)
	o.publishDisplay(data, id, update)
}

func (o *cellOutput) publishDisplay(data eval.Bundle, id string, update bool) {
	content := map[string]any{"data": data, "metadata": map[string]any{}, "transient": map[string]any{}}
	if id != "" {
		content["transient"] = map[string]any{"display_id": id}
	}
	typ := "display_data"
	if update {
		typ = "update_display_data"
	}
	o.k.publish(typ, o.parent, content)
}

// RemoveDisplays implements eval.Remover: clear_output, then the outputs
// kept. With something to send again the clear waits for it (wait: true,
// so the front end does not flicker); with nothing, it clears at once (a
// waiting clear would wait for ever).
func (o *cellOutput) RemoveDisplays(ids []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log.RemoveDisplays(ids)
	o.k.publish("clear_output", o.parent, map[string]any{"wait": len(o.log.Items) > 0})
	for _, it := range o.log.Items {
		if it.Stream != "" {
			o.publishStream(it.Stream, it.Text)
			continue
		}
		o.publishDisplay(it.Data, it.ID, false)
	}
}

func (o *cellOutput) Input(prompt string, password bool) (string, error) {
	if !o.allowStdin {
		return "", errors.New("this front end does not allow standard input")
	}
	// Drop a stale reply, then ask.
	select {
	case <-o.k.inputReplies:
	default:
	}
	intr := o.k.interruptChan()
	o.k.reply(o.k.stdin, o.parent, "input_request", map[string]any{"prompt": prompt, "password": password})
	select {
	case r := <-o.k.inputReplies:
		var c struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(r.Content, &c); err != nil {
			return "", fmt.Errorf("input_reply: %w", err)
		}
		return c.Value, nil
	case <-intr:
		return "", errors.New("interrupted while waiting for input")
	}
}

// ClearOutput implements eval.Clearer (display.ClearOutput): clear_output
// on IOPub; the kept outputs start again from nothing, as the front end's.
func (o *cellOutput) ClearOutput(wait bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log.ClearOutput(wait)
	o.k.publish("clear_output", o.parent, map[string]any{"wait": wait})
}
