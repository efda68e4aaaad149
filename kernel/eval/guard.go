package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cosmos72/gomacro/base"
	"github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/gls"
	xr "github.com/cosmos72/gomacro/xreflect"

	"github.com/veclab/veclab/engine"
)

// current is the open session, for the bindings that stand in for blocking
// standard-library calls (time.Sleep): they are process-wide, as gomacro's
// import tables are.
var current atomic.Pointer[Session]

// Causes of a cell's context ending early; Eval names its error after them.
var (
	errInterrupt  = errors.New("interrupted")
	errGoroutine  = errors.New("a goroutine started by the cell panicked")
	errMemoryBase = errors.New("memory limit")
)

// stopPanic is what an interrupted wait (time.Sleep, a select, a channel
// receive) raises inside interpreted code: Eval turns it into the
// "Interrupted" error, a goroutine's wrapper ends the goroutine quietly.
type stopPanic struct{ cause error }

func (p stopPanic) Error() string { return "interrupted: " + p.cause.Error() }

// cellRun is one cell's cancellation state.
type cellRun struct {
	seq    uint64
	ctx    context.Context
	cancel context.CancelCauseFunc
	first  string // the cell's first line, for messages about its goroutines
}

// goroutine is a goroutine started by a cell's go statement.
type goroutine struct {
	cell   *cellRun
	where  string // the go statement
	ip     *fast.Interp
	ctx    context.Context
	cancel context.CancelCauseFunc
	asked  bool // an interrupt has asked it to stop (guarded by guard.mu)
}

// guard keeps the cells' contexts and the goroutines they started.
type guard struct {
	mu      sync.Mutex
	cell    *cellRun // the running cell, or the last one
	running bool
	gors    map[uintptr]*goroutine // by goroutine id
	late    []string               // goroutine panics after their cell ended, for the next cell's stderr
	failed  string                 // a goroutine panic while its cell ran: that cell's error
	stopped int                    // goroutines of the running cell its interrupt asked to stop
	tmp     int                    // counter of the rewrite's temporaries
}

// startCell opens the context of a new cell and makes it the ambient one
// (engine.Context) that the compiled lab and engine consult.
func (g *guard) startCell(seq uint64, code string) *cellRun {
	ctx, cancel := context.WithCancelCause(context.Background())
	first := strings.TrimSpace(code)
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = strings.TrimSpace(first[:i]) + " …"
	}
	c := &cellRun{seq: seq, ctx: ctx, cancel: cancel, first: first}
	g.mu.Lock()
	g.cell, g.running, g.failed, g.stopped = c, true, "", 0
	g.mu.Unlock()
	engine.SetContext(ctx)
	return c
}

// endCell marks the cell finished; its context stays live (not cancelled),
// since goroutines it started may go on using it.
func (g *guard) endCell() (failed string, stopped int, late []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running = false
	failed, stopped, late = g.failed, g.stopped, g.late
	g.late = nil
	return
}

// takeLate returns the reports of goroutines that panicked after their
// cell ended.
func (g *guard) takeLate() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	l := g.late
	g.late = nil
	return l
}

// stop ends the running cell with cause (its context, then its
// goroutines); with no cell running it ends every goroutine cells left
// running. It returns how many goroutines it asked to stop.
func (g *guard) stop(cause error) (cellRunning bool, goroutines int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running && g.cell != nil {
		g.cell.cancel(cause)
	}
	for _, gr := range g.gors {
		if g.running && gr.cell != g.cell {
			continue // an earlier cell's background work: not this cell's to stop
		}
		if gr.asked {
			continue // asked by an earlier interrupt of this cell
		}
		gr.asked = true
		gr.cancel(cause)
		if gr.ip != nil {
			gr.ip.Interrupt(os.Interrupt) // interpreted loops of that goroutine stop too
		}
		goroutines++
	}
	if g.running {
		// Counted when asked, not when each goroutine has unwound: the
		// cell itself may end before a goroutine sees its cancellation,
		// and the report would then undercount on a loaded machine.
		g.stopped += goroutines
	}
	return g.running, goroutines
}

