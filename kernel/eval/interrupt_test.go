//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package eval

import (
	"strings"
	"testing"
	"time"
)

// interruptAfter interrupts s after d and returns how long the cell took
// from the interrupt to its end.
func evalInterrupted(t *testing.T, s *Session, code string, d time.Duration) (Result, *Recorder, time.Duration) {
	t.Helper()
	return evalInterruptedWhen(t, s, code, func() bool { time.Sleep(d); return true })
}

// evalInterruptedWhen runs code and interrupts it once ready returns true
// (polled every 10 ms, for at most 5 s): a test whose interrupt must find
// a state (goroutines started, say) waits for that state rather than for
// a fixed delay, which a loaded machine can outlast.
func evalInterruptedWhen(t *testing.T, s *Session, code string, ready func() bool) (Result, *Recorder, time.Duration) {
	t.Helper()
	sent := make(chan time.Time, 1)
	go func() {
		for deadline := time.Now().Add(5 * time.Second); !ready() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		sent <- time.Now()
		s.Interrupt()
	}()
	r := &Recorder{}
	res := s.Eval(code, r)
	end := time.Now()
	select {
	case at := <-sent:
		return res, r, end.Sub(at)
	case <-time.After(5 * time.Second):
		t.Fatalf("the cell ended before the interrupt was sent: %+v", res)
	}
	return res, r, 0
}

