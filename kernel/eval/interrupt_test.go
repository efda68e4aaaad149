//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package eval

import (
	"strings"
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

func TestInterruptCompiledCallNotice(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	go func() {
		time.Sleep(200 * time.Millisecond)
		s.Interrupt()
	}()
	r := &Recorder{}
	res := s.Eval("import \"time\"\ntime.Sleep(1500 * time.Millisecond)", r)
	if res.Err == nil || res.Err.Name != "interrupted" {
		t.Fatalf("want interrupted after the compiled call, got %+v", res.Err)
	}
	if !strings.Contains(r.Text("stderr"), "interrupt requested") {
		t.Errorf("no notice on stderr: %q", r.Text("stderr"))
	}
	if res := s.Eval("1", &Recorder{}); res.Err != nil {
		t.Errorf("the next cell inherits the interrupt: %v", res.Err)
	}
}