// ctxOf returns the context a wait in the calling goroutine obeys: its
// own if a cell's go statement started it, else the running (or last)
// cell's.
func (g *guard) ctxOf() context.Context {
	id := gls.GoID()
	g.mu.Lock()
	defer g.mu.Unlock()
	if gr := g.gors[id]; gr != nil {
		return gr.ctx
	}
	if g.cell != nil {
		return g.cell.ctx
	}
	return context.Background()
}

func (g *guard) register(ip *fast.Interp, where string) *goroutine {
	g.mu.Lock()
	defer g.mu.Unlock()
	cell := g.cell
	parent := context.Background()
	if cell != nil {
		parent = cell.ctx
	}
	ctx, cancel := context.WithCancelCause(parent)
	gr := &goroutine{cell: cell, where: where, ip: ip, ctx: ctx, cancel: cancel}
	if g.gors == nil {
		g.gors = map[uintptr]*goroutine{}
	}
	g.gors[gls.GoID()] = gr
	return gr
}

// ended records how a cell's goroutine ended: r is what it panicked with
// (nil: it returned), line the cell line it failed at (" (cell line 3:
// …)", or "").
func (g *guard) ended(gr *goroutine, r any, stack, line string, log func(string)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.gors, gls.GoID())
	gr.cancel(nil)
	if r == nil {
		return
	}
	thisCell := g.running && gr.cell == g.cell
	if isStop(r) {
		return // counted by stop when it asked
	}
	msg := fmt.Sprintf("panic in a goroutine (%s): %s%s", gr.where, panicText(r), line)
	log(msg + "\n" + stack)
	if thisCell {
		if g.failed == "" {
			g.failed = msg
		}
		g.cell.cancel(errGoroutine)
		return
	}
	from := "an earlier cell"
	if gr.cell != nil && gr.cell.first != "" {
		from = fmt.Sprintf("the cell starting %q", gr.cell.first)
	}
	g.late = append(g.late, fmt.Sprintf("[veclab: %s, started by %s after it had finished; the kernel goes on]\n", msg, from))
}

// busy reports whether a cell or a goroutine a cell started is running.
func (g *guard) busy() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running || len(g.gors) > 0
}

// live lists the goroutines started by cells that are still running.
func (g *guard) live() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, gr := range g.gors {
		out = append(out, gr.where)
	}
	sort.Strings(out)
	return out
}

func isStop(r any) bool {
	switch v := r.(type) {
	case stopPanic:
		return true
	case base.Signal:
		return v == base.SigInterrupt
	}
	return false
}

func panicText(r any) string {
	switch v := r.(type) {
	case exitPanic:
		return v.msg
	case error:
		return v.Error()
	}
	return fmt.Sprint(r)
}

// declareRuntime declares in the interpreter the functions the rewritten
// cells call (rewrite.go).
func (s *Session) declareRuntime() {
	ir := s.ir
	tI := reflect.TypeOf((*any)(nil)).Elem()
	goType := reflect.FuncOf([]reflect.Type{tI, tI, tI, tI, tI}, []reflect.Type{tI}, false)
	ir.DeclEnvFunc(goName, fast.Function{Fun: s.goStmt, Type: ir.Comp.TypeOf(reflect.Zero(goType).Interface())})
	ir.DeclFunc(doneName, func() <-chan struct{} { return s.guard.ctxOf().Done() })
	ir.DeclFunc(stopName, func() { panic(stopPanic{context.Cause(s.guard.ctxOf())}) })
	ir.DeclFunc(waitName, s.wait)
	ir.DeclFunc(checkName, func(err error, line int) {
		if err != nil {
			panic(checkPanic{err: err, line: line})
		}
	})
	// check itself, for a call the rewriter does not see (check passed
	// as a value): the same failure without the line.
	ir.DeclFunc(CheckName, func(err error) {
		if err != nil {
			panic(checkPanic{err: err})
		}
	})
	// A call of an env function in an expression compiles only for the
	// signatures of gomacro's own builtins: func(xr.Value) xr.Value is
	// Env()'s, called with no argument (gomacro adds the interpreter).
	ir.DeclEnvFunc(bindName, fast.Function{Fun: func(ipv xr.Value) xr.Value {
		if ipv.IsValid() {
			r := runOf(ipv.Interface())
			if r != nil {
				r.Debugger = noDebugger{}
			}
			s.evalRun.Store(r)
		}
		return xr.ValueOf(0)
	}, Type: ir.Comp.TypeOf(func(any) any { return nil })})
	ir.DeclFunc(atName, func(k int) {
		if st := s.site; st != nil {
			st.cur = k
		}
	})
	// An interpreted function: calling it runs in a function env.
	ir.Eval("func " + bindName + "run() { " + bindName + "() }")
}

