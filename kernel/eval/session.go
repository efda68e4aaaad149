package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"io"
	"io/fs"
	"log"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cosmos72/gomacro/ast2"
	"github.com/cosmos72/gomacro/base"
	"github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/imports"
	xr "github.com/cosmos72/gomacro/xreflect"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/kernel/bindings"
	"github.com/veclab/veclab/kernel/display"
	"github.com/veclab/veclab/kernel/internal/hook"
)

// Options configure a Session. The zero value is usable.
type Options struct {
	// Capture says how output is captured (default CaptureGo).
	Capture Capture
	// MaxOutput is the number of bytes of stream output one cell may
	// send; the rest is dropped with a notice. 0 means 1 MiB; <0 no limit.
	MaxOutput int
	// Log receives the session's own diagnostics and output written when
	// no cell is running. Default: the real standard error.
	Log io.Writer
	// MemoryLimit, when > 0, is the heap size in bytes past which the
	// running cell is stopped with a MemoryError (memory.go); it is also
	// the Go runtime's soft memory limit while the session is open.
	// ParseMemoryLimit reads "4GiB" or "80%".
	MemoryLimit int64
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Capture < CaptureGo || o.Capture > CaptureNone {
		return fmt.Errorf("eval: unknown capture mode %d", int(o.Capture))
	}
	if o.MemoryLimit < 0 {
		return fmt.Errorf("eval: negative memory limit %d", o.MemoryLimit)
	}
	return nil
}

func (o Options) String() string {
	return fmt.Sprintf("eval.Options{Capture: %v, MaxOutput: %d, MemoryLimit: %d}", o.Capture, o.MaxOutput, o.MemoryLimit)
}

// DefaultMaxOutput is the per-cell stream output limit when Options.MaxOutput is 0.
const DefaultMaxOutput = 1 << 20

// Session is a gomacro interpreter session; it implements Interpreter.
type Session struct {
	ir      *fast.Interp
	sink    *sink
	gocap   *goCapture
	fdcap   *fdCapture
	log     io.Writer
	running atomic.Bool
	cell    atomic.Uint64 // sequence number of the running (or last) cell
	flushMu sync.Mutex    // one flush at a time (their acknowledgements share a channel)
	closed  bool
	oldHook hook.PublishFunc
	oldClr  hook.ClearFunc
	guard   guard         // cell contexts and the goroutines cells started
	site    *site         // where the running cell is (where.go); nil between cells
	histMu  sync.Mutex    // guards history
	history []*site       // earlier cells that compiled, newest last (where.go)
	memStop chan struct{} // closes the memory watchdog (nil: none)
	memKick chan struct{} // wakes it when a cell starts
	// evalRun is gomacro's Run for function calls on the goroutine that
	// evaluates cells (evalGoid); Interrupt sets its signal too.
	evalRun  atomic.Pointer[fast.Run]
	evalGoid uintptr
	memDone  func() // restores the runtime's memory limit
	// hidden are the names the session defines before the first cell
	// (fmt, check): %who and Variables leave them out.
	hidden map[string]bool
}

var (
	globalOnce sync.Once
	// active guards the process-wide state a session takes over.
	active atomic.Bool
)

// checkPanic is what check(err) raises: the error and the cell line of
// the call (0 when unknown).
type checkPanic struct {
	err  error
	line int
}

// exitPanic is what os.Exit and log.Fatal* raise inside a cell.
type exitPanic struct{ msg string }

func (e exitPanic) Error() string { return e.msg }

