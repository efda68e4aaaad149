package display

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/veclab/veclab/kernel/internal/hook"
)

type htmlOnly struct{}

func (htmlOnly) HTML() string { return "<p>h</p>" }

type everything struct{}

func (everything) HTML() string     { return "<p>e</p>" }
func (everything) SVG() string      { return "<svg/>" }
func (everything) Markdown() string { return "*e*" }
func (everything) PNG() []byte      { return []byte{1, 2, 3} }
func (everything) JSON() []byte     { return []byte(`{"a":1}`) }
func (everything) String() string   { return "everything" }

type chartLike struct{}

func (chartLike) SVG() string      { return "<svg/>" }
func (chartLike) PNG() []byte      { return []byte{1} }
func (chartLike) VegaLite() []byte { return []byte(`{"mark":"point"}`) }

type badVega struct{}

func (badVega) VegaLite() []byte { return []byte(`{"mark":`) }

type badJSON struct{}

func (badJSON) JSON() string { return "{not json" }

type panicky struct{}

func (panicky) HTML() string { panic("no html today") }

type pngErr struct{}

func (pngErr) PNG() ([]byte, error) { return nil, errors.New("encoder broke") }

type jsonAnyV struct{}

func (jsonAnyV) JSON() any { return map[string]int{"k": 2} }

type jsonList struct{}

func (jsonList) JSON() []map[string]any { return []map[string]any{{"id": "E02"}} }

type jsonRawErr struct{}

func (jsonRawErr) JSON() (json.RawMessage, error) { return json.RawMessage(`[1,2]`), nil }

// jsonOther's JSON returns a shape jsonMethod does not list: it is not
// looked up by reflection (see jsonMethod), so only text/plain.
type jsonOther struct{}

func (jsonOther) JSON() struct{ K int } { return struct{ K int }{3} }

func TestRender(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.White)
	for _, tc := range []struct {
		name  string
		v     any
		mimes []string
		text  string
	}{
		{"int", 42, []string{MIMEText}, "42"},
		{"nil", nil, []string{MIMEText}, "<nil>"},
		{"nil pointer", (*int)(nil), []string{MIMEText}, "*int(nil)"},
		{"error", errors.New("bad"), []string{MIMEText}, "bad"},
		{"html only", htmlOnly{}, []string{MIMEHTML, MIMEText}, "display.htmlOnly"},
		{"everything", everything{}, []string{MIMEHTML, MIMESVG, MIMEMarkdown, MIMEPNG, MIMEJSON, MIMEText}, "everything"},
		{"invalid JSON left out", badJSON{}, []string{MIMEText}, "invalid JSON"},
		{"chart: Vega-Lite beside PNG and SVG", chartLike{}, []string{MIMESVG, MIMEPNG, MIMEVegaLite, MIMEText}, "display.chartLike"},
		{"invalid Vega-Lite left out", badVega{}, []string{MIMEText}, "VegaLite() returned invalid JSON"},
		{"panicking method left out", panicky{}, []string{MIMEText}, "panicked: no html today"},
		{"PNG error left out", pngErr{}, []string{MIMEText}, "encoder broke"},
		{"JSON() any", jsonAnyV{}, []string{MIMEJSON, MIMEText}, "display.jsonAnyV"},
		{"JSON() []map[string]any", jsonList{}, []string{MIMEJSON, MIMEText}, "display.jsonList"},
		{"JSON() (json.RawMessage, error)", jsonRawErr{}, []string{MIMEJSON, MIMEText}, "display.jsonRawErr"},
		{"JSON() of another type: text only", jsonOther{}, []string{MIMEText}, "{}"},
		{"image.Image", img, []string{MIMEPNG, MIMEText}, "*image.Gray"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Render(tc.v)
			if len(b) != len(tc.mimes) {
				t.Errorf("bundle has %d types, want %v: %v", len(b), tc.mimes, b)
			}
			for _, m := range tc.mimes {
				if _, ok := b[m]; !ok {
					t.Errorf("missing %s in %v", m, b)
				}
			}
			if !strings.Contains(b[MIMEText].(string), tc.text) {
				t.Errorf("text/plain %q does not contain %q", b[MIMEText], tc.text)
			}
		})
	}
	b := Render(everything{})
	if p, _ := base64.StdEncoding.DecodeString(b[MIMEPNG].(string)); string(p) != "\x01\x02\x03" {
		t.Errorf("PNG not base64 of the bytes: %v", b[MIMEPNG])
	}
	if string(b[MIMEJSON].(json.RawMessage)) != `{"a":1}` {
		t.Errorf("JSON: %s", b[MIMEJSON])
	}
	if v := Render(chartLike{})[MIMEVegaLite]; string(v.(json.RawMessage)) != `{"mark":"point"}` {
		t.Errorf("Vega-Lite: %v", v)
	}
}

