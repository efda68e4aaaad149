package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// client is a minimal Jupyter client over real zmq4 sockets.
type client struct {
	t                     testing.TB
	shell, control, stdin zmq4.Socket
	iopub, hb             zmq4.Socket
	signer                *wire.Signer
	session               string
	iopubCh               chan *wire.Message
	readyAttempts         int // kernel_info requests sent until IOPub showed their status
}

func freePorts(t testing.TB, n int) []int {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	return ports
}

// takenPorts, when set, is held by another listener: testConn's next
// connection puts the shell socket on it, as when another process takes
// a port between freePorts and the kernel's bind (TestStartKernelPortTaken).
var takenPorts chan int

// testConn is a loopback connection on free ports, signed with key.
func testConn(t testing.TB, key string) *wire.Connection {
	t.Helper()
	p := freePorts(t, 5)
	select {
	case p[0] = <-takenPorts:
	default:
	}
	return &wire.Connection{Transport: "tcp", IP: "127.0.0.1", ShellPort: p[0], ControlPort: p[1],
		IOPubPort: p[2], StdinPort: p[3], HBPort: p[4], SignatureScheme: "hmac-sha256", Key: key}
}

// startKernel runs a kernel with a fresh session and a connected client.
// freePorts closes its listeners before the kernel binds the ports, so
// another process (test.sh's other pass, a browser test) can take one in
// between: the kernel's Run then fails with EADDRINUSE, and startKernel
// starts it again on other ports (three tries), where it used to dial
// the missing socket for two minutes and fail with "connection refused".
func startKernel(t testing.TB, capture eval.Capture) (*client, chan error) {
	t.Helper()
	for try := 1; ; try++ {
		c, done, err := tryStartKernel(t, capture)
		if err == nil {
			return c, done
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 3 {
			t.Fatal(err)
		}
		t.Logf("try %d: %v; again on other ports", try, err)
	}
}

// tryStartKernel is one try of startKernel: an error when the kernel
// stopped before the client could connect (its error, wrapped).
func tryStartKernel(t testing.TB, capture eval.Capture) (*client, chan error, error) {
	t.Helper()
	conn := testConn(t, "test-key")
	sess, err := eval.New(eval.Options{Capture: capture})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stopped := make(chan struct{})
	listening := &listenWatch{w: &testLog{t}, ch: make(chan struct{})}
	go func() {
		done <- Run(ctx, Config{Conn: conn, Interp: sess, Log: listening})
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Error("kernel did not stop")
		}
		sess.Close()
	})
	signer, _ := wire.NewSigner("hmac-sha256", "test-key")
	id := zmq4.WithID(zmq4.SocketIdentity("client-" + wire.NewID()))
	c := &client{t: t, signer: signer, session: wire.NewID(), iopubCh: make(chan *wire.Message, 1000),
		shell: zmq4.NewDealer(ctx, id), control: zmq4.NewDealer(ctx, id), stdin: zmq4.NewDealer(ctx, id),
		iopub: zmq4.NewSub(ctx), hb: zmq4.NewReq(ctx)}
	// Dial only once the kernel has bound every socket: a port another
	// process holds would take the client's dial instead.
	select {
	case <-listening.ch:
	case kerr := <-done:
		sess.Close() // one session a process: the next try opens its own
		return nil, nil, fmt.Errorf("the kernel stopped before listening: %w", kerr)
	case <-time.After(30 * time.Second):
		return nil, nil, errors.New("the kernel did not listen within 30 s")
	}
	dial := func(s zmq4.Socket, port int) error {
		var err error
		for i := 0; i < 50; i++ {
			if err = s.Dial(conn.Endpoint(port)); err == nil {
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		return fmt.Errorf("dial %d: %w", port, err)
	}
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{c.shell, conn.ShellPort}, {c.control, conn.ControlPort}, {c.iopub, conn.IOPubPort}, {c.stdin, conn.StdinPort}, {c.hb, conn.HBPort}} {
		if err := dial(d.s, d.port); err != nil {
			return nil, nil, err
		}
	}
	c.iopub.SetOption(zmq4.OptionSubscribe, "")
	go func() {
		for {
			m, err := c.iopub.Recv()
			if err != nil {
				return
			}
			if msg, err := wire.Decode(m.Frames, signer); err == nil {
				c.iopubCh <- msg
			}
		}
	}()
	// Slow joiner: ask for kernel_info until IOPub shows its status.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.readyAttempts++
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.recv(c.shell)
		if c.waitIdle(id, 300*time.Millisecond) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("IOPub never delivered")
		}
	}
	return c, done, nil
}

