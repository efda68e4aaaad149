package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/history"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// Version is the kernel implementation version reported by kernel_info.
const Version = "0.1.0"

// Config configures Run.
type Config struct {
	// Conn is the parsed connection file (required).
	Conn *wire.Connection
	// Interp runs the cells (required). Run does not close it.
	Interp eval.Interpreter
	// Log receives the kernel's own log lines (default os.Stderr).
	Log io.Writer
	// HandleSIGINT makes SIGINT interrupt the running cell (default off
	// in tests; veclab kernel turns it on).
	HandleSIGINT bool
	// IdleOnOneP runs the process on one P (GOMAXPROCS 1) while no cell
	// runs, and with the GOMAXPROCS it had at Run's start once a cell has
	// run for cellRaiseAfter; engine.Cores() says that count throughout,
	// so the engine's "all cores" defaults are unaffected (a cell reading
	// runtime.GOMAXPROCS(0) in its first moments sees 1). Why: a request crosses three goroutines in zmq4 (connection
	// reader, socket queue, PUB writer); with idle Ps each hand-off wakes
	// another thread on another core, which costs more than the work
	// (here a trivial cell's round trip fell from 0.51 to 0.30 ms, measured
	// with a raw pyzmq client). Goroutines a cell leaves running share the
	// one P between cells. It changes a process-wide setting: veclab
	// kernel turns it on, in-process tests leave it off.
	IdleOnOneP bool
	// HistoryPath is the history file the kernel appends every executed
	// cell to and answers history_request from (kernel/internal/history:
	// JSON lines, one session per kernel process). "" keeps this
	// process's cells in memory only; a file that cannot be opened is
	// logged and memory used instead.
	HistoryPath string
	// ParentPID, when > 1, is the process that started the kernel (a
	// front end sets JPY_PARENT_PID): the kernel shuts down when it is
	// no longer the parent (the front end died without a shutdown_request,
	// and the kernel was reparented), as ipykernel's ParentPollerUnix does,
	// instead of living on as an orphan holding its ports.
	ParentPID int
	// Comms is the comm registry the kernel serves (default comm.Default,
	// where kernel/widget registers its targets). Run installs itself as
	// its transport until it returns.
	Comms *comm.Manager
}

// parentPoll is how often Run checks Config.ParentPID.
const parentPoll = time.Second

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Conn == nil {
		return errors.New("kernel: no connection file")
	}
	if c.Interp == nil {
		return errors.New("kernel: no interpreter")
	}
	return nil
}

type kernel struct {
	cfg     Config
	log     io.Writer
	signer  *wire.Signer
	session string

	shell, control, stdin, iopub, hb zmq4.Socket

	iopubMu sync.Mutex // serializes iopub sends

	execCount   int
	hist        *history.Store // executed cells, this session's and earlier ones
	abortBefore time.Time      // execute requests sent before this are aborted (stop_on_error)

	// interrupted is closed and replaced at each interrupt; a pending
	// input request waits on it.
	intMu       sync.Mutex
	interrupted chan struct{}

	inputReplies chan *wire.Message

	cellProcs int // GOMAXPROCS while a cell runs (0: never changed)

	comms *comm.Manager
	// parent is the shell request being handled (or the last one): the
	// parent of what cells and comm callbacks send through comms.
	parent atomic.Pointer[wire.Message]

	shutdown context.CancelFunc

	// evalMu is held by the shell goroutine while it handles a request
	// (the interpreter is not goroutine-safe); the debugger on the
	// control channel reads the session's variables only when it can take
	// it (debug.go).
	evalMu sync.Mutex
	dbg    *eval.Debugger
}

