//go:build !race

// Interrupts set gomacro's plain signal fields: keep these out of -race.

package eval

import (
	"strings"
	"testing"
	"time"
)

// A panic in a goroutine a cell started becomes that cell's error while
// it runs, or a report on the next cell's stderr once it has ended; the
// session lives on with its variables.
func TestGoroutinePanic(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	must := func(code string) Result {
		t.Helper()
		res := s.Eval(code, &Recorder{})
		if res.Err != nil {
			t.Fatalf("%q: %v", code, res.Err)
		}
		return res
	}
	must("import \"time\"\nfunc past(xs []int) {\n\t_ = xs[5]\n}\nimport \"sync\"\nimport \"os\"\nkeep := 7")
	for _, tc := range []struct{ name, code, has string }{
		{"panic while the cell waits", "go func() { panic(\"boom in a goroutine\") }()\ntime.Sleep(10 * time.Second)", "boom in a goroutine"},
		{"runtime error", "go func() { var m map[string]int; m[\"x\"] = 1 }()\ntime.Sleep(10 * time.Second)", "assignment to entry in nil map"},
		{"names the cell line", "go func() {\n\tvar m map[string]int\n\tm[\"x\"] = 1\n}()\ntime.Sleep(10 * time.Second)", `assignment to entry in nil map (cell line 3: m["x"] = 1)`},
		{"names an earlier cell's line", "go past([]int{1})\ntime.Sleep(10 * time.Second)", `reflect: slice index out of range (line 3 of the cell starting "import \"time\"": _ = xs[5])`},
		{"os.Exit in a goroutine", "go os.Exit(4)\ntime.Sleep(10 * time.Second)", "os.Exit(4)"},
		{"bad argument", "func half(x float64) float64 { return x / 2 }\nvar wg sync.WaitGroup\ngo half(\"no\")\ntime.Sleep(10 * time.Second)", "cannot use string as float64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := s.Eval(tc.code, &Recorder{})
			if res.Err == nil || res.Err.Name != "goroutine panic" || !strings.Contains(res.Err.Value, tc.has) {
				t.Fatalf("want a goroutine panic saying %q, got %+v", tc.has, res.Err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the cell waited %v: the panic did not end it", d)
			}
			if !strings.Contains(res.Err.Value, "go ") {
				t.Errorf("the error does not name the go statement: %q", res.Err.Value)
			}
			if res := must("keep"); res.Value["text/plain"] != "7" {
				t.Fatalf("state after the panic: %v", res.Value)
			}
		})
	}
	// After the cell: reported on the next cell's stderr.
	must("go func() { time.Sleep(100 * time.Millisecond); panic(\"late boom\") }()")
	time.Sleep(400 * time.Millisecond)
	r := &Recorder{}
	if res := s.Eval("keep + 1", r); res.Err != nil || res.Value["text/plain"] != "8" {
		t.Fatalf("next cell: %+v", res)
	}
	if e := r.Text("stderr"); !strings.Contains(e, "late boom") || !strings.Contains(e, "after it had finished") {
		t.Errorf("the late panic is not on the next cell's stderr: %q", e)
	}
}

// Go statements keep Go's meaning: arguments evaluated at the go
// statement, untyped constants converted, variadic calls, method values.
func TestGoStatementArgs(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	code := `import "sync"
var mu sync.Mutex
var wg sync.WaitGroup
got := []string{}
add := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock(); wg.Done() }
func scaled(x float64, done func(string)) { done(fmt.Sprint(x * 2)) }
func joined(done func(string), xs ...int) { done(fmt.Sprint(xs)) }
type box struct{ n int }
func (b box) say(done func(string)) { done(fmt.Sprint("box", b.n)) }
wg.Add(5)
for i := 0; i < 2; i++ {
	go add(fmt.Sprint("i", i))
}
go scaled(1, add)
go joined(add, []int{1, 2}...)
b := box{3}
go b.say(add)
wg.Wait()
import "sort"
sort.Strings(got)
fmt.Sprint(got)`
	res := s.Eval(code, &Recorder{})
	if res.Err != nil || res.Value["text/plain"] != "[2 [1 2] box3 i0 i1]" {
		t.Fatalf("got %+v %+v", res.Value, res.Err)
	}
}

// A goroutine looping forever leaves the kernel answering; an interrupt
// with no cell running stops it (and a sleeping one), and an interrupted
// cell stops the goroutines it started.
func TestGoroutineInterrupt(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	if res := s.Eval("import \"time\"\nimport \"sync\"\nspins := 0\ngo func() { for { spins++ } }()\ngo func() { time.Sleep(time.Hour) }()", &Recorder{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if res := s.Eval("1 + 1", &Recorder{}); res.Err != nil || res.Value["text/plain"] != "2" {
		t.Fatalf("kernel busy with a spinning goroutine: %+v", res)
	}
	// A goroutine registers when it first runs, which on a loaded machine
	// can be after the cell that started it has ended.
	waitLive(t, s, 2)
	s.Interrupt() // no cell running
	waitLive(t, s, 0)
	// An interrupted cell stops what it started.
	// The interrupt waits until both goroutines are running: a fixed delay
	// was outlasted on a loaded machine (the interrupt then found one).
	res, r, took := evalInterruptedWhen(t, s, "var wg sync.WaitGroup\nwg.Add(2)\nfor i := 0; i < 2; i++ {\n\tgo func() { defer wg.Done(); time.Sleep(time.Hour) }()\n}\nwg.Wait()",
		func() bool { return len(s.guard.live()) == 2 })
	if res.Err == nil || res.Err.Name != InterruptedName || took > 3*time.Second {
		t.Fatalf("want %s promptly, got %+v after %v", InterruptedName, res.Err, took)
	}
	if !strings.Contains(r.Text("stderr"), "stopped 2 goroutine") {
		t.Errorf("stderr does not say the goroutines were stopped: %q", r.Text("stderr"))
	}
	waitLive(t, s, 0)
}

func waitLive(t *testing.T, s *Session, want int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(s.guard.live()) != want {
		if time.Now().After(deadline) {
			t.Fatalf("live goroutines %v, want %d", s.guard.live(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