func setupGlobals() {
	// Switch off gomacro's metadata importer (cosmos72/gomacro
	// v0.0.0-20240506194242-2ff796e3da10 xreflect/importer.go, which asks
	// go/build and the Go toolchain for export data of every package a cell
	// meets, slowing start-up): with an empty GOROOT, go/build finds nothing
	// and xreflect uses reflection alone.
	build.Default.GOROOT = ""
	build.Default.IsDir = func(string) bool { return false }
	build.Default.ReadDir = func(string) ([]fs.FileInfo, error) { return nil, fs.ErrNotExist }
	build.Default.OpenFile = func(string) (io.ReadCloser, error) { return nil, fs.ErrNotExist }
	build.Default.HasSubdir = func(string, string) (string, bool) { return "", false }

	imports.Packages.Merge(bindings.Packages)

	exit := func(code int) {
		panic(exitPanic{fmt.Sprintf("os.Exit(%d) called: ending the kernel from a cell is disabled", code)})
	}
	override := func(pkg, name string, fn any) {
		if p, ok := imports.Packages[pkg]; ok && p.Binds != nil {
			p.Binds[name] = reflect.ValueOf(fn)
		}
	}
	override("time", "Sleep", sleep) // interruptible (guard.go)
	override("os", "Exit", exit)
	override("syscall", "Exit", exit)
	fatal := func(s string) {
		log.Print(s)
		panic(exitPanic{"log.Fatal called: " + strings.TrimSpace(s)})
	}
	override("log", "Fatal", func(v ...any) { fatal(fmt.Sprint(v...)) })
	override("log", "Fatalf", func(f string, v ...any) { fatal(fmt.Sprintf(f, v...)) })
	override("log", "Fatalln", func(v ...any) { fatal(fmt.Sprintln(v...)) })
}

// New starts a session. With CaptureFD it takes over fds 0–2 until Close;
// only one session may exist at a time (ErrBusy otherwise).
func New(opt Options) (*Session, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if !active.CompareAndSwap(false, true) {
		return nil, ErrBusy
	}
	globalOnce.Do(setupGlobals)
	limit := opt.MaxOutput
	if limit == 0 {
		limit = DefaultMaxOutput
	}
	logw := opt.Log
	if logw == nil {
		logw = os.Stderr
	}
	s := &Session{sink: &sink{limit: limit}, log: logw}
	var err error
	switch opt.Capture {
	case CaptureFD:
		s.fdcap, err = startFDCapture(s.sink)
		if err == nil && opt.Log == nil {
			s.log = s.fdcap.logFile()
		}
	case CaptureGo:
		s.gocap, err = startGoCapture(s.sink)
	}
	if err != nil {
		active.Store(false)
		return nil, err
	}
	s.sink.log = s.log

	ir := fast.New()
	ir.Comp.Universe.Importer = &xr.Importer{} // no go list -export
	g := &ir.Comp.Globals
	g.Options &^= base.OptModuleImport | base.OptShowPrompt | base.OptShowEval | base.OptShowEvalType
	// The debugger option makes each env keep its compile-time scope
	// (Env.DebugComp), in which a failed statement's operands are
	// evaluated again to name an index and a length (where.go). No
	// debugger runs: a "break" statement just goes on.
	g.Options |= base.OptDebugger
	ir.SetDebugger(noDebugger{})
	diag := stderrWriter{s.sink}
	g.Output.Stdout = diag
	g.Output.Stderr = diag
	s.ir = ir
	s.declareRuntime()
	current.Store(s)
	if opt.MemoryLimit > 0 {
		s.memDone = setMemoryLimit(opt.MemoryLimit)
		s.memStop, s.memKick = make(chan struct{}), make(chan struct{}, 1)
		go s.watchMemory(opt.MemoryLimit, s.memStop, s.memKick)
	}
	s.oldHook = hook.Set(s.publish)
	s.oldClr = hook.SetClear(s.clearOutput)
	if res := s.Eval(`import "fmt"`, Discard{}); res.Err != nil {
		s.Close()
		return nil, fmt.Errorf("eval: pre-importing fmt: %v", res.Err)
	}
	s.hidden = make(map[string]bool, len(ir.Comp.Binds))
	for n := range ir.Comp.Binds {
		s.hidden[n] = true
	}
	return s, nil
}

