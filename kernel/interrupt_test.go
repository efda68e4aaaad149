//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package kernel

import (
	"testing"
	"time"

	"github.com/veclab/veclab/kernel/eval"
)

func TestKernelInterruptRequest(t *testing.T) {
	c, _ := startKernel(t, eval.CaptureGo)
	id := c.send(c.shell, "execute_request", map[string]any{"code": "n := 0\nfor { n++ }", "silent": false})
	time.Sleep(300 * time.Millisecond)
	c.send(c.control, "interrupt_request", map[string]any{})
	if r := c.recv(c.control); r.Header.MsgType != "interrupt_reply" {
		t.Fatalf("got %s", r.Header.MsgType)
	}
	r := c.recv(c.shell)
	if r.ParentHeader.MsgID != id || content(t, r)["ename"] != eval.InterruptedName {
		t.Fatalf("execute_reply %v", content(t, r))
	}
	if reply, _ := c.execute("n > 0", false); content(t, reply)["status"] != "ok" {
		t.Errorf("kernel unusable after interrupt: %v", content(t, reply))
	}
}
