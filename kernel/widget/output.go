package widget

import (
	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/display"
)

// Output is an OutputModel (@jupyter-widgets/output 1.0.0): an output area.
// While its msg_id names a request, the front end routes that request's
// outputs (stream, display, clear_output, error) into it instead of the
// cell (ipywidgets' `with out:`).
type Output struct{ *Widget }

// NewOutput returns an empty output area.
func NewOutput() *Output {
	st := names(outputModule, outputVersion, "OutputModel", "OutputView")
	st["_dom_classes"] = []any{}
	st["tabbable"] = nil
	st["tooltip"] = nil
	st["layout"] = NewLayout().Ref()
	st["msg_id"] = ""
	st["outputs"] = []any{}
	return &Output{must(st)}
}

// Capture runs f with its output going into the area: msg_id is set to the
// request being handled (the cell's execute_request, or the comm message
// whose callback runs) and reset when f returns or panics. Detached, f
// just runs and its output stays in the cell, unless a recording with a
// capture function keeps o ([Record]): then f's outputs become the area's
// "outputs" state, replacing what was there when f cleared it first.
func (o *Output) Capture(f func()) {
	if f == nil {
		return
	}
	if !o.Attached() && o.rec != nil && o.rec.capture != nil {
		o.captureRecorded(f)
		return
	}
	parent := comm.Default.ParentID()
	if !o.Attached() || parent == "" {
		f()
		return
	}
	prev, _ := o.Get("msg_id").(string)
	o.Set("msg_id", parent)
	defer o.Set("msg_id", prev)
	f()
}

// Clear empties the area (a clear_output routed to it); with wait it
// clears when the next output arrives, so a redraw does not flicker.
func (o *Output) Clear(wait bool) {
	o.Capture(func() { display.ClearOutput(wait) })
}