// ErrBusy is returned by New while another session is open.
var ErrBusy = errors.New("eval: another session is open in this process")

// stderrWriter sends gomacro's diagnostics to the running cell's stderr.
type stderrWriter struct{ s *sink }

func (w stderrWriter) Write(p []byte) (int, error) {
	// Redeclaring a name in a later cell (err, most often) is how
	// notebooks are written: gomacro's warning about it is noise.
	if bytes.HasPrefix(p, []byte("// warning: redefined identifier: ")) && bytes.Count(p, []byte("\n")) <= 1 {
		return len(p), nil
	}
	w.s.emit("stderr", p)
	return len(p), nil
}

func (s *Session) publish(data map[string]any, id string, update, transient bool) {
	s.sink.mu.Lock()
	out := s.sink.out
	if transient && !update && id != "" {
		s.sink.transient = append(s.sink.transient, id)
	}
	s.sink.mu.Unlock()
	if out != nil {
		s.flush() // what the cell printed before comes first, as in ipykernel
		out.Display(limitBundle(Bundle(data)), id, update)
	}
}

// clearOutput asks the running cell's Output to clear what it has shown
// (display.ClearOutput), after what the cell printed before the call.
func (s *Session) clearOutput(wait bool) {
	s.sink.mu.Lock()
	out := s.sink.out
	s.sink.mu.Unlock()
	if c, ok := out.(Clearer); ok {
		s.flush()
		c.ClearOutput(wait)
	}
}

// removeTransient takes away the transient displays (display.Progress)
// the cell showed, when out can (Remover).
func (s *Session) removeTransient(out Output) {
	s.sink.mu.Lock()
	ids := s.sink.transient
	s.sink.transient = nil
	s.sink.mu.Unlock()
	if r, ok := out.(Remover); ok && len(ids) > 0 {
		r.RemoveDisplays(ids)
	}
}

// Flush delivers everything written to the captured stdout and stderr so
// far to the running cell's Output before it returns. The kernel calls it
// before a comm message leaves, so that what a cell printed before it
// changed a widget (an Output widget's msg_id, say) reaches the front end
// first, as it does before a display.
func (s *Session) Flush() { s.flush() }

// flush waits until everything written to the captured stdout and
// stderr so far has been delivered.
func (s *Session) flush() {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	switch {
	case s.fdcap != nil:
		s.fdcap.flush()
	case s.gocap != nil:
		s.gocap.flush()
	}
}

// Log returns where the session's host writes its own diagnostics (with
// CaptureFD, a duplicate of the original standard error).
func (s *Session) Log() io.Writer { return s.log }

// Interrupt stops the running cell: its context (engine.Context, which
// the compiled lab and engine consult) is cancelled, interpreted loops and
// blocks stop at once, as do time.Sleep, selects and receive statements,
// in the cell and in the goroutines it started. A compiled call that does
// not take a context runs to its end first (the session then prints a
// notice). With no cell running, Interrupt stops the goroutines earlier
// cells left running.
func (s *Session) Interrupt() { s.stopWith(errInterrupt) }

// stopWith stops the running cell (or the goroutines cells left) with cause.
func (s *Session) stopWith(cause error) {
	running, n := s.guard.stop(cause)
	if !running {
		if n > 0 {
			fmt.Fprintf(s.log, "veclab eval: interrupt with no cell running: stopping %d goroutine(s) cells left running\n", n)
		}
		return
	}
	cell := s.cell.Load()
	s.ir.Interrupt(os.Interrupt)
	if r := s.evalRun.Load(); r != nil {
		r.Signals.Async = base.SigInterrupt // loops in functions the cell called
	}
	time.AfterFunc(time.Second, func() {
		if s.running.Load() && s.cell.Load() == cell {
			s.sink.emit("stderr", []byte("[veclab: interrupt requested: a compiled call that does not take the interrupt runs to its end first; interpreted loops, time.Sleep, selects and index builds stop at once]\n"))
		}
	})
}

