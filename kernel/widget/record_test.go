package widget

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// TestRecord: a recording keeps the detached widgets made while it runs,
// shows them as views, saves []byte values as base64 buffers with their
// paths, reads as text for plain viewers, and refuses a second recording.
func TestRecord(t *testing.T) {
	before := NewLabel("before")
	calls := 0
	rec, err := Record(func(f func()) ([]any, bool) {
		calls++
		f()
		return []any{map[string]any{"output_type": "stream", "name": "stdout", "text": []any{"drawn\n"}}}, calls > 1
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	if _, err := Record(nil); !errors.Is(err, ErrRecording) {
		t.Errorf("second Record: %v, want ErrRecording", err)
	}
	s := NewIntSlider("ef", 10, 5, 80)
	img := NewHTML("picture")
	if err := img.Set("blob", []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	ia := Interact(func() {}, s)
	s.SetValue(15)
	s.SetValue(20)

	if _, ok := before.MIMEBundle()[MIMEView]; ok {
		t.Error("a widget made before the recording shows as a view")
	}
	if _, ok := ia.MIMEBundle()[MIMEView]; !ok {
		t.Error("a recorded widget does not show as a view")
	}
	st := rec.State()
	models := st["state"].(map[string]any)
	if _, ok := models[before.ID()]; ok {
		t.Error("the widget made before the recording was saved")
	}
	if st["version_major"] != 2 || len(models) != rec.Len() || len(rec.ids()) != rec.Len() { // nothing closed yet
		t.Errorf("state %v for %d widgets", st, rec.Len())
	}
	h := models[img.ID()].(map[string]any)
	bufs, _ := h["buffers"].([]any)
	if len(bufs) != 1 {
		t.Fatalf("HTML model buffers %v, want one", h["buffers"])
	}
	b := bufs[0].(map[string]any)
	if p, _ := b["path"].([]any); b["encoding"] != "base64" || b["data"] != base64.StdEncoding.EncodeToString([]byte{1, 2, 3}) || len(p) != 1 || p[0] != "blob" {
		t.Errorf("buffer %v", b)
	}
	if v := h["state"].(map[string]any)["blob"]; v != nil {
		t.Errorf("the buffer's value stays in the state: %v", v)
	}
	// Three runs of fn: the first appended, the two redraws cleared.
	outs := ia.Out.Get("outputs").([]any)
	if calls != 3 || len(outs) != 1 {
		t.Errorf("%d captures, outputs %v: want 3 and one output", calls, outs)
	}
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{
		{ia.ID(), "IntSlider(description=\"ef\", value=20)\ndrawn", true},
		{s.ID(), "IntSlider(description=\"ef\", value=20)", true},
		{ia.Out.ID(), "drawn", true},
		{before.ID(), "", false},
	} {
		if got, ok := rec.Text(tc.id); got != tc.want || ok != tc.ok {
			t.Errorf("Text(%s) = %q, %v; want %q, %v", tc.id, got, ok, tc.want, tc.ok)
		}
	}
	gone := NewLabel("closed")
	gone.Close()
	if _, ok := rec.State()["state"].(map[string]any)[gone.ID()]; ok {
		t.Error("a closed widget was saved")
	}
	rec.Stop()
	if after := NewLabel("after"); after.recorded() {
		t.Error("a widget made after Stop is recorded")
	}
}

// TestRecordedIDsRepeat checks that two runs creating the same widgets
// save the same model ids (a re-run notebook's diff shows only what
// changed), that the ids are distinct, and that they keep the UUID form
// of live ones.
func TestRecordedIDsRepeat(t *testing.T) {
	run := func() []string {
		rec, err := Record(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Stop()
		s := NewIntSlider("ef", 10, 5, 80)
		box := VBox(s, NewLabel("x"))
		return []string{s.ID(), box.ID()}
	}
	a, b := run(), run()
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("ids differ between runs: %v and %v", a, b)
	}
	seen := map[string]bool{}
	for _, id := range a {
		if len(id) != 32 || id[12] != '4' || seen[id] {
			t.Errorf("id %q: want 32 hex digits, version 4, distinct", id)
		}
		seen[id] = true
	}
	if live := NewLabel("live"); seen[live.ID()] {
		t.Errorf("an unrecorded widget got recorded id %s", live.ID())
	}
}