type shown struct {
	data   map[string]any
	id     string
	update bool
}

func capture(t *testing.T) *[]shown {
	var got []shown
	old := hook.Set(func(d map[string]any, id string, update, _ bool) { got = append(got, shown{d, id, update}) })
	t.Cleanup(func() { hook.Set(old) })
	return &got
}

func TestFunctionsAndHandles(t *testing.T) {
	got := capture(t)
	HTML("<b>x</b>")
	Markdown("# t")
	SVG("<svg/>")
	PNG([]byte{9})
	JSON(map[string]int{"n": 1})
	JSON(func() {}) // cannot marshal: shown as an error text
	Any(everything{})
	Show(Bundle{MIMEText: "raw"})
	h := NewHandle()
	h.Text("1/3")
	h.Markdown("2/3")
	h.Update(everything{})
	want := []struct {
		mime   string
		id     bool
		update bool
	}{{MIMEHTML, false, false}, {MIMEMarkdown, false, false}, {MIMESVG, false, false}, {MIMEPNG, false, false},
		{MIMEJSON, false, false}, {MIMEText, false, false}, {MIMEHTML, false, false}, {MIMEText, false, false},
		{MIMEText, true, false}, {MIMEMarkdown, true, true}, {MIMEHTML, true, true}}
	if len(*got) != len(want) {
		t.Fatalf("%d displays, want %d: %v", len(*got), len(want), *got)
	}
	for i, w := range want {
		g := (*got)[i]
		if _, ok := g.data[w.mime]; !ok || (g.id != "") != w.id || g.update != w.update {
			t.Errorf("display %d = %+v, want %s id=%v update=%v", i, g, w.mime, w.id, w.update)
		}
		if w.id && g.id != h.ID() {
			t.Errorf("display %d has id %q, want %q", i, g.id, h.ID())
		}
	}
	if !strings.Contains((*got)[5].data[MIMEText].(string), "unsupported type") {
		t.Errorf("unmarshalable JSON: %v", (*got)[5].data)
	}
	if NewHandle().ID() == h.ID() {
		t.Error("two handles share an id")
	}
}

func TestVegaLiteFunction(t *testing.T) {
	got := capture(t)
	spec := []byte(`{"mark":"bar"}`)
	VegaLite(spec)
	spec[2] = 'X' // the display keeps its own copy
	VegaLite([]byte(`{"mark"`))
	if len(*got) != 2 {
		t.Fatalf("%d displays, want 2", len(*got))
	}
	if v, ok := (*got)[0].data[MIMEVegaLite].(json.RawMessage); !ok || string(v) != `{"mark":"bar"}` || (*got)[0].data[MIMEText] != "[Vega-Lite]" {
		t.Errorf("VegaLite showed %v", (*got)[0].data)
	}
	if _, ok := (*got)[1].data[MIMEVegaLite]; ok || !strings.Contains((*got)[1].data[MIMEText].(string), "not valid JSON") {
		t.Errorf("a spec that is not JSON showed %v", (*got)[1].data)
	}
}

type jsonMap struct{}

func (jsonMap) JSON() map[string]any { return map[string]any{"rows": 2} }

type jsonErr struct{}

func (jsonErr) JSON() ([]byte, error) { return nil, errors.New("no rows") }

func TestRenderJSONSignatures(t *testing.T) {
	if b := Render(jsonMap{}); string(b[MIMEJSON].(json.RawMessage)) != `{"rows":2}` {
		t.Errorf("JSON() map: %v", b)
	}
	if b := Render(jsonErr{}); b[MIMEJSON] != nil || !strings.Contains(b[MIMEText].(string), "no rows") {
		t.Errorf("JSON() error: %v", b)
	}
}