// Close restores what the session took over. The session is unusable after.
func (s *Session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	hook.Set(s.oldHook)
	hook.SetClear(s.oldClr)
	if s.fdcap != nil {
		s.fdcap.close()
	}
	if s.gocap != nil {
		s.gocap.close()
	}
	s.sink.set(nil)
	if s.memStop != nil {
		close(s.memStop)
		s.memDone()
	}
	s.guard.stop(errors.New("the session is closed"))
	current.CompareAndSwap(s, nil)
	engine.SetContext(nil)
	active.Store(false)
	return nil
}

// Eval runs one cell.
func (s *Session) Eval(code string, out Output) (res Result) {
	if s.closed {
		return Result{Err: &Error{Name: "closed", Value: "the session is closed"}}
	}
	pieces, merr := splitMagics(code)
	if merr != nil {
		return Result{Err: merr}
	}
	shown := code
	vals, types, err := s.asCell(code, out, func() ([]xr.Value, []xr.Type, *Error) {
		if pieces != nil {
			var (
				vals  []xr.Value
				types []xr.Type
				err   *Error
			)
			vals, types, shown, err = s.runPieces(pieces)
			return vals, types, err
		}
		return s.run(code)
	})
	if err != nil {
		return Result{Err: err}
	}
	return Result{Value: s.render(shown, vals, types)}
}

// Call runs fn as a cell runs (it implements [Caller]): its output goes to
// out, it runs under a fresh cell context that Interrupt cancels (loops in
// the interpreted functions fn calls stop too), and a panic in fn, a
// goroutine panic, the memory limit or an interrupt becomes the returned
// error instead of ending the process. The kernel runs comm callbacks
// (widget events) with it. label names fn in diagnostics.
func (s *Session) Call(label string, fn func(), out Output) *Error {
	if s.closed {
		return &Error{Name: "closed", Value: "the session is closed"}
	}
	if fn == nil {
		return &Error{Name: "error", Value: "eval: Call with a nil function"}
	}
	_, _, err := s.asCell(label, out, func() (_ []xr.Value, _ []xr.Type, eerr *Error) {
		// The interpreted functions fn calls run on this goroutine's
		// gomacro Run (asCell bound it): its current env, if a panic
		// leaves a new one, is where (where.go).
		run := s.evalRun.Load()
		var saved *fast.Env
		if run != nil {
			saved = run.CurrEnv
		}
		defer func() {
			var inner *fast.Env
			if run != nil {
				inner, run.CurrEnv = run.CurrEnv, saved
			}
			if r := recover(); r != nil {
				eerr = classify(r, "")
				if runtimePanic(r) && inner != saved {
					safely(func() { placeCallback(eerr, r, s.earlier(), inner) })
				}
			}
		}()
		fn()
		return nil, nil, nil
	})
	return err
}

