// Package display shows rich output from notebook cells: HTML, Markdown,
// SVG, PNG, JSON or any value rendered by what it can do, and displays that
// a long computation updates in place (progress of an experiment, say).
//
// A value is rendered by its method set (see [Render]): a type with
// HTML() string, SVG() string, Markdown() string, PNG() []byte,
// VegaLite() []byte (application/vnd.vegalite.v5+json) or JSON() (returning
// a map, a list of maps, []byte, string, json.RawMessage or any, alone or
// with an error) is shown as every MIME type it offers, plus text/plain.
// The methods are found by interface assertion, never by reflect's
// MethodByName, which on js/wasm leaves a code address where the collector
// reads a heap pointer (see jsonMethod). A front end picks the
// richest type it renders: JupyterLab and JupyterLite a chart's Vega-Lite
// spec, nbconvert and plain viewers its PNG or SVG. Libraries such as
// lab/table and lab/chart implement those methods without importing this
// package; the kernel renders the last expression of a cell the same way.
//
//	display.HTML("<b>hello</b>")
//	h := display.NewHandle()
//	for i := 0; i < 10; i++ {
//		h.Update(fmt.Sprintf("step %d/10", i+1)) // replaces the previous text
//	}
//
// [Progress] returns a reporter for the long steps of a cell (the
// signature of lab/experiment's Env.Progress) that shows a bar with the
// time left, updated in place; the display is transient: the evaluation
// core takes it away when the cell ends, so saved notebooks keep no
// progress lines.
//
//	env.Progress = display.Progress()
//
// # Outside a kernel
//
// When no evaluation core is running (a test, a plain Go program), every
// function writes the text/plain form to standard output (a progress
// display to standard error).
//
// # Concurrency
//
// The functions are safe to call from several goroutines; outputs are
// attributed to the cell that is running (or ran last).
package display