// runOf returns the gomacro Run (per-goroutine interpreter state, whose
// Signals.Async an interrupt sets) of the env an env function was called
// from. gomacro keeps it in Interp's unexported env field and offers no
// accessor (PrepareEnv would resize the env): read the field by
// reflection. TestEvalRunBinding fails if the field goes away.
func runOf(ipv any) *fast.Run {
	ip, ok := ipv.(*fast.Interp)
	if !ok || ip == nil {
		return nil
	}
	f := reflect.ValueOf(ip).Elem().FieldByName("env")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil
	}
	env := (*fast.Env)(unsafe.Pointer(f.Pointer()))
	return env.Run
}

// bindEvalRun finds the Run gomacro uses for interpreted function calls
// on the goroutine that evaluates cells: gomacro makes one per goroutine
// (the interpreter's own Run belongs to the goroutine that created it), and
// ir.Interrupt reaches only the latter, so a loop inside a function called
// from a cell on another goroutine (the kernel's shell goroutine) would
// not stop. A function call made on this goroutine passes its env to
// __veclab_bind, which records the Run.
func (s *Session) bindEvalRun() {
	id := gls.GoID()
	if s.evalRun.Load() != nil && s.evalGoid == id {
		return
	}
	s.evalRun.Store(nil)
	func() {
		defer func() { recover() }()
		s.ir.Eval(bindName + "run()")
	}()
	s.evalGoid = id
}

// goStmt is __veclab_go, run by gomacro's go statement in the new
// goroutine: it calls f with args (and spread as the variadic tail),
// recovering and reporting any panic. ipv is the interpreter bound to the
// goroutine (gomacro passes it to env functions), whose Interrupt stops
// that goroutine's interpreted loops.
func (s *Session) goStmt(f, args, spread, where, ipv any) any {
	ip, _ := ipv.(*fast.Interp)
	w, _ := where.(string)
	gr := s.guard.register(ip, w)
	// The interpreted function runs on this goroutine's gomacro Run: the
	// env a panic leaves there says which cell line failed (where.go).
	run := runOf(ip)
	var saved *fast.Env
	if run != nil {
		saved = run.CurrEnv
	}
	defer func() {
		r := recover()
		stack, line := "", ""
		if r != nil && !isStop(r) {
			stack = string(debug.Stack())
			if run != nil && run.CurrEnv != saved && gr.cell != nil {
				safely(func() { line = s.goroutineWhere(run.CurrEnv, gr.cell.seq) })
			}
		}
		s.guard.ended(gr, r, stack, line, func(m string) { fmt.Fprintf(s.log, "veclab eval: %s\n", m) })
	}()
	fv := reflect.ValueOf(f)
	if fv.Kind() != reflect.Func || fv.IsNil() {
		panic(fmt.Sprintf("go statement of a nil or non-function value (%T)", f))
	}
	list, _ := args.([]any)
	in, err := callArgs(fv.Type(), list, spread)
	if err != nil {
		panic(err.Error())
	}
	if spread != nil {
		fv.CallSlice(in)
	} else {
		fv.Call(in)
	}
	return nil
}