type testLog struct{ t testing.TB }

// listenWatch passes the kernel's log on to w and closes ch at its
// "listening" line, which Run writes once every socket is bound.
type listenWatch struct {
	w    io.Writer
	ch   chan struct{}
	once sync.Once
}

func (l *listenWatch) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("veclab kernel: listening (")) {
		l.once.Do(func() { close(l.ch) })
	}
	return l.w.Write(p)
}

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (c *client) send(sock zmq4.Socket, typ string, content any) string {
	c.t.Helper()
	m, err := wire.New(typ, c.session, nil, content)
	if err != nil {
		c.t.Fatal(err)
	}
	frames, err := wire.Encode(m, c.signer)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return m.Header.MsgID
}

func (c *client) recv(sock zmq4.Socket) *wire.Message {
	c.t.Helper()
	ch := make(chan zmq4.Msg, 1)
	errc := make(chan error, 1)
	go func() {
		m, err := sock.Recv()
		if err != nil {
			errc <- err
			return
		}
		ch <- m
	}()
	select {
	case m := <-ch:
		msg, err := wire.Decode(m.Frames, c.signer)
		if err != nil {
			c.t.Fatal(err)
		}
		return msg
	case err := <-errc:
		c.t.Fatal(err)
	case <-time.After(20 * time.Second):
		c.t.Fatal("no reply in 20 s")
	}
	return nil
}

// waitIdle collects the IOPub messages of request id up to its idle status.
func (c *client) waitIdle(id string, d time.Duration) []*wire.Message {
	var got []*wire.Message
	timeout := time.After(d)
	for {
		select {
		case m := <-c.iopubCh:
			if m.ParentHeader.MsgID != id {
				continue
			}
			got = append(got, m)
			if m.Header.MsgType == "status" && strings.Contains(string(m.Content), `"idle"`) {
				return got
			}
		case <-timeout:
			return nil
		}
	}
}

func content(t *testing.T, m *wire.Message) map[string]any {
	var v map[string]any
	if err := json.Unmarshal(m.Content, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func types(ms []*wire.Message) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Header.MsgType)
	}
	return strings.Join(s, ",")
}

func (c *client) execute(code string, allowStdin bool) (*wire.Message, []*wire.Message) {
	id := c.send(c.shell, "execute_request", map[string]any{"code": code, "silent": false, "store_history": true,
		"user_expressions": map[string]any{}, "allow_stdin": allowStdin, "stop_on_error": true})
	reply := c.recv(c.shell)
	if reply.ParentHeader.MsgID != id {
		c.t.Fatalf("reply to %s, want %s", reply.ParentHeader.MsgID, id)
	}
	return reply, c.waitIdle(id, 10*time.Second)
}

