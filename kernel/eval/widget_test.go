package eval

import (
	"strings"
	"testing"
)

// TestWidgetsDetached: without a kernel (veclab run), a cell's widgets are
// detached: Interact runs its function once into the cell's output and
// the widget's value shows as text, so the notebook prints the same.
func TestWidgetsDetached(t *testing.T) {
	s := newSession(t, Options{})
	rec := &Recorder{}
	res := s.Eval(`import "github.com/veclab/veclab/kernel/widget"
ef := widget.NewIntSlider("ef", 64, 10, 400)
widget.Interact(func() { fmt.Println("recall at ef", ef.Value()) }, ef)`, rec)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := rec.Text("stdout"); got != "recall at ef 64\n" {
		t.Errorf("stdout %q", got)
	}
	if text, _ := res.Value["text/plain"].(string); text != "VBox()" || len(res.Value) != 1 {
		t.Errorf("value %v: want only its text", res.Value)
	}
	res = s.Eval(`ef`, &Recorder{})
	if text, _ := res.Value["text/plain"].(string); !strings.Contains(text, "value=64") {
		t.Errorf("slider shown as %v", res.Value)
	}
}
