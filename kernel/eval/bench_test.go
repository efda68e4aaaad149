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