func TestKernelProtocol(t *testing.T) {
	c, _ := startKernel(t, eval.CaptureGo)

	t.Run("user_expressions", func(t *testing.T) {
		c.send(c.shell, "execute_request", map[string]any{"code": "ue := 21", "silent": false, "store_history": true,
			"user_expressions": map[string]any{"double": "ue * 2", "bad": "nope + 1"}, "allow_stdin": false, "stop_on_error": true})
		r := content(t, c.recv(c.shell))
		ue, _ := r["user_expressions"].(map[string]any)
		d, _ := ue["double"].(map[string]any)
		b, _ := ue["bad"].(map[string]any)
		if r["status"] != "ok" || d["status"] != "ok" || d["data"].(map[string]any)["text/plain"] != "42" ||
			b["status"] != "error" || !strings.Contains(fmt.Sprint(b["evalue"]), "undefined identifier: nope") {
			t.Errorf("user_expressions: %v", r)
		}
	})

	t.Run("kernel_info", func(t *testing.T) {
		// On shell, and on control as protocol 5.5 adds.
		for _, ch := range []struct {
			name string
			sock zmq4.Socket
		}{{"shell", c.shell}, {"control", c.control}} {
			c.send(ch.sock, "kernel_info_request", map[string]any{})
			r := content(t, c.recv(ch.sock))
			li, _ := r["language_info"].(map[string]any)
			if r["status"] != "ok" || r["protocol_version"] != "5.4" || li["name"] != "go" || li["mimetype"] != "text/x-go" ||
				li["file_extension"] != ".go" || li["pygments_lexer"] != "go" || r["implementation"] != "veclab" ||
				fmt.Sprint(r["supported_features"]) != fmt.Sprint(wantFeatures) || r["debugger"] != (len(wantFeatures) > 0) {
				t.Errorf("kernel_info_reply on %s: %v", ch.name, r)
			}
		}
	})
	t.Run("magics", func(t *testing.T) {
		reply, io := c.execute("%timeit -n 5 -r 2 20 + 22", false)
		if got := types(io); got != "status,execute_input,stream,status" || content(t, reply)["status"] != "ok" {
			t.Fatalf("%%timeit: iopub %s, reply %v", got, content(t, reply))
		}
		// IPython's warning line comes first when one run took over 4
		// times the fastest (a loaded machine).
		if text, _ := content(t, io[2])["text"].(string); !regexp.MustCompile(`^(The slowest run took [0-9.]+ times longer than the fastest\. This could mean that an intermediate result is being cached\.\n)?[0-9.]+ [nµm]?s ± [0-9.]+ [nµm]?s per loop \(mean ± std\. dev\. of 2 runs, 5 loops each\)\n$`).MatchString(text) {
			t.Errorf("%%timeit printed %q", text)
		}
		_, io = c.execute("%time 20 + 22", false)
		if got := types(io); got != "status,execute_input,stream,execute_result,status" {
			t.Fatalf("%%time: iopub %s", got)
		}
		if text, _ := content(t, io[2])["text"].(string); !strings.HasPrefix(text, "CPU times: user ") || !strings.Contains(text, "\nWall time: ") {
			t.Errorf("%%time printed %q", text)
		}
		reply, io = c.execute("%prun f()", false)
		if r := content(t, reply); r["status"] != "error" || r["ename"] != "UsageError" || !strings.Contains(fmt.Sprint(r["evalue"]), "`%prun` not found") {
			t.Errorf("unknown magic: %v", r)
		}
		if got := types(io); got != "status,execute_input,error,status" {
			t.Errorf("unknown magic: iopub %s", got)
		}
	})
	t.Run("debugger variables", func(t *testing.T) {
		seq := 0
		debug := func(command string, args map[string]any) map[string]any {
			seq++
			c.send(c.control, "debug_request", map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
			r := c.recv(c.control)
			if r.Header.MsgType != "debug_reply" {
				t.Fatalf("%s: %s", command, r.Header.MsgType)
			}
			m := content(t, r)
			if m["command"] != command || m["request_seq"] != float64(seq) || m["type"] != "response" {
				t.Fatalf("%s: reply %v", command, m)
			}
			return m
		}
		info := debug("debugInfo", map[string]any{})
		if b := info["body"].(map[string]any); b["isStarted"] != false || fmt.Sprint(b["breakpoints"]) != "[]" || b["tmpFileSuffix"] != ".go" {
			t.Errorf("debugInfo before initialize: %v", info)
		}
		if r := debug("initialize", map[string]any{"clientID": "jupyterlab", "adapterID": "veclab"}); r["success"] != true {
			t.Fatalf("initialize: %v", r)
		}
		for _, cmd := range []string{"attach", "configurationDone"} {
			if r := debug(cmd, map[string]any{}); r["success"] != true {
				t.Errorf("%s: %v", cmd, r)
			}
		}
		if b := debug("debugInfo", map[string]any{})["body"].(map[string]any); b["isStarted"] != true {
			t.Errorf("debugInfo after initialize: %v", b)
		}
		c.execute("dbgCount := 42\ndbgName := \"gopher\"\ndbgVec := []float32{1, 2, 3}", false)
		vars := debug("inspectVariables", map[string]any{})["body"].(map[string]any)["variables"].([]any)
		got := map[string]string{}
		for _, v := range vars {
			m := v.(map[string]any)
			got[m["name"].(string)] = fmt.Sprintf("%v|%v|%v", m["type"], m["value"], m["variablesReference"])
		}
		for name, want := range map[string]string{"dbgCount": "int|42|0", "dbgName": `string|"gopher"|0`, "dbgVec": "[]float32|[1 2 3]|0"} {
			if got[name] != want {
				t.Errorf("inspectVariables %s = %q, want %q (all: %v)", name, got[name], want, got)
			}
		}
		// While a cell runs, the variables as the last cell left them, at
		// once; when it has ended (its idle sent), with what it defined.
		names := func() string {
			var ns []string
			for _, v := range debug("inspectVariables", map[string]any{})["body"].(map[string]any)["variables"].([]any) {
				ns = append(ns, v.(map[string]any)["name"].(string))
			}
			return strings.Join(ns, " ")
		}
		id := c.send(c.shell, "execute_request", map[string]any{"code": "import \"time\"\ntime.Sleep(1500 * time.Millisecond)\nduring := 1"})
		time.Sleep(300 * time.Millisecond)
		start := time.Now()
		if ns := names(); strings.Contains(ns, "during") || !strings.Contains(ns, "dbgCount") {
			t.Errorf("inspectVariables while a cell runs: %s", ns)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("inspectVariables waited %v for the running cell", d)
		}
		c.recv(c.shell)
		c.waitIdle(id, 10*time.Second)
		if ns := names(); !strings.Contains(ns, "during") {
			t.Errorf("inspectVariables after the cell: %s", ns)
		}
		rich := debug("richInspectVariables", map[string]any{"variableName": "dbgVec"})
		if data, _ := rich["body"].(map[string]any)["data"].(map[string]any); rich["success"] != true || data["text/plain"] != "[1 2 3]" {
			t.Errorf("richInspectVariables: %v", rich)
		}
		if r := debug("richInspectVariables", map[string]any{"variableName": "nope"}); r["success"] != false {
			t.Errorf("richInspectVariables of an unknown name: %v", r)
		}
		bp := debug("setBreakpoints", map[string]any{"source": map[string]any{"path": "/tmp/x.go"}, "breakpoints": []any{map[string]any{"line": 2}}})
		if b := bp["body"].(map[string]any)["breakpoints"].([]any); len(b) != 1 || b[0].(map[string]any)["verified"] != false ||
			!strings.Contains(fmt.Sprint(b[0].(map[string]any)["message"]), "not supported") {
			t.Errorf("setBreakpoints: %v", bp)
		}
		if r := debug("stepIn", map[string]any{"threadId": 1}); r["success"] != false || !strings.Contains(fmt.Sprint(r["message"]), "stepIn is not supported") {
			t.Errorf("stepIn: %v", r)
		}
		debug("disconnect", map[string]any{"restart": false, "terminateDebuggee": false})
		if b := debug("debugInfo", map[string]any{})["body"].(map[string]any); b["isStarted"] != false {
			t.Errorf("debugInfo after disconnect: %v", b)
		}
	})
	t.Run("execute value", func(t *testing.T) {
		reply, io := c.execute("20 + 22", false)
		if got := types(io); got != "status,execute_input,execute_result,status" {
			t.Fatalf("iopub sequence %s", got)
		}
		data := content(t, io[2])["data"].(map[string]any)
		if data["text/plain"] != "42" {
			t.Errorf("execute_result %v", data)
		}
		r := content(t, reply)
		if r["status"] != "ok" || r["execution_count"].(float64) < 1 {
			t.Errorf("execute_reply %v", r)
		}
	})
	t.Run("stream", func(t *testing.T) {
		_, io := c.execute(`fmt.Println("hello from Go")`, false)
		if got := types(io); got != "status,execute_input,stream,status" {
			t.Fatalf("iopub sequence %s", got)
		}
		if s := content(t, io[2]); s["name"] != "stdout" || s["text"] != "hello from Go\n" {
			t.Errorf("stream %v", s)
		}
	})
	t.Run("stream while running", func(t *testing.T) {
		id := c.send(c.shell, "execute_request", map[string]any{"code": "import \"time\"\nfor i := 0; i < 3; i++ {\n\tfmt.Println(\"tick\", i)\n\ttime.Sleep(300 * time.Millisecond)\n}"})
		var firstStream time.Time
		deadline := time.After(20 * time.Second)
		for firstStream.IsZero() {
			select {
			case m := <-c.iopubCh:
				if m.ParentHeader.MsgID == id && m.Header.MsgType == "stream" {
					firstStream = time.Now()
				}
			case <-deadline:
				t.Fatal("no stream message")
			}
		}
		c.recv(c.shell)
		if d := time.Since(firstStream); d < 300*time.Millisecond {
			t.Errorf("first output arrived only %v before the reply: not streamed", d)
		}
		c.waitIdle(id, 5*time.Second)
	})
	t.Run("error", func(t *testing.T) {
		reply, io := c.execute("x := 1\nundefinedThing(x)", false)
		r := content(t, reply)
		if r["status"] != "error" || r["ename"] != "compile error" {
			t.Fatalf("execute_reply %v", r)
		}
		if got := types(io); got != "status,execute_input,error,status" {
			t.Fatalf("iopub sequence %s", got)
		}
		tb, _ := json.Marshal(content(t, io[2])["traceback"])
		if !strings.Contains(string(tb), "cell line 2") {
			t.Errorf("traceback %s does not point at line 2", tb)
		}
	})
	t.Run("index error names index, length and line", func(t *testing.T) {
		// Through the kernel as Jupyter sees it: ename, evalue and the
		// traceback's two cell lines (the function's, the call's).
		reply, io := c.execute("pick := func(xs []float64, i int) float64 {\n\treturn xs[i]\n}\nvs := make([]float64, 4)\npick(vs, 7)", false)
		r := content(t, reply)
		const want = "index out of range [7] with length 4 (cell line 2: return xs[i], reached from cell line 5: pick(vs, 7))"
		if r["status"] != "error" || r["ename"] != "runtime error" || r["evalue"] != want {
			t.Fatalf("execute_reply %v, want evalue %q", r, want)
		}
		if got := types(io); got != "status,execute_input,error,status" {
			t.Fatalf("iopub sequence %s", got)
		}
		tb, _ := json.Marshal(content(t, io[2])["traceback"])
		if !strings.Contains(string(tb), `"cell line 2:","    return xs[i]","reached from cell line 5:","    pick(vs, 7)"`) {
			t.Errorf("traceback %s does not show both lines", tb)
		}
	})
	t.Run("stop_on_error aborts queued cells", func(t *testing.T) {
		first := c.send(c.shell, "execute_request", map[string]any{"code": "import \"time\"\ntime.Sleep(200 * time.Millisecond)\npanic(\"fail\")", "stop_on_error": true})
		second := c.send(c.shell, "execute_request", map[string]any{"code": `fmt.Println("queued")`, "stop_on_error": true})
		if r := c.recv(c.shell); r.ParentHeader.MsgID != first || content(t, r)["status"] != "error" {
			t.Fatalf("first reply %v", content(t, r))
		}
		if r := c.recv(c.shell); r.ParentHeader.MsgID != second || content(t, r)["status"] != "aborted" {
			t.Fatalf("queued request not aborted: %v", content(t, r))
		}
		if reply, _ := c.execute("1", false); content(t, reply)["status"] != "ok" {
			t.Errorf("a request sent after the failure was aborted: %v", content(t, reply))
		}
	})
	t.Run("display and update", func(t *testing.T) {
		_, io := c.execute(`import "github.com/veclab/veclab/kernel/display"
display.HTML("<b>t</b>")
h := display.NewHandle()
h.Markdown("1 of 2")
h.Markdown("2 of 2")`, false)
		if got := types(io); got != "status,execute_input,display_data,display_data,update_display_data,status" {
			t.Fatalf("iopub sequence %s", got)
		}
		upd := content(t, io[4])
		first := content(t, io[3])
		if upd["transient"].(map[string]any)["display_id"] != first["transient"].(map[string]any)["display_id"] {
			t.Errorf("update does not target the handle's display: %v / %v", first, upd)
		}
	})
	t.Run("bad signature dropped", func(t *testing.T) {
		bad, _ := wire.NewSigner("hmac-sha256", "wrong-key")
		m, _ := wire.New("execute_request", c.session, nil, map[string]any{"code": `panic("must not run")`})
		frames, _ := wire.Encode(m, bad)
		c.shell.SendMulti(zmq4.NewMsgFrom(frames...))
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		if r := c.recv(c.shell); r.ParentHeader.MsgID != id || r.Header.MsgType != "kernel_info_reply" {
			t.Errorf("first reply after a forged request: %s to %s", r.Header.MsgType, r.ParentHeader.MsgID)
		}
	})
	t.Run("complete inspect is_complete history comm_info", func(t *testing.T) {
		c.execute("import \"strings\"\nimport \"github.com/veclab/veclab/engine\"", false)
		c.send(c.shell, "complete_request", map[string]any{"code": "strings.ToUpp", "cursor_pos": 13})
		r := content(t, c.recv(c.shell))
		if r["status"] != "ok" || len(r["matches"].([]any)) == 0 || r["cursor_end"].(float64) != 13 {
			t.Errorf("complete_reply %v", r)
		}
		c.send(c.shell, "inspect_request", map[string]any{"code": "engine.CheckVector", "cursor_pos": 10, "detail_level": 0})
		r = content(t, c.recv(c.shell))
		if r["found"] != true || !strings.Contains(r["data"].(map[string]any)["text/plain"].(string), "CheckVector") {
			t.Errorf("inspect_reply %v", r)
		}
		for code, want := range map[string]string{"for {": "incomplete", "x := 1": "complete", ")": "invalid"} {
			c.send(c.shell, "is_complete_request", map[string]any{"code": code})
			if r := content(t, c.recv(c.shell)); r["status"] != want {
				t.Errorf("is_complete(%q) = %v, want %s", code, r, want)
			}
		}
		c.send(c.shell, "history_request", map[string]any{"hist_access_type": "tail", "n": 2})
		r = content(t, c.recv(c.shell))
		h, _ := r["history"].([]any)
		if r["status"] != "ok" || len(h) != 2 || !strings.Contains(h[1].([]any)[2].(string), `import "strings"`) {
			t.Errorf("history_reply %v", r)
		}
		c.send(c.shell, "history_request", map[string]any{"hist_access_type": "search", "pattern": "import*", "n": 1})
		if r := content(t, c.recv(c.shell)); r["status"] != "ok" || len(r["history"].([]any)) != 1 {
			t.Errorf("history search %v", r)
		}
		c.send(c.shell, "history_request", map[string]any{"hist_access_type": "everything"})
		if r := content(t, c.recv(c.shell)); r["status"] != "error" || !strings.Contains(fmt.Sprint(r["evalue"]), "hist_access_type") {
			t.Errorf("history of an unknown access type %v", r)
		}
		id := c.send(c.shell, "comm_open", map[string]any{"comm_id": "c-1", "target_name": "veclab.no.such.target", "data": map[string]any{}})
		closed := false
		for _, m := range c.waitIdle(id, 10*time.Second) {
			if m.Header.MsgType == "comm_close" && content(t, m)["comm_id"] == "c-1" {
				closed = true
			}
		}
		if !closed {
			t.Errorf("comm_open of an unknown target was not answered by comm_close")
		}
		c.send(c.shell, "comm_info_request", map[string]any{})
		if r := content(t, c.recv(c.shell)); r["status"] != "ok" || r["comms"] == nil {
			t.Errorf("comm_info_reply %v", r)
		}
	})
	t.Run("heartbeat", func(t *testing.T) {
		if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
			t.Fatal(err)
		}
		m, err := c.hb.Recv()
		if err != nil || string(m.Frames[0]) != "ping" {
			t.Errorf("heartbeat echo %q %v", m.Frames, err)
		}
	})
}

