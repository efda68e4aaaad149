package display

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/kernel/internal/hook"
)

type transientShown struct {
	text      string
	html      string
	id        string
	update    bool
	transient bool
}

func captureTransient(t *testing.T) *[]transientShown {
	var got []transientShown
	old := hook.Set(func(d map[string]any, id string, update, transient bool) {
		h, _ := d[MIMEHTML].(string)
		got = append(got, transientShown{d[MIMEText].(string), h, id, update, transient})
	})
	t.Cleanup(func() { hook.Set(old) })
	return &got
}

func TestProgress(t *testing.T) {
	got := captureTransient(t)
	hook.StartCell()
	p := Progress()
	for i := 0; i <= 1000; i++ { // within ProgressEvery: only the first and the last are shown
		p(i, 1000, "build <HNSW>")
	}
	p(0, 10, "search") // a new step is shown at once
	if len(*got) != 3 {
		t.Fatalf("%d displays, want 3 (first, last, new step): %+v", len(*got), *got)
	}
	first, last, step := (*got)[0], (*got)[1], (*got)[2]
	if !first.transient || first.update || first.id == "" || !last.update || last.id != first.id || step.id != first.id || !step.update {
		t.Errorf("one transient display updated in place: %+v", *got)
	}
	if !strings.HasPrefix(first.text, "build <HNSW>: 0 of 1000 (0 %) · ") || !strings.HasPrefix(last.text, "build <HNSW>: 1000 of 1000 (100 %) · ") {
		t.Errorf("text: %q, %q", first.text, last.text)
	}
	if !strings.Contains(last.html, `<progress style="width:16em;vertical-align:middle" value="1000" max="1000">`) ||
		!strings.Contains(last.html, "build &lt;HNSW&gt;") {
		t.Errorf("html: %s", last.html)
	}
	time.Sleep(ProgressEvery + 10*time.Millisecond)
	p(5, 10, "search") // the interval has passed: shown
	if n := len(*got); n != 4 || !strings.HasPrefix((*got)[3].text, "search: 5 of 10 (50 %)") || !strings.Contains((*got)[3].text, "left") {
		t.Fatalf("after the interval: %+v", (*got)[3:])
	}
	hook.StartCell() // the cell ended: its display was taken away
	p(6, 10, "search")
	if g := (*got)[4]; g.update || g.id == first.id || !g.transient {
		t.Errorf("a reporter called in a later cell shows a new display: %+v", g)
	}
}

func TestProgressBundle(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		elapsed     time.Duration
		text        string
	}{
		{0, 4, 0, "w: 0 of 4 (0 %) · 0.0 s"},
		{1, 4, 3 * time.Second, "w: 1 of 4 (25 %) · 3.0 s, about 9.0 s left"},
		{2, 4, 40 * time.Second, "w: 2 of 4 (50 %) · 40 s, about 40 s left"},
		{1, 3, 65 * time.Second, "w: 1 of 3 (33 %) · 1 min 05 s, about 2 min 10 s left"},
		{4, 4, 2*time.Hour + 3*time.Minute, "w: 4 of 4 (100 %) · 2 h 03 min"},
		{9, 4, time.Second, "w: 9 of 4 (100 %) · 1.0 s"},
		{7, 0, time.Second, "w: 7 · 1.0 s"},
	} {
		b := ProgressBundle(tc.done, tc.total, "w", tc.elapsed)
		if b[MIMEText] != tc.text {
			t.Errorf("ProgressBundle(%d, %d, %v) = %q, want %q", tc.done, tc.total, tc.elapsed, b[MIMEText], tc.text)
		}
		if h := b[MIMEHTML].(string); !strings.Contains(h, "<progress") || !strings.Contains(h, tc.text) {
			t.Errorf("html %s", h)
		}
	}
}