// callArgs converts a go statement's arguments (boxed as interface{}, so
// untyped constants took their default type) to f's parameter types.
func callArgs(ft reflect.Type, list []any, spread any) ([]reflect.Value, error) {
	n := len(list)
	if spread != nil {
		n++
	}
	if !ft.IsVariadic() && n != ft.NumIn() || ft.IsVariadic() && n < ft.NumIn()-1 {
		return nil, fmt.Errorf("go statement: %d arguments for a function of %d parameters", n, ft.NumIn())
	}
	in := make([]reflect.Value, 0, n)
	param := func(i int) reflect.Type {
		if ft.IsVariadic() && i >= ft.NumIn()-1 {
			if spread != nil && i == n-1 {
				return ft.In(ft.NumIn() - 1)
			}
			return ft.In(ft.NumIn() - 1).Elem()
		}
		return ft.In(i)
	}
	all := list
	if spread != nil {
		all = append(append([]any(nil), list...), spread)
	}
	for i, a := range all {
		t := param(i)
		v := reflect.ValueOf(a)
		switch {
		case !v.IsValid():
			v = reflect.Zero(t)
		case v.Type().AssignableTo(t):
		case v.Type().ConvertibleTo(t) && basicKind(v.Kind()) && basicKind(t.Kind()):
			v = v.Convert(t) // an untyped constant given its default type by the boxing
		default:
			return nil, fmt.Errorf("go statement: argument %d: cannot use %v as %v", i+1, v.Type(), t)
		}
		in = append(in, v)
	}
	return in, nil
}

func basicKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Complex128 || k == reflect.String
}

// wait is __veclab_wait(&c): it receives from the channel in c, or raises
// the interrupt, and replaces c by a channel that holds what was received
// (closed if c was), so the receive that follows gets the same value and
// ok at once.
func (s *Session) wait(p any) {
	pv := reflect.ValueOf(p)
	if pv.Kind() != reflect.Pointer || pv.Elem().Kind() != reflect.Chan {
		panic(fmt.Sprintf("veclab: internal: wait of %T", p))
	}
	cv := pv.Elem()
	ctx := s.guard.ctxOf()
	chosen, v, ok := reflect.Select([]reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: cv},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
	})
	if chosen == 1 {
		panic(stopPanic{context.Cause(ctx)})
	}
	held := reflect.MakeChan(reflect.ChanOf(reflect.BothDir, cv.Type().Elem()), 1)
	if ok {
		held.Send(v)
	} else {
		held.Close()
	}
	cv.Set(held)
}

// sleep stands in for time.Sleep in cells: it returns early, raising the
// interrupt, when the calling goroutine's context ends.
func sleep(d time.Duration) {
	s := current.Load()
	if s == nil || d <= 0 {
		time.Sleep(d)
		return
	}
	ctx := s.guard.ctxOf()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		panic(stopPanic{context.Cause(ctx)})
	}
}

// InterruptedName is the ename of a cell stopped by an interrupt (the
// issue's and this kernel's convention; ipykernel says KeyboardInterrupt).
const InterruptedName = "Interrupted"

func interrupted(detail string) *Error {
	v := "the cell was interrupted"
	if detail != "" {
		v += ": " + detail
	}
	return &Error{Name: InterruptedName, Value: v, Traceback: []string{InterruptedName + ": " + v}}
}

// cellError decides how a cell ended: a goroutine panic, the memory limit
// or an interrupt that cancelled its context come first (whatever the
// statements did after), then the cell's own error.
func cellError(cell *cellRun, err *Error, failed string, vals []xr.Value) *Error {
	if cell.ctx.Err() == nil {
		return err
	}
	cause := context.Cause(cell.ctx)
	switch {
	case errors.Is(cause, errGoroutine):
		return &Error{Name: "goroutine panic", Value: failed, Traceback: []string{"goroutine panic: " + failed}}
	case errors.Is(cause, errMemoryBase):
		return &Error{Name: "MemoryError", Value: cause.Error(), Traceback: []string{"MemoryError: " + cause.Error()}}
	}
	// What the interrupt stopped, when the cell's error or value says.
	detail := ""
	if err != nil && err.Name != InterruptedName && strings.Contains(err.Value, context.Canceled.Error()) {
		detail = err.Value
	}
	for _, v := range vals {
		if !v.IsValid() {
			continue
		}
		rv := v.ReflectValue()
		if rv.IsValid() && rv.CanInterface() {
			if e, ok := rv.Interface().(error); ok && errors.Is(e, context.Canceled) {
				detail = e.Error()
			}
		}
	}
	if err != nil && err.Name == InterruptedName && detail == "" {
		return err
	}
	return interrupted(detail)
}