// Run serves the kernel until ctx is done or a shutdown_request arrives.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	signer, err := wire.NewSigner(cfg.Conn.SignatureScheme, cfg.Conn.Key)
	if err != nil {
		return err
	}
	k := &kernel{cfg: cfg, log: cfg.Log, signer: signer, session: wire.NewID(),
		interrupted: make(chan struct{}), inputReplies: make(chan *wire.Message, 1)}
	if k.log == nil {
		k.log = os.Stderr
	}
	k.dbg = newDebugger(cfg.Interp, &k.evalMu)
	k.comms = cfg.Comms
	if k.comms == nil {
		k.comms = comm.Default
	}
	defer k.comms.SetTransport(k.comms.SetTransport(commTransport{k}))
	k.hist = history.Memory()
	if cfg.HistoryPath != "" {
		h, err := history.Open(cfg.HistoryPath)
		if err != nil {
			k.logf("%v: keeping this session's history in memory only", err)
		} else {
			k.hist = h
			k.logf("history: session %d in %s", h.Session(), h.Path())
		}
	}
	defer k.hist.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k.shutdown = cancel
	if cfg.IdleOnOneP {
		// The engine's "all cores" defaults must see the cell's Ps, not
		// the parked one (a build starting in a cell's first moments).
		defer engine.SetCores(engine.SetCores(runtime.GOMAXPROCS(0)))
		k.cellProcs = runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(k.cellProcs)
	}

	zlog := log.New(k.log, "veclab kernel: zmq4: ", 0)
	k.shell = zmq4.NewRouter(ctx, zmq4.WithLogger(zlog))
	k.control = zmq4.NewRouter(ctx, zmq4.WithLogger(zlog))
	k.stdin = zmq4.NewRouter(ctx, zmq4.WithLogger(zlog))
	k.iopub = zmq4.NewPub(ctx, zmq4.WithLogger(zlog))
	k.hb = zmq4.NewRep(ctx, zmq4.WithLogger(zlog))
	socks := []struct {
		s    zmq4.Socket
		port int
		name string
	}{{k.shell, cfg.Conn.ShellPort, "shell"}, {k.control, cfg.Conn.ControlPort, "control"},
		{k.stdin, cfg.Conn.StdinPort, "stdin"}, {k.iopub, cfg.Conn.IOPubPort, "iopub"}, {k.hb, cfg.Conn.HBPort, "hb"}}
	defer func() {
		for _, s := range socks {
			s.s.Close()
		}
	}()
	for _, s := range socks {
		if err := s.s.Listen(bindEndpoint(cfg.Conn.Endpoint(s.port))); err != nil {
			return fmt.Errorf("kernel: %s socket on %s: %w", s.name, cfg.Conn.Endpoint(s.port), err)
		}
	}
	k.logf("listening (shell %s)", cfg.Conn.Endpoint(cfg.Conn.ShellPort))

	if cfg.HandleSIGINT {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt)
		defer signal.Stop(sigs)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-sigs:
					k.logf("SIGINT: interrupting")
					k.interrupt()
				}
			}
		}()
	}

	k.publish("status", nil, map[string]string{"execution_state": "starting"})

	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); k.heartbeat(ctx) }()
	go func() { defer wg.Done(); k.serve(ctx, k.control, "control") }()
	go func() { defer wg.Done(); k.serveStdin(ctx) }()
	go func() { defer wg.Done(); k.serveShell(ctx) }()
	if cfg.ParentPID > 1 {
		go k.watchParent(ctx, cfg.ParentPID)
	}
	<-ctx.Done()
	// A cell still running stops as on an interrupt (a compiled call that
	// takes no interrupt runs on; the process exit ends it), so that a
	// shutdown — shutdown_request, SIGTERM, the parent gone — does not
	// wait for it.
	k.interrupt()
	// Sockets close in the deferred loop too; the goroutines then see errors.
	for _, s := range socks {
		s.s.Close()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownGrace):
		k.logf("some socket goroutines did not stop in %v (a cell in a compiled call?): exiting without them", shutdownGrace)
	}
	return nil
}

// shutdownGrace is how long Run waits for its goroutines (one may be
// running a cell) once it is told to stop: well under the 2.5 s
// jupyter_client leaves between SIGTERM and SIGKILL (half its
// shutdown_wait_time of 5 s, jupyter_client/manager.py finish_shutdown).
const shutdownGrace = time.Second

// watchParent shuts the kernel down once pid is no longer its parent.
func (k *kernel) watchParent(ctx context.Context, pid int) {
	t := time.NewTicker(parentPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ppid := os.Getppid(); ppid != pid {
			k.logf("parent process %d is gone (parent now %d): shutting down", pid, ppid)
			k.shutdown()
			return
		}
	}
}

