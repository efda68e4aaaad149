package eval_test

import (
	"fmt"

	"github.com/veclab/veclab/kernel/eval"
)

// A session keeps state between cells; a Recorder collects what a cell
// printed and displayed, and the result holds its last value as a MIME
// bundle.
func ExampleSession() {
	s, err := eval.New(eval.Options{Capture: eval.CaptureGo})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &eval.Recorder{}
	s.Eval("x := 21", r)
	res := s.Eval("fmt.Println(\"computing\")\nx * 2", r)
	bad := s.Eval("x.Foo()", r)
	s.Close()
	fmt.Print(r.Text("stdout"))
	fmt.Println(res.Value["text/plain"])
	fmt.Println(bad.Err.Name)
	// Output:
	// computing
	// 42
	// compile error
}