// asCell runs body as a cell: output to out, a new cell context, the
// interrupt, goroutine and memory guards, then the flush of everything the
// cell wrote and the removal of its transient displays.
func (s *Session) asCell(code string, out Output, body func() ([]xr.Value, []xr.Type, *Error)) (vals []xr.Value, types []xr.Type, err *Error) {
	if out == nil {
		out = Discard{}
	}
	s.sink.set(out)
	hook.StartCell()
	var stop chan struct{}
	if s.fdcap != nil {
		stop = make(chan struct{})
		go s.fdcap.watchStdin(out, stop)
	}
	for _, l := range s.guard.takeLate() {
		s.sink.emit("stderr", []byte(l))
	}
	s.bindEvalRun()
	env := s.ir.PrepareEnv()
	env.Run.Signals.Async = base.SigNone // drop an interrupt that arrived between cells
	if r := s.evalRun.Load(); r != nil {
		r.Signals.Async = base.SigNone
	}
	seq := s.cell.Add(1)
	cell := s.guard.startCell(seq, code)
	if s.memKick != nil {
		select {
		case s.memKick <- struct{}{}:
		default:
		}
	}
	s.running.Store(true)
	vals, types, err = body()
	s.running.Store(false)
	failed, stopped, late := s.guard.endCell()
	err = cellError(cell, err, failed, vals)
	if err != nil && err.Name == "MemoryError" {
		vals = nil
		runtime.GC() // what the stopped cell held is garbage now: give it back
		debug.FreeOSMemory()
	}
	if err == nil && env.Run.Signals.Async == base.SigInterrupt {
		// gomacro checks for signals in loops and statement blocks, not
		// between a cell's top-level calls: an interrupt that came while
		// the last of them ran stopped nothing. Report it, so a "run all"
		// stops here.
		err = interrupted("the interrupt arrived while a compiled call ran; the cell ran to its end before it could stop")
	}
	env.Run.Signals.Async = base.SigNone
	if stopped > 0 {
		s.sink.emit("stderr", []byte(fmt.Sprintf("[veclab: the interrupt also stopped %d goroutine(s) this cell started]\n", stopped)))
	}
	for _, l := range late {
		s.sink.emit("stderr", []byte(l))
	}
	if stop != nil {
		close(stop)
		s.fdcap.endCell()
	}
	s.flush()
	s.removeTransient(out)
	return vals, types, err
}

func (s *Session) run(code string) (vals []xr.Value, types []xr.Type, eerr *Error) {
	var (
		st      *site
		f       fault
		running bool
	)
	defer func() {
		s.site = nil
		if r := recover(); r != nil {
			eerr = failed(r, code, st, &f, running)
		}
	}()
	if strings.TrimSpace(code) == "" {
		return nil, nil, nil
	}
	var e *fast.Expr
	e, st = s.compile(code)
	s.site, running = st, true
	vals, types = s.runExpr(e, st, &f)
	return vals, types, nil
}

// compile parses, rewrites and compiles code (a cell, or a piece of one
// that a magic runs), and remembers it: what it defines may fail in a
// later cell. Errors panic, as gomacro's do.
func (s *Session) compile(code string) (*fast.Expr, *site) {
	form := s.ir.Parse(code)
	st := &site{code: code, seq: s.cell.Load()}
	form = s.rewrite(form, code, st)
	e := s.ir.CompileAst(form)
	s.remember(st)
	return e, st
}

// failed is the Error of a panic r while code was compiled (running
// false) or ran (at st, where f says): a runtime panic names its cell
// line.
func failed(r any, code string, st *site, f *fault, running bool) *Error {
	e := classify(r, code)
	if running && runtimePanic(r) {
		safely(func() { placeRuntime(e, r, st, f) })
	}
	return e
}

// runtimePanic reports whether a panic of a running cell is one to place
// at its cell line: not an interrupt, an exit or a check (which names its
// own line).
func runtimePanic(r any) bool {
	switch r.(type) {
	case stopPanic, base.Signal, exitPanic, checkPanic:
		return false
	}
	return true
}

