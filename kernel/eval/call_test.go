//go:build !race

// gomacro's interrupt flag is a plain field: keep this test out of -race.

package eval

import (
	"strings"
	"testing"
	"time"
)

// cellFunc returns the interpreted func() a cell declared as name.
func cellFunc(t *testing.T, s *Session, name string) func() {
	t.Helper()
	v := s.ir.ValueOf(name)
	f, ok := v.ReflectValue().Interface().(func())
	if !ok {
		t.Fatalf("%s is %T, not func()", name, v.ReflectValue().Interface())
	}
	return f
}

// TestCall runs interpreted functions as cells run: what they print and
// display goes to the Output given, a panic is an Error, an interrupt
// stops an interpreted loop, ClearOutput reaches a Clearer, and the
// session runs cells afterwards.
func TestCall(t *testing.T) {
	s := newSession(t, Options{})
	if r := s.Eval(`import "github.com/veclab/veclab/kernel/display"
func hello() { fmt.Println("hello from a callback"); display.Markdown("*md*") }
func boom() { var m map[string]int; m["x"] = 1 }
func spin() { n := 0; for { n++ } }
func past() {
	xs := []int{1, 2}
	for i := 0; i < 3; i++ {
		xs[i]++
	}
}
func redraw() { fmt.Println("old"); display.ClearOutput(true); fmt.Println("new") }`, &Recorder{}); r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, tc := range []struct {
		name      string
		interrupt bool
		wantErr   string // Error.Name, "" for none
		wantValue string // Error.Value, when given
		wantOut   string // stdout recorded
		wantItems int
	}{
		{name: "hello", wantOut: "hello from a callback\n", wantItems: 2},
		{name: "boom", wantErr: "runtime error",
			wantValue: `assignment to entry in nil map (line 3 of the cell starting "import \"github.com/veclab/veclab/kernel/display\"": func boom() { var m map[string]int; m["x"] = 1 })`},
		{name: "past", wantErr: "runtime error",
			wantValue: `index out of range [2] with length 2 (line 8 of the cell starting "import \"github.com/veclab/veclab/kernel/display\"": xs[i]++)`},
		{name: "spin", interrupt: true, wantErr: InterruptedName},
		{name: "redraw", wantOut: "new\n", wantItems: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cellFunc(t, s, tc.name)
			if tc.interrupt {
				time.AfterFunc(100*time.Millisecond, s.Interrupt)
			}
			rec := &Recorder{}
			done := make(chan *Error, 1)
			go func() { done <- s.Call(tc.name, f, rec) }()
			var err *Error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Call did not return")
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || err.Name != tc.wantErr):
				t.Fatalf("error %v, want %s", err, tc.wantErr)
			case tc.wantValue != "" && err.Value != tc.wantValue:
				t.Fatalf("error %q\nwant  %q", err.Value, tc.wantValue)
			}
			if got := rec.Text("stdout"); got != tc.wantOut {
				t.Errorf("stdout %q, want %q", got, tc.wantOut)
			}
			if tc.wantItems > 0 && len(rec.Items) != tc.wantItems {
				t.Errorf("%d items, want %d: %+v", len(rec.Items), tc.wantItems, rec.Items)
			}
		})
	}
	if r := s.Eval(`1 + 2`, &Recorder{}); r.Err != nil || !strings.Contains(r.Value["text/plain"].(string), "3") {
		t.Errorf("cell after callbacks: %+v", r)
	}
	if err := s.Call("nil", nil, nil); err == nil {
		t.Errorf("Call(nil) succeeded")
	}
}
