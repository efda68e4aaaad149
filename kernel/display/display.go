package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/veclab/veclab/kernel/internal/hook"
)

// MIME types used by Render and the display functions.
const (
	MIMEText     = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMESVG      = "image/svg+xml"
	MIMEPNG      = "image/png"
	MIMEJSON     = "application/json"
	// MIMEVegaLite is a Vega-Lite v5 spec, which JupyterLab and JupyterLite
	// render with their built-in Vega renderer (tooltips, zoom, legends
	// that toggle series). nbconvert's exporters and plain viewers do not
	// know it and show the bundle's PNG or SVG instead.
	MIMEVegaLite = "application/vnd.vegalite.v5+json"
)

// Bundle is a MIME bundle as Jupyter carries it: MIME type → data. Text
// types hold a string; image/png holds the base64 text of the PNG bytes;
// application/json and the Vega-Lite type hold a json.RawMessage.
type Bundle map[string]any

// The method sets Render looks for.
type (
	htmler     interface{ HTML() string }
	svger      interface{ SVG() string }
	markdowner interface{ Markdown() string }
	pnger      interface{ PNG() []byte }
	pngErrer   interface{ PNG() ([]byte, error) }
	vegaLiter  interface{ VegaLite() []byte }
	// bundler is IPython's _repr_mimebundle_: a value that knows its whole
	// bundle (a widget: its view reference and a text fallback).
	bundler interface{ MIMEBundle() map[string]any }
)

// Render returns the MIME bundle of v: every rich form its methods offer
// (MIMEBundle() map[string]any, whose entries are taken as they are, a
// text/plain among them replacing the default text; HTML() string, SVG() string, Markdown() string, PNG() []byte or
// PNG() ([]byte, error), VegaLite() []byte (a Vega-Lite v5 spec, which
// must be valid JSON), and a JSON method with no argument returning JSON
// bytes, a JSON string or any marshallable value, optionally with an
// error; an image.Image becomes PNG) plus
// text/plain (String() when v has it; otherwise its type name when a rich
// form exists, %v when none does). A method that panics
// or fails is left out and its error noted in text/plain. Render(nil)
// returns a bundle with text/plain "<nil>".
func Render(v any) Bundle {
	b := Bundle{}
	var notes []string
	bundleText := "" // the text/plain a MIMEBundle method gave
	try := func(mime string, f func() (any, error)) {
		defer func() {
			if r := recover(); r != nil {
				notes = append(notes, fmt.Sprintf("(%s rendering panicked: %v)", mime, r))
			}
		}()
		d, err := f()
		if err != nil {
			notes = append(notes, fmt.Sprintf("(%s rendering failed: %v)", mime, err))
			return
		}
		b[mime] = d
	}
	if x, ok := v.(bundler); ok {
		func() {
			defer func() {
				if r := recover(); r != nil {
					notes = append(notes, fmt.Sprintf("(MIMEBundle panicked: %v)", r))
				}
			}()
			for mime, d := range x.MIMEBundle() {
				b[mime] = d
			}
		}()
		if t, ok := b[MIMEText].(string); ok {
			delete(b, MIMEText)
			bundleText = t
		}
	}
	if x, ok := v.(htmler); ok {
		try(MIMEHTML, func() (any, error) { return x.HTML(), nil })
	}
	if x, ok := v.(svger); ok {
		try(MIMESVG, func() (any, error) { return x.SVG(), nil })
	}
	if x, ok := v.(markdowner); ok {
		try(MIMEMarkdown, func() (any, error) { return x.Markdown(), nil })
	}
	switch x := v.(type) {
	case pnger:
		try(MIMEPNG, func() (any, error) { return base64.StdEncoding.EncodeToString(x.PNG()), nil })
	case pngErrer:
		try(MIMEPNG, func() (any, error) {
			p, err := x.PNG()
			return base64.StdEncoding.EncodeToString(p), err
		})
	case image.Image:
		try(MIMEPNG, func() (any, error) {
			var buf bytes.Buffer
			err := png.Encode(&buf, x)
			return base64.StdEncoding.EncodeToString(buf.Bytes()), err
		})
	}
	if x, ok := v.(vegaLiter); ok {
		try(MIMEVegaLite, func() (any, error) { return checkJSON("VegaLite()", x.VegaLite()) })
	}
	if m := jsonMethod(v); m != nil {
		try(MIMEJSON, func() (any, error) { return callJSON(m) })
	}
	text := Text(v)
	if len(b) > 0 {
		// A value shown richly without a String method of its own would
		// print its fields as text/plain: name its type instead.
		switch v.(type) {
		case fmt.Stringer, error:
		default:
			text = fmt.Sprintf("%T", v)
		}
	}
	if bundleText != "" {
		text = bundleText
	}
	for _, n := range notes {
		text += "\n" + n
	}
	b[MIMEText] = text
	return b
}