// rewrite applies the rewriter (rewrite.go) to a parsed cell: in place,
// except where statements are added at the top level of the cell. It
// records the cell's units (where.go) in st.
func (s *Session) rewrite(form ast2.Ast, code string, st *site) ast2.Ast {
	if form == nil {
		return nil
	}
	fset := s.ir.Comp.Globals.Fileset
	rw := &rewriter{next: &s.guard.tmp, line: func(p token.Pos) int {
		// The byte offset in the parsed cell, whatever line gomacro's
		// file set starts it at.
		off := fset.Position(p).Offset
		if !p.IsValid() || off < 0 || off > len(code) {
			return 0
		}
		return strings.Count(code[:off], "\n") + 1
	}}
	var out []ast.Node
	top := false
	for _, n := range ast2.ToNodes(form) {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			// A cell that is (or ends with) a receive shows the value: wait
			// interruptibly first, then receive it from the holding channel.
			for _, x := range rw.stmts([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: "_", NamePos: u.Pos()}}, TokPos: u.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{u}}})[:2] {
				out = append(out, x)
			}
			out = append(out, u)
			top = true
			continue
		}
		st, ok := n.(ast.Stmt)
		if !ok {
			rw.node(n)
			out = append(out, n)
			continue
		}
		list := rw.stmts([]ast.Stmt{st})
		if len(list) != 1 || list[0] != st {
			top = true
		}
		for _, x := range list {
			out = append(out, x)
		}
	}
	if len(out) > 0 && out[0].Pos().IsValid() {
		if f := fset.File(out[0].Pos()); f != nil {
			st.file = f.File
		}
	}
	out, marked := markUnits(st, out, rw.line)
	st.nodes = out
	switch {
	case !top && !marked:
		return form
	case len(out) == 1:
		return ast2.ToAst(out[0])
	}
	return ast2.NodeSlice{X: out}
}

var (
	posRE    = regexp.MustCompile(`(?:^|[\s(])(?:cell:|[\w./-]*\.go:)?(\d+):(\d+): `)
	importRE = regexp.MustCompile(`import "([^"]+)"|package "?([\w./-]+)"?`)
)

// classify turns a recovered panic into an Error with a traceback that
// points at the cell line when gomacro reported one.
func classify(r any, code string) *Error {
	e := &Error{}
	switch v := r.(type) {
	case stopPanic:
		return interrupted("")
	case base.Signal:
		if v == base.SigInterrupt {
			return interrupted("")
		} else {
			e.Name, e.Value = "signal", v.String()
		}
	case exitPanic:
		e.Name, e.Value = "exit", v.msg
	case checkPanic:
		e.Name, e.Value = "error", v.err.Error()
		e.Traceback = []string{e.Name + ": " + e.Value}
		if lines := strings.Split(code, "\n"); v.line >= 1 && v.line <= len(lines) {
			e.Traceback = append(e.Traceback, fmt.Sprintf("cell line %d:", v.line), "    "+lines[v.line-1])
		}
		return e
	case runtime.Error:
		e.Name, e.Value = "runtime error", strings.TrimPrefix(v.Error(), "runtime error: ")
	case error:
		e.Name, e.Value = "error", v.Error()
		if isCompileError(v) {
			e.Name = "compile error"
		}
	default:
		e.Name, e.Value = "panic", fmt.Sprint(v)
	}
	if e.Name == "compile error" || e.Name == "error" { // never rewrite a cell's own panic text
		e.Value = strings.ReplaceAll(cleanImportError(e.Value), "repl.go:", "cell:")
	}
	e.Traceback = []string{e.Name + ": " + e.Value}
	if m := posRE.FindStringSubmatch(e.Value); m != nil {
		line, _ := strconv.Atoi(m[1])
		lines := strings.Split(code, "\n")
		if line >= 1 && line <= len(lines) {
			col, _ := strconv.Atoi(m[2])
			e.Traceback = append(e.Traceback,
				fmt.Sprintf("cell line %d:", line),
				"    "+lines[line-1],
				"    "+strings.Repeat(" ", max(col-1, 0))+"^")
		}
	}
	return e
}

func isCompileError(err error) bool {
	t := reflect.TypeOf(err).String()
	return strings.Contains(t, "RuntimeError") || strings.Contains(t, "scanner.Error")
}

// cleanImportError rewrites gomacro's failure to import an unbound package
// (which mentions module mode and host paths) into a message that names
// the package and what can be imported.
func cleanImportError(msg string) string {
	if !strings.Contains(msg, "import") || !(strings.Contains(msg, "plugin") || strings.Contains(msg, "module") ||
		strings.Contains(msg, "GOPATH") || strings.Contains(msg, "packages.Load") || strings.Contains(msg, "go get") ||
		strings.Contains(msg, "unable to")) {
		return msg
	}
	pkg := "the package"
	if m := importRE.FindStringSubmatch(msg); m != nil {
		pkg = strconv.Quote(m[1] + m[2])
	}
	return "cannot import " + pkg + ": it has no binding in this kernel. Cells can import the standard library and " +
		strings.Join(BoundPackages(), ", ") + " (packages are never downloaded or built)"
}

