package eval

import (
	"math"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/cosmos72/gomacro/imports"
)

// BenchmarkEvalTrivial is the evaluation core's share of a trivial cell
// (compile, run, flush the captured output, render the value).
func BenchmarkEvalTrivial(b *testing.B) {
	for _, capture := range []Capture{CaptureGo, CaptureFD} {
		b.Run(capture.String(), func(b *testing.B) {
			s, err := New(Options{Capture: capture})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := 0; i < b.N; i++ {
				if res := s.Eval("1+1", Discard{}); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// BenchmarkEvalLoop is an interpreted loop that calls a cell function and
// opens a block each iteration: what the debugger option (each env keeps
// its scope, where.go) and the unit markers could slow down.
func BenchmarkEvalLoop(b *testing.B) {
	s, err := New(Options{Capture: CaptureGo})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if res := s.Eval("f := func(x int) int { y := x * 2; return y }", Discard{}); res.Err != nil {
		b.Fatal(res.Err)
	}
	const cell = "sum := 0\nfor i := 0; i < 10000; i++ {\n\tv := f(i)\n\tsum += v\n}\nsum"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := s.Eval(cell, Discard{}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// spin busies the CPU for d: a compiled call of a known length, precise
// to the clock's resolution (a sleep overshoots by the timer's slack).
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// bindSpin makes spin.Spin1ms and spin.Nop importable by cells
// ("veclab.test/spin"), compiled Go calls for %timeit to time.
func bindSpin() {
	imports.Packages["veclab.test/spin"] = imports.Package{Name: "spin", Binds: map[string]reflect.Value{
		"Spin1ms": reflect.ValueOf(func() { spin(time.Millisecond) }),
		"Nop":     reflect.ValueOf(func() {}),
	}}
}

var perLoopRE = regexp.MustCompile(`^([0-9.e+]+) (s|ms|µs|ns) ± `)

// timeitPerLoop runs a %timeit cell and returns its mean time per loop.
func timeitPerLoop(b *testing.B, s *Session, cell string) time.Duration {
	rec := &Recorder{}
	if res := s.Eval(cell, rec); res.Err != nil {
		b.Fatal(res.Err)
	}
	m := perLoopRE.FindStringSubmatch(rec.Text("stdout"))
	if m == nil {
		b.Fatalf("timeit printed %q", rec.Text("stdout"))
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]float64{"s": 1e9, "ms": 1e6, "µs": 1e3, "ns": 1}[m[2]]
	return time.Duration(v * unit)
}

// BenchmarkTimeitOverhead measures what %timeit adds to each loop of the
// statement it times, through the interpreter: the statement is a compiled
// call that spins for 1 ms (spin.Spin1ms()), timed by %timeit (one loop,
// one run, 6 digits) and directly in Go (one call) in turn each
// iteration; overhead-% is (timeit − direct) / direct, the best of b.N
// for each (on a shared machine a loop descheduled part of the time says
// nothing about %timeit), the target being at most 5 %. The nop case is
// the absolute cost of a loop of %timeit around a compiled call that does
// nothing (the interpreter's call of a compiled function, plus the loop
// and its interrupt poll).
func BenchmarkTimeitOverhead(b *testing.B) {
	bindSpin()
	s, err := New(Options{Capture: CaptureGo})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if res := s.Eval(`import "veclab.test/spin"`, Discard{}); res.Err != nil {
		b.Fatal(res.Err)
	}
	b.Run("spin1ms", func(b *testing.B) {
		viaTimeit, direct := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		for i := 0; i < b.N; i++ {
			viaTimeit = min(viaTimeit, timeitPerLoop(b, s, "%timeit -n 1 -r 1 -p 6 spin.Spin1ms()"))
			t0 := time.Now()
			spin(time.Millisecond)
			direct = min(direct, time.Since(t0))
		}
		b.ReportMetric(float64(viaTimeit.Nanoseconds()), "timeit-ns/loop")
		b.ReportMetric(float64(direct.Nanoseconds()), "direct-ns/loop")
		b.ReportMetric(100*float64(viaTimeit-direct)/float64(direct), "overhead-%")
	})
	b.Run("nop", func(b *testing.B) {
		var per time.Duration
		for i := 0; i < b.N; i++ {
			per += timeitPerLoop(b, s, "%timeit -n 100000 -r 1 -p 6 spin.Nop()")
		}
		b.ReportMetric(float64(per.Nanoseconds())/float64(b.N), "ns/loop")
		b.ReportMetric(100*float64(per.Nanoseconds())/float64(b.N)/1e6, "%-of-1ms")
	})
}