// jsonMethod returns v's JSON method as a call, when v has one of the
// shapes below: JSON() returning a map, a list of maps, []byte, string,
// json.RawMessage or any, alone or with an error.
//
// It asks by interface assertion, never by reflect's MethodByName: that
// builds a reflect.Method whose code address sits in a pointer-typed heap
// cell (reflect/type.go, Go 1.26 and 1.27), and under js/wasm a code
// address lies among the heap's addresses above 256 MB, so the collector
// can take it for a pointer to a free object and crash the program
// ("found pointer to free object"; docs/testing.md). Rendering is the
// kernel's most frequent call (every displayed value, every redraw), so
// it must not make one.
func jsonMethod(v any) func() (any, error) {
	switch x := v.(type) {
	case interface{ JSON() map[string]any }:
		return func() (any, error) { return x.JSON(), nil }
	case interface{ JSON() []map[string]any }:
		return func() (any, error) { return x.JSON(), nil }
	case interface{ JSON() json.RawMessage }:
		return func() (any, error) { return x.JSON(), nil }
	case interface{ JSON() []byte }:
		return func() (any, error) { return x.JSON(), nil }
	case interface{ JSON() string }:
		return func() (any, error) { return x.JSON(), nil }
	case interface{ JSON() any }:
		return func() (any, error) { return x.JSON(), nil }
	case interface {
		JSON() (map[string]any, error)
	}:
		return func() (any, error) { return x.JSON() }
	case interface {
		JSON() ([]map[string]any, error)
	}:
		return func() (any, error) { return x.JSON() }
	case interface {
		JSON() (json.RawMessage, error)
	}:
		return func() (any, error) { return x.JSON() }
	case interface{ JSON() ([]byte, error) }:
		return func() (any, error) { return x.JSON() }
	case interface{ JSON() (string, error) }:
		return func() (any, error) { return x.JSON() }
	case interface{ JSON() (any, error) }:
		return func() (any, error) { return x.JSON() }
	}
	return nil
}

// callJSON calls a JSON method: []byte, string and json.RawMessage results
// must be valid JSON; anything else is marshalled.
func callJSON(m func() (any, error)) (any, error) {
	out, err := m()
	if err != nil {
		return nil, err
	}
	switch r := out.(type) {
	case []byte:
		return checkJSON("JSON()", r)
	case json.RawMessage:
		return checkJSON("JSON()", r)
	case string:
		return checkJSON("JSON()", []byte(r))
	default:
		raw, err := json.Marshal(r)
		return json.RawMessage(raw), err
	}
}

func checkJSON(method string, raw []byte) (any, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("%s returned invalid JSON", method)
	}
	return json.RawMessage(raw), nil
}

// Text returns the text/plain form of v: String() for a fmt.Stringer or
// error, %v otherwise; nil prints as <nil>.
func Text(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("(%T: String panicked: %v)", v, r)
		}
	}()
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	case string:
		return x
	}
	if rv := reflect.ValueOf(v); (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Map ||
		rv.Kind() == reflect.Slice || rv.Kind() == reflect.Func || rv.Kind() == reflect.Chan ||
		rv.Kind() == reflect.Interface) && rv.IsNil() {
		return fmt.Sprintf("%T(nil)", v)
	}
	return fmt.Sprintf("%v", v)
}

func show(b Bundle, id string, update bool) { publish(b, id, update, false) }

// publish hands b to the evaluation core; with none running, it writes the
// text/plain form to standard output (standard error for a transient
// display, which is no part of a program's output).
func publish(b Bundle, id string, update, transient bool) {
	if p := hook.Get(); p != nil {
		p(map[string]any(b), id, update, transient)
		return
	}
	if t, ok := b[MIMEText].(string); ok {
		w := os.Stdout
		if transient {
			w = os.Stderr
		}
		fmt.Fprintln(w, t)
	}
}

