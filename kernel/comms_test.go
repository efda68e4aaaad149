package kernel

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
	"github.com/veclab/veclab/kernel/internal/wire"
)

// sendWith sends a shell message with binary buffers.
func (c *client) sendWith(sock zmq4.Socket, typ string, content any, buffers [][]byte) string {
	c.t.Helper()
	m, err := wire.New(typ, c.session, nil, content)
	if err != nil {
		c.t.Fatal(err)
	}
	m.Buffers = buffers
	frames, err := wire.Encode(m, c.signer)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return m.Header.MsgID
}

func ofType(ms []*wire.Message, typ string) []*wire.Message {
	var out []*wire.Message
	for _, m := range ms {
		if m.Header.MsgType == typ {
			out = append(out, m)
		}
	}
	return out
}

// TestKernelComms drives the comm protocol from a raw client against a
// target registered on comm.Default: both directions, buffers, output of
// a callback, a panicking and an interrupted callback, close, and the
// info filter.
func TestKernelComms(t *testing.T) {
	const target = "veclab.test.echo"
	closedBy := make(chan string, 1)
	err := comm.Default.Register(target, func(cm *comm.Comm, open comm.Msg) error {
		if open.Data["refuse"] == true {
			return fmt.Errorf("refused")
		}
		fmt.Println("opened with", open.Data["hello"])
		cm.OnMsg(func(m comm.Msg) {
			switch m.Data["do"] {
			case "echo":
				fmt.Println("echo", len(m.Buffers), "buffers")
				if err := cm.Send(comm.Msg{Data: m.Data, Buffers: m.Buffers}); err != nil {
					panic(err)
				}
			case "panic":
				panic("callback exploded")
			case "open":
				back, err := comm.Default.Open("veclab.test.back", comm.Msg{Data: map[string]any{"x": 1.0}})
				if err != nil {
					panic(err)
				}
				back.Close(nil)
			}
		})
		cm.OnClose(func(m comm.Msg) { closedBy <- cm.ID() })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { comm.Default.Register(target, nil) })
	c, _ := startKernel(t, eval.CaptureGo)

	msgs := func(id string) []*wire.Message {
		t.Helper()
		ms := c.waitIdle(id, 10*time.Second)
		if ms == nil {
			t.Fatalf("no idle status after %s", id)
		}
		return ms
	}
	streamText := func(ms []*wire.Message) string {
		var b strings.Builder
		for _, m := range ofType(ms, "stream") {
			b.WriteString(fmt.Sprint(content(t, m)["text"]))
		}
		return b.String()
	}

	// Open from the front end; the handler's output is a child of comm_open.
	id := c.send(c.shell, "comm_open", map[string]any{"comm_id": "e1", "target_name": target, "data": map[string]any{"hello": "world"}})
	ms := msgs(id)
	if got := streamText(ms); got != "opened with world\n" {
		t.Errorf("open handler output %q (messages %s)", got, types(ms))
	}
	if len(ofType(ms, "comm_close")) != 0 {
		t.Errorf("a known target's comm was closed: %s", types(ms))
	}
	// Refused: closed again.
	id = c.send(c.shell, "comm_open", map[string]any{"comm_id": "e2", "target_name": target, "data": map[string]any{"refuse": true}})
	if cl := ofType(msgs(id), "comm_close"); len(cl) != 1 || content(t, cl[0])["comm_id"] != "e2" {
		t.Errorf("a refused open was not closed: %d comm_close", len(cl))
	}

	t.Run("comm_info", func(t *testing.T) {
		for _, tc := range []struct {
			target string
			want   int
		}{{"", 1}, {target, 1}, {"jupyter.widget.nothing", 0}} {
			c.send(c.shell, "comm_info_request", map[string]any{"target_name": tc.target})
			r := content(t, c.recv(c.shell))
			comms, _ := r["comms"].(map[string]any)
			n := 0
			for _, v := range comms {
				if v.(map[string]any)["target_name"] == target {
					n++
				}
			}
			if n != tc.want || (tc.want == 1 && comms["e1"] == nil) {
				t.Errorf("comm_info_request(%q): %v, want %d comm(s) of %s", tc.target, r, tc.want, target)
			}
		}
	})
	t.Run("echo with buffers", func(t *testing.T) {
		bufs := [][]byte{{0, 1, 2, 255}, []byte("second")}
		id := c.sendWith(c.shell, "comm_msg", map[string]any{"comm_id": "e1", "data": map[string]any{"do": "echo"}}, bufs)
		ms := msgs(id)
		echo := ofType(ms, "comm_msg")
		if len(echo) != 1 {
			t.Fatalf("want 1 comm_msg back, got %s", types(ms))
		}
		if got := echo[0].Buffers; len(got) != 2 || string(got[0]) != string(bufs[0]) || string(got[1]) != "second" {
			t.Errorf("buffers back %q", got)
		}
		if echo[0].ParentHeader.MsgID != id || content(t, echo[0])["comm_id"] != "e1" {
			t.Errorf("echo parent %s comm %v", echo[0].ParentHeader.MsgID, content(t, echo[0])["comm_id"])
		}
		if got := streamText(ms); got != "echo 2 buffers\n" {
			t.Errorf("callback output %q", got)
		}
	})
	t.Run("kernel-side open", func(t *testing.T) {
		id := c.send(c.shell, "comm_msg", map[string]any{"comm_id": "e1", "data": map[string]any{"do": "open"}})
		ms := msgs(id)
		op, cl := ofType(ms, "comm_open"), ofType(ms, "comm_close")
		if len(op) != 1 || len(cl) != 1 || content(t, op[0])["target_name"] != "veclab.test.back" ||
			content(t, op[0])["comm_id"] != content(t, cl[0])["comm_id"] {
			t.Errorf("kernel-side open and close: %s", types(ms))
		}
	})
	t.Run("panic is an error, not fatal", func(t *testing.T) {
		id := c.send(c.shell, "comm_msg", map[string]any{"comm_id": "e1", "data": map[string]any{"do": "panic"}})
		errs := ofType(msgs(id), "error")
		if len(errs) != 1 || !strings.Contains(fmt.Sprint(content(t, errs[0])["evalue"]), "callback exploded") {
			t.Errorf("panicking callback: %d error messages", len(errs))
		}
		if r, _ := c.execute("1 + 1", false); content(t, r)["status"] != "ok" {
			t.Errorf("kernel after a callback panic: %v", content(t, r))
		}
	})
	t.Run("unknown comm and close", func(t *testing.T) {
		id := c.send(c.shell, "comm_msg", map[string]any{"comm_id": "nope", "data": map[string]any{}})
		if ms := msgs(id); len(ofType(ms, "error")) != 0 {
			t.Errorf("a message to an unknown comm raised an error: %s", types(ms))
		}
		id = c.send(c.shell, "comm_close", map[string]any{"comm_id": "e1", "data": map[string]any{}})
		msgs(id)
		select {
		case got := <-closedBy:
			if got != "e1" {
				t.Errorf("closed %s", got)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("OnClose did not run")
		}
		if comm.Default.Get("e1") != nil {
			t.Errorf("closed comm still listed")
		}
	})
}
