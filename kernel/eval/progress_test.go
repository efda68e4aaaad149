package eval

import (
	"strings"
	"testing"
)

// removals is a Recorder that counts the RemoveDisplays calls.
type removals struct {
	Recorder
	calls [][]string
}

func (r *removals) RemoveDisplays(ids []string) {
	r.calls = append(r.calls, ids)
	r.Recorder.RemoveDisplays(ids)
}

// TestProgressRemoved: a cell's progress displays are shown while it runs
// and removed when it ends, the other outputs kept in order (stream text
// the bar separated is joined); a cell without one gets no RemoveDisplays.
func TestProgressRemoved(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	r := &removals{}
	var live []Item
	res := s.Eval(`import "github.com/veclab/veclab/kernel/display"
p := display.Progress()
fmt.Println("before")
for i := 0; i <= 3; i++ {
	p(i, 3, "build")
}
fmt.Println("between")
h := display.NewHandle()
h.Markdown("step 1")
display.Progress()(1, 2, "second bar")
display.HTML("<em>after</em>")
h.Markdown("step 2")
fmt.Println("end")
42`, recordLive{r, &live})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(r.calls) != 1 || len(r.calls[0]) != 2 {
		t.Fatalf("RemoveDisplays calls: %v", r.calls)
	}
	bars := 0
	for _, it := range live {
		if strings.Contains(it.Text, "<progress") {
			bars++
		}
	}
	if bars == 0 {
		t.Errorf("no progress bar was shown while the cell ran: %+v", live)
	}
	it := r.Items
	if len(it) != 4 || it[0].Text != "before\nbetween\n" || it[1].Data["text/markdown"] != "step 2" ||
		it[2].Data["text/html"] != "<em>after</em>" || it[3].Text != "end\n" || res.Value["text/plain"] != "42" {
		t.Errorf("outputs after the cell: %+v (value %v)", it, res.Value)
	}
	// The reporter called in a later cell shows (and loses) a display there.
	r2 := &removals{}
	if res := s.Eval(`p(1, 3, "later")`, r2); res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(r2.calls) != 1 || len(r2.Items) != 0 {
		t.Errorf("later cell: calls %v, items %+v", r2.calls, r2.Items)
	}
	r3 := &removals{}
	s.Eval(`h.Markdown("step 3")`, r3)
	if len(r3.calls) != 0 {
		t.Errorf("a cell without progress had its displays removed: %v", r3.calls)
	}
	// A failing cell loses its bar too.
	r4 := &removals{}
	if res := s.Eval("p(0, 3, \"doomed\")\npanic(\"boom\")", r4); res.Err == nil || len(r4.calls) != 1 || len(r4.Items) != 0 {
		t.Errorf("failing cell: err %v, calls %v, items %+v", res.Err, r4.calls, r4.Items)
	}
}

// recordLive passes everything to a removals and notes each display's
// HTML as it arrives (what a live front end sees).
type recordLive struct {
	*removals
	live *[]Item
}

func (r recordLive) Display(data Bundle, id string, update bool) {
	h, _ := data["text/html"].(string)
	*r.live = append(*r.live, Item{Text: h, ID: id})
	r.removals.Display(data, id, update)
}