func TestKernelStdinAndShutdown(t *testing.T) {
	c, done := startKernel(t, eval.CaptureFD)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "var s string\nfmt.Scanln(&s)\ns + \"!\"",
		"silent": false, "allow_stdin": true})
	req := c.recv(c.stdin)
	if req.Header.MsgType != "input_request" || req.ParentHeader.MsgID != id {
		t.Fatalf("got %s (parent %s)", req.Header.MsgType, req.ParentHeader.MsgID)
	}
	m, _ := wire.New("input_reply", c.session, nil, map[string]any{"value": "typed"})
	m.ParentHeader = req.Header
	frames, _ := wire.Encode(m, c.signer)
	c.stdin.SendMulti(zmq4.NewMsgFrom(frames...))
	if r := content(t, c.recv(c.shell)); r["status"] != "ok" {
		t.Fatalf("execute_reply %v", r)
	}
	var result string
	for _, m := range c.waitIdle(id, 5*time.Second) {
		if m.Header.MsgType == "execute_result" {
			result = content(t, m)["data"].(map[string]any)["text/plain"].(string)
		}
	}
	if result != "typed!" {
		t.Errorf("result %q, want typed!", result)
	}

	c.send(c.control, "shutdown_request", map[string]any{"restart": false})
	if r := c.recv(c.control); r.Header.MsgType != "shutdown_reply" {
		t.Fatalf("got %s", r.Header.MsgType)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after shutdown_request")
	}
}

