package eval

import "testing"

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
