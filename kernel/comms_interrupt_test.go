//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package kernel

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/eval"
)

// TestKernelCommInterrupt: interrupt_request stops a running callback,
// which is reported as Interrupted under its comm_msg.
func TestKernelCommInterrupt(t *testing.T) {
	const target = "veclab.test.wait"
	err := comm.Default.Register(target, func(cm *comm.Comm, open comm.Msg) error {
		cm.OnMsg(func(m comm.Msg) { // a context-aware compiled call: stops on interrupt
			fmt.Println("waiting")
			<-engine.Context().Done()
			panic(engine.Context().Err())
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { comm.Default.Register(target, nil) })
	c, _ := startKernel(t, eval.CaptureGo)
	c.waitIdle(c.send(c.shell, "comm_open", map[string]any{"comm_id": "w1", "target_name": target, "data": map[string]any{}}), 10*time.Second)
	id := c.send(c.shell, "comm_msg", map[string]any{"comm_id": "w1", "data": map[string]any{}})
	time.Sleep(200 * time.Millisecond)
	c.send(c.control, "interrupt_request", map[string]any{})
	c.recv(c.control)
	ms := c.waitIdle(id, 10*time.Second)
	errs := ofType(ms, "error")
	if len(errs) != 1 || content(t, errs[0])["ename"] != eval.InterruptedName {
		t.Errorf("interrupted callback: %s", types(ms))
	}
	text := ""
	for _, m := range ofType(ms, "stream") {
		text += fmt.Sprint(content(t, m)["text"])
	}
	if !strings.Contains(text, "waiting") {
		t.Errorf("the callback did not start: %s", types(ms))
	}
	if r, _ := c.execute("1 + 1", false); content(t, r)["status"] != "ok" {
		t.Errorf("kernel after an interrupted callback: %v", content(t, r))
	}
}