// TestStartKernelPortTaken: a port taken between freePorts and the
// kernel's bind ends the first try with EADDRINUSE and startKernel starts
// the kernel again on other ports.
func TestStartKernelPortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	takenPorts = make(chan int, 1)
	defer func() { takenPorts = nil }()
	takenPorts <- l.Addr().(*net.TCPAddr).Port
	c, _ := startKernel(t, eval.CaptureGo)
	if len(takenPorts) != 0 {
		t.Fatal("the taken port was not used")
	}
	id := c.send(c.shell, "kernel_info_request", map[string]any{})
	if r := c.recv(c.shell); r.Header.MsgType != "kernel_info_reply" || r.ParentHeader.MsgID != id {
		t.Fatalf("reply %s to %s", r.Header.MsgType, r.ParentHeader.MsgID)
	}
}

// TestKernelInfoWaitsForSubscriber: the test client subscribes to IOPub and
// sends kernel_info at once, as jupyter_client does; the kernel must hold
// the status until the subscription arrives, so the first request already
// shows its busy/idle (jupyter_client would otherwise start over, 0.2 s
// later).
func TestKernelInfoWaitsForSubscriber(t *testing.T) {
	for i := 0; i < 5; i++ {
		t.Run(fmt.Sprint("start", i), func(t *testing.T) {
			c, _ := startKernel(t, eval.CaptureGo)
			if c.readyAttempts != 1 {
				t.Fatalf("IOPub showed kernel_info's status after %d requests, want the first", c.readyAttempts)
			}
		})
	}
}