// Each blocking form a cell is likely to use stops at the interrupt with
// an "Interrupted" error, well before it would have ended, and the
// session's variables survive.
func TestInterruptStops(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	if res := s.Eval("import \"time\"\nkeep := 42\nch := make(chan int)\nvar none chan int", &Recorder{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, tc := range []struct {
		name, setup, code string
		errHas            string
	}{
		{"interpreted loop", "", "n := 0\nfor { n++ }", ""},
		{"time.Sleep", "", "time.Sleep(30 * time.Second)", ""},
		{"sleep in a function", "", "func nap() { time.Sleep(30 * time.Second) }\nnap()", ""},
		{"select", "", "select {\ncase v := <-ch:\n\tfmt.Println(v)\ncase <-time.After(30 * time.Second):\n}", ""},
		{"empty select", "", "select {}", ""},
		{"receive statement", "", "<-ch", ""},
		{"receive assignment", "", "var v int\nv = <-ch\nv", ""},
		{"receive definition at top level", "", "got, ok := <-ch\nfmt.Println(got, ok)", ""},
		{"receive definition in a block", "", "if true {\n\tw := <-none\n\tfmt.Println(w)\n}", ""},
		{"receive in a function", "", "func get() int { x := <-ch; return x }\nget()", ""},
		{"time.After receive", "", "<-time.After(30 * time.Second)", ""},
		// The data is made in a cell of its own: on a loaded machine its
		// generation outlasted the 300 ms before the interrupt, which then
		// stopped the cell before AddBatch began.
		{"hnsw build", "import \"github.com/veclab/veclab/engine/hnsw\"\nimport \"github.com/veclab/veclab/lab/dataset\"\n" +
			"ds, _ := dataset.Generate(dataset.Config{N: 20000, Dim: 128, Queries: 1, Seed: 1})\n" +
			"ix, _ := hnsw.New(hnsw.Config{Dim: 128, EfConstruction: 400})\nkeys := make([]uint64, ds.Base.N)\nfor i := range keys { keys[i] = uint64(i) }",
			"ix.AddBatch(keys, ds.Base)", "hnsw: AddBatch stopped after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != "" {
				if res := s.Eval(tc.setup, &Recorder{}); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			res, r, took := evalInterrupted(t, s, tc.code, 300*time.Millisecond)
			if res.Err == nil || res.Err.Name != InterruptedName {
				t.Fatalf("want %s, got %+v (stderr %q)", InterruptedName, res.Err, r.Text("stderr"))
			}
			if !strings.Contains(res.Err.Value, tc.errHas) {
				t.Errorf("error %q does not say %q", res.Err.Value, tc.errHas)
			}
			if took > 3*time.Second {
				t.Errorf("the cell ended %v after the interrupt", took)
			}
			t.Logf("ended %v after the interrupt: %s", took.Round(time.Millisecond), res.Err.Value)
			if res := s.Eval("keep", &Recorder{}); res.Err != nil || res.Value["text/plain"] != "42" {
				t.Fatalf("state after the interrupt: %+v %+v", res.Value, res.Err)
			}
		})
	}
	// A receive the rewrite does not reach (inside an expression) still
	// blocks: the notice says so, and the cell reports the interrupt.
	res, r, _ := evalInterrupted(t, s, "fmt.Sprint(<-time.After(1500 * time.Millisecond))", 200*time.Millisecond)
	if res.Err == nil || res.Err.Name != InterruptedName {
		t.Fatalf("want %s after the blocking call, got %+v", InterruptedName, res.Err)
	}
	if !strings.Contains(r.Text("stderr"), "interrupt requested") {
		t.Errorf("no notice on stderr: %q", r.Text("stderr"))
	}
	if res := s.Eval("1", &Recorder{}); res.Err != nil {
		t.Errorf("the next cell inherits the interrupt: %v", res.Err)
	}
}

// Receives rewritten for the interrupt keep Go's meaning when nothing
// interrupts them: values, ok after close, nil-free buffered channels.
func TestRewrittenReceives(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	for _, tc := range []struct{ code, want string }{
		{"c := make(chan int, 3)\nc <- 7\nc <- 8\nclose(c)\na := <-c\nb, ok1 := <-c\n_, ok2 := <-c\nfmt.Sprint(a, b, ok1, ok2)", "7 8 true false"},
		{"var r <-chan string\nw := make(chan string, 1)\nr = w\nw <- \"hi\"\nmsg := <-r\nmsg", "hi"},
		{"d := make(chan int)\ngo func() { d <- 5 }()\nvar x int\nx = <-d\nx", "5"},
		{"e := make(chan int)\ngo func() { e <- 6 }()\nselect {\ncase y := <-e:\n\tfmt.Sprint(y)\n}\n7", "7"},
		{"func sum(c chan int) int { t := 0; for i := 0; i < 3; i++ { v := <-c; t += v }; return t }\nf := make(chan int, 3)\nf <- 1\nf <- 2\nf <- 3\nsum(f)", "6"},
	} {
		res := s.Eval(tc.code, &Recorder{})
		if res.Err != nil || res.Value["text/plain"] != tc.want {
			t.Errorf("%q: got %+v %+v, want %s", tc.code, res.Value, res.Err, tc.want)
		}
	}
}

// The kernel evaluates cells on its shell goroutine, not the one that
// created the interpreter: a loop inside a function the cell calls must
// stop too (gomacro keeps a Run per goroutine), and no interrupt may be
// left over for the next cell's function calls.
func TestEvalRunBinding(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	on := func(code string, interrupt bool) Result {
		done := make(chan Result, 1)
		go func() { done <- s.Eval(code, &Recorder{}) }()
		if interrupt {
			time.Sleep(300 * time.Millisecond)
			s.Interrupt()
		}
		select {
		case r := <-done:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("%q did not stop", code)
		}
		return Result{}
	}
	if res := on("func spin() int { n := 0; for { n++ }; return n }\nspin()", true); res.Err == nil || res.Err.Name != InterruptedName {
		t.Fatalf("loop in a function, cell on another goroutine: %+v", res.Err)
	}
	if s.evalRun.Load() == nil {
		t.Fatal("no Run bound for the evaluating goroutine (gomacro's Interp.env field gone?)")
	}
	if res := on("func count() int { n := 0; for i := 0; i < 1000; i++ { n++ }; return n }\ncount()", false); res.Err != nil || res.Value["text/plain"] != "1000" {
		t.Fatalf("the next cell: %+v %+v", res.Value, res.Err)
	}
}

// TestTimeitInterrupt interrupts a %timeit of a loop that would run for
// hours: the cell ends Interrupted.
func TestTimeitInterrupt(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	s.Eval("n := 0", Discard{})
	done := make(chan Result)
	go func() { done <- s.Eval("%timeit -n 1000000000000 n++", Discard{}) }()
	time.Sleep(200 * time.Millisecond)
	s.Interrupt()
	select {
	case res := <-done:
		if res.Err == nil || res.Err.Name != InterruptedName {
			t.Fatalf("result %+v, want %s", res, InterruptedName)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("timeit not interrupted after 10 s")
	}
}