// Show displays a MIME bundle as it is (it should contain text/plain).
func Show(b Bundle) { show(b, "", false) }

// Any displays v rendered by its method set (see [Render]).
func Any(v any) { show(Render(v), "", false) }

// HTML displays an HTML fragment.
func HTML(html string) { show(Bundle{MIMEHTML: html, MIMEText: "[HTML]"}, "", false) }

// Markdown displays Markdown text.
func Markdown(md string) { show(Bundle{MIMEMarkdown: md, MIMEText: md}, "", false) }

// SVG displays an SVG document.
func SVG(svg string) { show(Bundle{MIMESVG: svg, MIMEText: "[SVG]"}, "", false) }

// PNG displays PNG-encoded image bytes.
func PNG(data []byte) {
	show(Bundle{MIMEPNG: base64.StdEncoding.EncodeToString(data), MIMEText: "[PNG " + strconv.Itoa(len(data)) + " bytes]"}, "", false)
}

// VegaLite displays a Vega-Lite v5 spec (JSON), for a chart written by
// hand; a spec that is not JSON is shown as an error text instead. A front
// end without a Vega renderer shows the text "[Vega-Lite]".
func VegaLite(spec []byte) {
	if !json.Valid(spec) {
		show(Bundle{MIMEText: "display.VegaLite: the spec is not valid JSON"}, "", false)
		return
	}
	show(Bundle{MIMEVegaLite: json.RawMessage(append([]byte(nil), spec...)), MIMEText: "[Vega-Lite]"}, "", false)
}

// JSON displays v marshalled with encoding/json; a value that cannot be
// marshalled is shown as the error text instead.
func JSON(v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		show(Bundle{MIMEText: "display.JSON: " + err.Error()}, "", false)
		return
	}
	show(Bundle{MIMEJSON: json.RawMessage(raw), MIMEText: string(raw)}, "", false)
}

// Handle is a display that can be replaced in place: the first Show (or
// Update) creates it, later calls update it (update_display_data).
type Handle struct {
	id    string
	shown atomic.Bool
}

var handleSeq atomic.Uint64

// NewHandle returns a handle with a fresh display id. Nothing is shown
// until Show or Update is called.
func NewHandle() *Handle {
	return &Handle{id: fmt.Sprintf("veclab-%d-%d", os.Getpid(), handleSeq.Add(1))}
}

// ID returns the display id (the display_id of the Jupyter messages).
func (h *Handle) ID() string { return h.id }

// String describes the handle.
func (h *Handle) String() string { return "display.Handle(" + h.id + ")" }

// ShowBundle shows b as this handle's display, or replaces it when the
// handle has been shown already.
func (h *Handle) ShowBundle(b Bundle) {
	update := h.shown.Swap(true)
	show(b, h.id, update)
}

// showTransient is ShowBundle for a display the cell's end takes away.
func (h *Handle) showTransient(b Bundle) {
	update := h.shown.Swap(true)
	publish(b, h.id, update, true)
}

// Show shows v (rendered by [Render]) as this handle's display; the first
// call creates the display, later calls replace it.
func (h *Handle) Show(v any) { h.ShowBundle(Render(v)) }

// Update is Show: it replaces the handle's display with v.
func (h *Handle) Update(v any) { h.Show(v) }

// HTML replaces the handle's display with an HTML fragment.
func (h *Handle) HTML(html string) { h.ShowBundle(Bundle{MIMEHTML: html, MIMEText: "[HTML]"}) }

// Markdown replaces the handle's display with Markdown text.
func (h *Handle) Markdown(md string) { h.ShowBundle(Bundle{MIMEMarkdown: md, MIMEText: md}) }

// Text replaces the handle's display with plain text.
func (h *Handle) Text(s string) { h.ShowBundle(Bundle{MIMEText: s}) }

// ClearOutput clears what the running cell (or callback) has shown so far,
// as Jupyter's clear_output: with wait the front end clears only when the
// next output arrives, so a cell that redraws a result in a loop does not
// flicker. Outside a kernel it does nothing.
func ClearOutput(wait bool) {
	if c := hook.GetClear(); c != nil {
		c(wait)
	}
}
