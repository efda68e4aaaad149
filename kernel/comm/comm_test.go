package comm

import (
	"errors"
	"testing"
)

// sent is one message a recording transport saw.
type sent struct {
	typ     string
	content map[string]any
	buffers [][]byte
}

// recording is a Transport that keeps what it is asked to send (the
// kernel's real transport is tested in the kernel package).
type recording struct {
	msgs      []sent
	preempted int
}

func (r *recording) Send(typ string, content, _ map[string]any, buffers [][]byte) error {
	r.msgs = append(r.msgs, sent{typ, content, buffers})
	return nil
}
func (r *recording) ParentID() string { return "parent-1" }
func (r *recording) Preempt()         { r.preempted++ }

func TestProtocol(t *testing.T) {
	m := NewManager()
	if _, err := m.Open("t", Msg{}); !errors.Is(err, ErrNoKernel) {
		t.Errorf("Open without a kernel: %v", err)
	}
	tr := &recording{}
	m.SetTransport(tr)
	var got []string
	if err := m.Register("t", func(c *Comm, open Msg) error {
		if open.Data["refuse"] == true {
			return errors.New("no")
		}
		if open.Data["panic"] == true {
			panic("open panicked")
		}
		c.OnMsg(func(msg Msg) { got = append(got, msg.Data["v"].(string)) })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.Register("", nil); err == nil {
		t.Errorf("empty target registered")
	}
	for _, tc := range []struct {
		name, id, target string
		data             map[string]any
		wantErr          error
		wantClose        bool
	}{
		{"known", "a", "t", nil, nil, false},
		{"unknown target", "b", "nope", nil, ErrNoTarget, true},
		{"refused", "c", "t", map[string]any{"refuse": true}, nil, true},
		{"panicking", "d", "t", map[string]any{"panic": true}, nil, true},
		{"duplicate", "a", "t", nil, ErrBadMessage, false},
		{"no id", "", "t", nil, ErrBadMessage, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr.msgs = nil
			err := m.HandleOpen(tc.id, tc.target, Msg{Data: tc.data})
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == nil && tc.wantClose && err == nil {
				t.Errorf("no error")
			}
			closed := len(tr.msgs) == 1 && tr.msgs[0].typ == "comm_close" && tr.msgs[0].content["comm_id"] == tc.id
			if closed != tc.wantClose {
				t.Errorf("comm_close sent %v, want %v (%v)", closed, tc.wantClose, tr.msgs)
			}
		})
	}
	var pe *PanicError
	if err := m.HandleOpen("e", "t", Msg{Data: map[string]any{"panic": true}}); !errors.As(err, &pe) || pe.Value != "open panicked" {
		t.Errorf("panic in open: %v", err)
	}
	if info := m.Info(""); len(info) != 1 || info["a"]["target_name"] != "t" {
		t.Errorf("Info: %v", info)
	}
	if info := m.Info("other"); len(info) != 0 {
		t.Errorf("Info(other): %v", info)
	}
	m.HandleMsg("a", Msg{Data: map[string]any{"v": "x"}})
	if err := m.HandleMsg("zz", Msg{}); !errors.Is(err, ErrNoComm) {
		t.Errorf("message to unknown comm: %v", err)
	}
	// Kernel side.
	tr.msgs = nil
	c, err := m.Open("front", Msg{Data: map[string]any{"k": 1}, Buffers: [][]byte{{1}}})
	if err != nil || len(tr.msgs) != 1 || tr.msgs[0].typ != "comm_open" || tr.msgs[0].content["target_name"] != "front" || len(tr.msgs[0].buffers) != 1 {
		t.Fatalf("Open: %v %v", err, tr.msgs)
	}
	if len(m.Info("front")) != 1 {
		t.Errorf("kernel-side comm not in Info")
	}
	if err := c.Close(nil); err != nil || c.Close(nil) != nil || len(tr.msgs) != 2 {
		t.Errorf("Close twice: %v %v", err, tr.msgs)
	}
	if err := c.Send(Msg{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	// Front-end close.
	if err := m.HandleClose("a", Msg{}); err != nil || m.Get("a") != nil {
		t.Errorf("HandleClose: %v", err)
	}
	if len(got) != 1 || got[0] != "x" {
		t.Errorf("OnMsg saw %v", got)
	}
}

func TestPendingAndPreempt(t *testing.T) {
	m := NewManager()
	tr := &recording{}
	m.SetTransport(tr)
	m.Register("t", func(c *Comm, open Msg) error { return nil })
	m.HandleOpen("a", "t", Msg{})
	m.HandleOpen("b", "t", Msg{})
	a := m.Get("a")
	m.Arrived("a")
	m.Arrived("a")
	if a.Pending() != 2 {
		t.Fatalf("pending %d", a.Pending())
	}
	m.HandleMsg("a", Msg{})
	ran := false
	m.Preemptible([]string{"a"}, func() { ran = true })
	if ran {
		t.Errorf("a redraw ran with a newer message queued")
	}
	m.HandleMsg("a", Msg{})
	m.Preemptible([]string{"a"}, func() {
		ran = true
		m.Arrived("b") // not watched
		m.Arrived("a") // watched: preempts
	})
	if !ran || tr.preempted != 1 || !m.TakePreempted() || m.TakePreempted() {
		t.Errorf("ran %v, preempted %d", ran, tr.preempted)
	}
}

func TestNewID(t *testing.T) {
	a, b := NewID(), NewID()
	if len(a) != 32 || a == b {
		t.Errorf("ids %q %q", a, b)
	}
}
