//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package eval

import (
	"testing"
	"time"
)

func TestInterruptLoop(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	go func() {
		time.Sleep(200 * time.Millisecond)
		s.Interrupt()
	}()
	start := time.Now()
	res := s.Eval("n := 0\nfor { n++ }", &Recorder{})
	if res.Err == nil || res.Err.Name != "interrupted" {
		t.Fatalf("want interrupted, got %+v", res.Err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if res := s.Eval("n > 0", &Recorder{}); res.Err != nil || res.Value["text/plain"] != "true" {
		t.Errorf("state after interrupt: %+v %+v", res.Value, res.Err)
	}
}
