//go:build js && wasm

package main

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/kernel/eval"
)

// TestMagicsOnWasm runs the magics in the browser kernel's session (eval
// with CaptureNone, as main makes it) under Node: they parse and run as
// natively — %time shows its value, %timeit and %whos run, %env answers,
// an unknown magic is a UsageError — and %time has no CPU times to read
// on js/wasm (getrusage), which is what its output then leaves out.
// (Under Node the printed lines go to Node's stdout, not to the page's
// capture: TestBridgeComms says why; the kernel tests check the text.)
func TestMagicsOnWasm(t *testing.T) {
	sess, err := eval.New(eval.Options{Capture: eval.CaptureNone})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, tc := range []struct{ code, value, errName string }{
		{code: "x := 21"},
		{code: "%time x * 2", value: "42"},
		{code: "%timeit -n 10 -r 2 x * 2"},
		{code: "%%timeit -n 2 -r 1 y := 0\nfor i := 0; i < 100; i++ { y += i }"},
		{code: "%whos"},
		{code: "%env VECLAB_NOT_SET", errName: eval.UsageErrorName},
		{code: "%nope", errName: eval.UsageErrorName},
	} {
		res := sess.Eval(tc.code, &eval.Recorder{})
		switch {
		case tc.errName != "":
			if res.Err == nil || res.Err.Name != tc.errName {
				t.Errorf("%q: %+v, want %s", tc.code, res.Err, tc.errName)
			}
		case res.Err != nil:
			t.Errorf("%q: %v", tc.code, res.Err)
		case tc.value != "" && !strings.Contains(res.Value["text/plain"].(string), tc.value):
			t.Errorf("%q: value %v, want %s", tc.code, res.Value, tc.value)
		}
	}
	if vs := sess.Variables(); len(vs) != 2 || vs[0].Name != "x" || vs[1].Name != "y" {
		t.Errorf("Variables: %+v", vs)
	}
}