func (k *kernel) logf(format string, args ...any) {
	fmt.Fprintf(k.log, "veclab kernel: "+format+"\n", args...)
}

func (k *kernel) heartbeat(ctx context.Context) {
	for {
		msg, err := k.hb.Recv()
		if err != nil {
			if ctx.Err() == nil {
				k.logf("heartbeat: %v", err)
			}
			return
		}
		if err := k.hb.Send(msg); err != nil && ctx.Err() == nil {
			k.logf("heartbeat send: %v", err)
		}
	}
}

// serve reads requests on a ROUTER socket and handles them in order.
func (k *kernel) serve(ctx context.Context, sock zmq4.Socket, name string) {
	for {
		zm, err := sock.Recv()
		if err != nil {
			if ctx.Err() == nil {
				k.logf("%s: receive: %v", name, err)
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
			k.logf("%s: dropped a message: %v", name, err)
			continue
		}
		k.handle(ctx, sock, name, msg)
		if ctx.Err() != nil {
			return
		}
	}
}

func (k *kernel) serveStdin(ctx context.Context) {
	for {
		zm, err := k.stdin.Recv()
		if err != nil {
			if ctx.Err() == nil {
				k.logf("stdin: receive: %v", err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		msg, err := wire.Decode(zm.Frames, k.signer)
		if err != nil {
			k.logf("stdin: dropped a message: %v", err)
			continue
		}
		if msg.Header.MsgType != "input_reply" {
			k.logf("stdin: unexpected %s", msg.Header.MsgType)
			continue
		}
		select {
		case k.inputReplies <- msg:
		default:
			k.logf("stdin: input_reply with no pending request dropped")
		}
	}
}

func (k *kernel) send(sock zmq4.Socket, m *wire.Message) {
	frames, err := wire.Encode(m, k.signer)
	if err != nil {
		k.logf("encode %s: %v", m.Header.MsgType, err)
		return
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		k.logf("send %s: %v", m.Header.MsgType, err)
	}
}

func (k *kernel) reply(sock zmq4.Socket, parent *wire.Message, msgType string, content any) {
	m, err := wire.New(msgType, k.session, parent, content)
	if err != nil {
		k.logf("%v", err)
		return
	}
	k.send(sock, m)
}

// publish sends an IOPub message (topic = msg type), child of parent.
func (k *kernel) publish(msgType string, parent *wire.Message, content any) {
	m, err := wire.New(msgType, k.session, nil, content)
	if err != nil {
		k.logf("%v", err)
		return
	}
	if parent != nil {
		m.ParentHeader = parent.Header
	}
	m.Identities = [][]byte{[]byte(msgType)}
	k.iopubMu.Lock()
	defer k.iopubMu.Unlock()
	k.send(k.iopub, m)
}

// awaitSubscriber waits up to max for a first IOPub subscription, so the
// busy/idle status around the reply reaches the front end. A SUB socket's
// subscription arrives a moment after it connects ("slow joiner"), and a
// front end connects all its sockets at once then sends kernel_info at
// once: status published before the subscription is dropped by PUB.
// jupyter_client (KernelClient.wait_for_ready) treats a kernel_info_reply
// not followed by IOPub traffic within 0.2 s as "IOPub not connected" and
// starts over, so without this wait a start-up could take 0.2 s longer.
// (Protocol 5.5 solves the same problem with an iopub_welcome message on
// an XPUB socket, which zmq4 does not let the kernel send: see
// wire.ProtocolVersion.)
func (k *kernel) awaitSubscriber(ctx context.Context, max time.Duration) {
	t, ok := k.iopub.(zmq4.Topics)
	if !ok {
		return
	}
	deadline := time.Now().Add(max)
	for len(t.Topics()) == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

func (k *kernel) status(parent *wire.Message, state string) {
	k.publish("status", parent, map[string]string{"execution_state": state})
}

func (k *kernel) interrupt() {
	k.cfg.Interp.Interrupt()
	k.intMu.Lock()
	close(k.interrupted)
	k.interrupted = make(chan struct{})
	k.intMu.Unlock()
}

func (k *kernel) interruptChan() chan struct{} {
	k.intMu.Lock()
	defer k.intMu.Unlock()
	return k.interrupted
}

func (k *kernel) handle(ctx context.Context, sock zmq4.Socket, chanName string, msg *wire.Message) {
	typ := msg.Header.MsgType
	if typ == "kernel_info_request" {
		k.awaitSubscriber(ctx, 300*time.Millisecond)
	}
	k.status(msg, "busy")
	defer func() {
		if ctx.Err() == nil { // after a shutdown_request, idle was sent already
			k.status(msg, "idle")
		}
	}()
	if chanName == "shell" {
		// Released before idle is published: JupyterLab asks for the
		// variables (inspectVariables) on the IOPub messages of an
		// execute_request, idle the last, and must then find them
		// readable. The debugger keeps a copy for the requests that come
		// while a cell runs.
		k.evalMu.Lock()
		defer k.evalMu.Unlock()
		if typ == "execute_request" {
			defer k.dbg.Snapshot()
		}
	}
	switch typ {
	case "kernel_info_request":
		k.reply(sock, msg, "kernel_info_reply", kernelInfo(k.dbg.Enabled()))
	case "debug_request":
		k.debugRequest(sock, msg)
	case "execute_request":
		k.execute(sock, msg)
	case "complete_request":
		var req struct {
			Code      string `json:"code"`
			CursorPos int    `json:"cursor_pos"`
		}
		if !k.decode(msg, &req) {
			return
		}
		pos := byteOffset(req.Code, req.CursorPos)
		start, end, matches := k.cfg.Interp.Complete(req.Code, pos)
		if matches == nil {
			matches = []string{}
		}
		k.reply(sock, msg, "complete_reply", map[string]any{"status": "ok", "matches": matches,
			"cursor_start": runeOffset(req.Code, start), "cursor_end": runeOffset(req.Code, end), "metadata": map[string]any{}})
	case "inspect_request":
		var req struct {
			Code      string `json:"code"`
			CursorPos int    `json:"cursor_pos"`
		}
		if !k.decode(msg, &req) {
			return
		}
		data, found := k.cfg.Interp.Inspect(req.Code, byteOffset(req.Code, req.CursorPos))
		if data == nil {
			data = eval.Bundle{}
		}
		k.reply(sock, msg, "inspect_reply", map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
	case "is_complete_request":
		var req struct {
			Code string `json:"code"`
		}
		if !k.decode(msg, &req) {
			return
		}
		st, indent := k.cfg.Interp.IsComplete(req.Code)
		content := map[string]any{"status": st}
		if st == "incomplete" {
			content["indent"] = indent
		}
		k.reply(sock, msg, "is_complete_reply", content)
	case "history_request":
		var req historyRequest
		if !k.decode(msg, &req) {
			k.reply(sock, msg, "history_reply", map[string]any{"status": "error", "ename": "bad request",
				"evalue": "history_request content is not valid JSON", "traceback": []string{}, "history": []any{}})
			return
		}
		h, err := k.historyFor(req)
		if err != nil {
			k.reply(sock, msg, "history_reply", map[string]any{"status": "error", "ename": "bad request",
				"evalue": err.Error(), "traceback": []string{err.Error()}, "history": []any{}})
			return
		}
		k.reply(sock, msg, "history_reply", map[string]any{"status": "ok", "history": h})
	case "comm_info_request":
		var req struct {
			Target string `json:"target_name"`
		}
		k.decode(msg, &req)
		k.reply(sock, msg, "comm_info_reply", map[string]any{"status": "ok", "comms": k.comms.Info(req.Target)})
	case "comm_open", "comm_msg", "comm_close":
		k.commMessage(msg)
	case "interrupt_request":
		k.interrupt()
		k.reply(sock, msg, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		var req struct {
			Restart bool `json:"restart"`
		}
		k.decode(msg, &req)
		k.reply(sock, msg, "shutdown_reply", map[string]any{"status": "ok", "restart": req.Restart})
		k.logf("shutdown_request (restart=%v) on %s", req.Restart, chanName)
		k.status(msg, "idle")
		k.shutdown()
	default:
		k.logf("%s: unhandled message type %q", chanName, typ)
	}
}

func (k *kernel) decode(msg *wire.Message, v any) bool {
	if err := json.Unmarshal(msg.Content, v); err != nil {
		k.logf("%s: bad content: %v", msg.Header.MsgType, err)
		return false
	}
	return true
}

// kernelInfo is the kernel_info_reply's content; debug says whether the
// debugger's variables panel is served (debug.go).
func kernelInfo(debug bool) map[string]any {
	features := []string{}
	if debug {
		features = append(features, "debugger")
	}
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "veclab",
		"implementation_version": Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"banner": "veclab " + Version + " — Go cells (gomacro interpreter) over the compiled veclab lab and engine.\n" +
			"Import github.com/veclab/veclab/lab/... and .../kernel/display; values with HTML/SVG/Markdown/PNG methods render richly.",
		"help_links": []map[string]string{
			{"text": "veclab lab packages", "url": "https://pkg.go.dev/github.com/veclab/veclab/lab"},
			{"text": "Go language", "url": "https://go.dev/ref/spec"},
			{"text": "gomacro interpreter", "url": "https://github.com/cosmos72/gomacro"},
		},
		// JEP 92's optional features (kernel_info_reply's
		// supported_features), and the older flag that says the same of
		// the debugger.
		"supported_features": features,
		"debugger":           debug,
	}
}

// byteOffset converts a cursor in code points (protocol ≥ 5.2) to bytes.
func byteOffset(s string, runes int) int {
	if runes <= 0 {
		return 0
	}
	i := 0
	for n := 0; n < runes && i < len(s); n++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

func runeOffset(s string, bytes int) int {
	if bytes > len(s) {
		bytes = len(s)
	}
	if bytes < 0 {
		bytes = 0
	}
	return utf8.RuneCountInString(s[:bytes])
}

// Connection is a parsed Jupyter connection file.
type Connection = wire.Connection

// ReadConnectionFile reads and checks a connection file.
func ReadConnectionFile(path string) (*Connection, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := wire.ParseConnection(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// historyRequest is a history_request's content (messaging spec 5.3).
type historyRequest struct {
	Output  bool   `json:"output"`
	Raw     bool   `json:"raw"` // cells are kept as typed: raw and processed input are the same
	Access  string `json:"hist_access_type"`
	Session int    `json:"session"`
	Start   int    `json:"start"`
	Stop    int    `json:"stop"`
	N       int    `json:"n"`
	Pattern string `json:"pattern"`
	Unique  bool   `json:"unique"`
}

// historyFor answers a history_request from the history store: "tail" the
// last n cells over all sessions, "range" the lines [start, stop) of a
// session (0: this one, negative: counting back; stop 0: to the end),
// "search" the inputs matching a glob pattern (the last n; unique: each
// input once). Entries are [session, line, input], or with output
// [session, line, [input, output]] (output null when none was recorded).
func (k *kernel) historyFor(req historyRequest) ([][]any, error) {
	var es []history.Entry
	switch req.Access {
	case "tail":
		es = k.hist.Tail(req.N)
	case "range":
		es = k.hist.Range(req.Session, max(req.Start, 0), req.Stop)
	case "search":
		var err error
		if es, err = k.hist.Search(req.Pattern, req.N, req.Unique); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("history_request: hist_access_type %q: want range, tail or search", req.Access)
	}
	out := make([][]any, 0, len(es))
	for _, e := range es {
		if req.Output {
			var o any
			if e.Output != nil {
				o = *e.Output
			}
			out = append(out, []any{e.Session, e.Line, []any{e.Input, o}})
		} else {
			out = append(out, []any{e.Session, e.Line, e.Input})
		}
	}
	return out, nil
}

// DefaultHistoryPath is the user's history file: $VECLAB_HISTORY when
// set, else $XDG_DATA_HOME/veclab/history.jsonl (~/.local/share/…).
func DefaultHistoryPath() (string, error) {
	if p := os.Getenv("VECLAB_HISTORY"); p != "" {
		return p, nil
	}
	return history.DefaultPath()
}