// BoundPackages lists the non-standard packages cells can import.
func BoundPackages() []string {
	var ps []string
	for p := range bindings.Packages {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// render returns the bundle of the cell's last expression, or nil.
func (s *Session) render(code string, vals []xr.Value, types []xr.Type) Bundle {
	var shown []any
	for _, v := range vals {
		if !v.IsValid() {
			continue
		}
		rv := v.ReflectValue()
		if !rv.IsValid() || !rv.CanInterface() {
			continue
		}
		shown = append(shown, rv.Interface())
	}
	if len(shown) == 0 {
		return nil
	}
	// A trailing nil error is noise: (n, nil) from fmt.Println, (v, nil)
	// from a call that succeeded.
	if len(shown) > 1 && len(types) == len(vals) {
		last := vals[len(vals)-1].ReflectValue()
		if last.Kind() == reflect.Interface && last.IsNil() || shown[len(shown)-1] == nil {
			shown = shown[:len(shown)-1]
		}
	}
	if isPrintCall(code) {
		return nil
	}
	// A lone nil (a nil error, say) shows nothing, as None does in IPython.
	if len(shown) == 1 && shown[0] == nil {
		return nil
	}
	if len(shown) == 1 {
		return limitBundle(limitText(display.Render(shown[0])))
	}
	parts := make([]string, len(shown))
	for i, v := range shown {
		parts[i] = display.Text(v)
	}
	return limitText(Bundle{display.MIMEText: "(" + strings.Join(parts, ", ") + ")"})
}

// MaxValueText is the most text/plain a cell's value shows; the rest is
// cut with a notice (a big slice or struct printed whole is useless).
const MaxValueText = 16 << 10

// MaxBundle is the largest display (all its MIME types together) sent to
// the front end; a bigger one keeps only its text/plain, with a notice.
const MaxBundle = 16 << 20

func limitBundle(b Bundle) Bundle {
	size := 0
	for _, v := range b {
		switch x := v.(type) {
		case string:
			size += len(x)
		case []byte:
			size += len(x)
		case json.RawMessage:
			size += len(x)
		}
	}
	if size <= MaxBundle {
		return b
	}
	kinds := make([]string, 0, len(b))
	for k := range b {
		if k != display.MIMEText {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	text, _ := b[display.MIMEText].(string)
	return limitText(Bundle{display.MIMEText: text + fmt.Sprintf("\n[veclab: display of %d bytes (%s) not sent: the limit is %d bytes]",
		size, strings.Join(kinds, ", "), MaxBundle)})
}

func limitText(b Bundle) Bundle {
	t, ok := b[display.MIMEText].(string)
	if !ok || len(t) <= MaxValueText {
		return b
	}
	cut := MaxValueText
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	b[display.MIMEText] = t[:cut] + fmt.Sprintf("… [veclab: %d more bytes of this value not shown]", len(t)-cut)
	return b
}

var printRE = regexp.MustCompile(`^(fmt\.(Print|Println|Printf|Fprint|Fprintln|Fprintf)|print|println)\(`)

// isPrintCall reports whether the last statement of code is a print call,
// whose (n, err) result is not worth showing.
func isPrintCall(code string) bool {
	lines := strings.Split(code, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		// Walk up to the first line of the statement: continuation lines
		// follow a line ending in "(" or "," or start with ")".
		for i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if strings.HasPrefix(l, ")") || strings.HasSuffix(prev, "(") || strings.HasSuffix(prev, ",") {
				i--
				l = prev
				continue
			}
			break
		}
		return printRE.MatchString(l)
	}
	return false
}