// TestProcsForCell: with IdleOnOneP a cell that runs longer than
// cellRaiseAfter gets all the Ps, a short one pays for no change, and the
// kernel is back on one P after either.
func TestProcsForCell(t *testing.T) {
	orig := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(orig)
	k := &kernel{cellProcs: 3}
	for _, tc := range []struct {
		name    string
		runFor  time.Duration
		duringP int
	}{
		{"short cell", 0, 1},
		{"long cell", 10 * cellRaiseAfter, 3},
	} {
		end := k.procsForCell()
		time.Sleep(tc.runFor)
		during := runtime.GOMAXPROCS(0)
		end()
		if during != tc.duringP {
			t.Errorf("%s: GOMAXPROCS %d while it ran, want %d", tc.name, during, tc.duringP)
		}
		if after := runtime.GOMAXPROCS(0); after != 1 {
			t.Errorf("%s: GOMAXPROCS %d after it ended, want 1", tc.name, after)
		}
	}
	// Run with IdleOnOneP: the process idles on one P while engine.Cores()
	// keeps the cells' count.
	runtime.GOMAXPROCS(2)
	conn := testConn(t, "k")
	sess, err := eval.New(eval.Options{Capture: eval.CaptureGo})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Config{Conn: conn, Interp: sess, Log: &testLog{t}, IdleOnOneP: true}) }()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.GOMAXPROCS(0) != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got, cores := runtime.GOMAXPROCS(0), engine.Cores(); got != 1 || cores != 2 {
		t.Errorf("running kernel: GOMAXPROCS %d, engine.Cores() %d; want 1 and 2", got, cores)
	}
	cancel()
	<-done
	sess.Close()
	if got, cores := runtime.GOMAXPROCS(0), engine.Cores(); got != 2 || cores != 2 {
		t.Errorf("after Run: GOMAXPROCS %d, engine.Cores() %d; want both back at 2", got, cores)
	}
	// No changes when the kernel does not manage Ps.
	runtime.GOMAXPROCS(2)
	(&kernel{}).procsForCell()()
	if p := runtime.GOMAXPROCS(0); p != 2 {
		t.Errorf("without IdleOnOneP GOMAXPROCS became %d", p)
	}
}

// TestParentPID: a kernel whose ParentPID is not its parent process (the
// front end died and the kernel was reparented) shuts down by itself; one
// whose parent is alive keeps serving.
func TestParentPID(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parent int
		ends   bool
	}{
		{"parent gone", os.Getpid(), true}, // a process is never its own parent
		{"parent alive", os.Getppid(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := testConn(t, "k")
			sess, err := eval.New(eval.Options{Capture: eval.CaptureGo})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Run(ctx, Config{Conn: conn, Interp: sess, Log: &testLog{t}, ParentPID: tc.parent}) }()
			select {
			case err := <-done:
				if !tc.ends {
					t.Fatalf("kernel stopped (%v) although its parent is alive", err)
				}
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(3 * parentPoll):
				if tc.ends {
					t.Fatalf("kernel still running %v after its parent was gone", 3*parentPoll)
				}
				cancel()
				<-done
			}
		})
	}
}

// wantFeatures is what kernel_info_reply's supported_features lists.
var wantFeatures = []any{"debugger"}
