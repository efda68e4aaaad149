// Package widget is Jupyter widgets from Go cells: sliders, dropdowns,
// buttons, text, boxes, tabs, output areas and [Interact], speaking the
// Jupyter widgets messaging protocol 2.1 (ipywidgets 8) over the comms of
// kernel/comm, so JupyterLab's and JupyterLite's stock widget manager
// (@jupyter-widgets/jupyterlab-manager) draws them with no extension of
// ours. The package is non-generic on purpose: gomacro cells cannot
// instantiate generics.
//
// Sources: the protocol is ipywidgets' packages/schema/messages.md
// ("Widget messaging protocol, version 2", echo_update since 2.1.0, and
// the control protocol 1.0); model names and state fields are
// packages/schema/jupyterwidgetmodels.latest.md for
// @jupyter-widgets/base 2.0.0, @jupyter-widgets/controls 2.0.0 and
// @jupyter-widgets/output 1.0.0.
//
//	ef := widget.NewIntSlider("ef", 64, 10, 400)
//	m := widget.NewDropdown("M", []string{"8", "16", "32"}, "16")
//	widget.Interact(func() {
//		fmt.Println("recall at ef", ef.Value(), "M", m.Value())
//	}, ef, m)
//
// # Models
//
// IntSlider, FloatSlider, FloatLogSlider, SelectionSlider, Dropdown,
// ToggleButtons, Checkbox, Button (click events), Text, Label, HTML,
// Output, HBox, VBox, Tab, Play and Link (jslink: the front end keeps two
// attributes equal).
// Each control gets its Layout and its style model, as ipywidgets creates
// them. Any other model of the spec can be made with [New] and a state.
//
// # Protocol
//
//   - A widget opens a comm on target jupyter.widget with its whole state
//     and metadata {"version": "2.1.0"}; [Widget.Set] sends an update.
//   - An update from the front end is echoed first (echo_update, so other
//     front ends and the sender's pending edits agree), then applied, then
//     the observers of the keys that changed run. A value an observer sets
//     back to what the front end sent is not sent again.
//   - request_state gets a full update; custom messages go to
//     [Widget.OnCustom] ([Button.OnClick] is one).
//   - []byte values anywhere in the state travel as binary buffers with
//     their buffer_paths, in both directions.
//   - The jupyter.widget.control target answers request_states with every
//     live widget's state (update_states), so a reloaded page gets its
//     widgets back; the jupyter.widget target accepts models a front end
//     creates.
//   - A widget shows as application/vnd.jupyter.widget-view+json (version
//     2.0) with a text/plain fallback, as a cell's value or through
//     kernel/display.
//
// # Without a front end
//
// With no kernel (a test, a program) widgets are detached: their state is
// kept and set as usual, nothing is sent, they show as their text form,
// and Interact runs its function once into the cell's own output — so the
// same cell prints the same table either way.
//
// `veclab run` records ([Record]): widgets are detached, but each one a
// cell shows is a widget view (application/vnd.jupyter.widget-view+json
// with a text/plain fallback), Interact's function runs into its Output
// as under a front end (a change a cell makes replaces that output), and
// at the end the notebook's metadata gets every widget's state
// (metadata.widgets[MIMEState], ipywidgets' state schema v2: version 2.0,
// by model id the model's module, version, name and state, []byte values
// as base64 buffers) — what JupyterLab's "save widget state" writes. So a
// static export shows each widget at its last value with its Output's
// last content: `veclab export -html OUT.html NB.ipynb` draws them with
// @jupyter-widgets/html-manager (docs/commands.md). Viewers without
// widgets (GitHub, nbconvert --to markdown) show the view's text/plain,
// which `veclab run` sets to the widget's final text: a control's
// description and value (IntSlider(description="ef", value=15)), a box's
// children one per line, an Output's printed text and the text/plain of
// its displays (pictures and tables show only in the export).
//
// nbconvert is a front end: nbclient opens the comms and implements the
// Output widget's capture, so there Interact's output goes into the
// notebook's widget state (metadata), and the cell's own outputs hold the
// view with its text/plain "VBox()". A notebook whose static form must
// show a table prints it outside Interact.
//
// Keep large outputs out of the cell's own capture there: nbclient sends
// each output an Output widget captures back to the kernel on the shell
// socket while it waits for the cell's execute_reply on that socket, and
// with a picture of a few hundred kB captured the reply was read only at
// the cell's timeout (measured with nbclient 0.7.2; as in
// jupyter/nbclient#312). Notebooks 00 and 00b draw their default view
// outside Interact and let fn draw only on a change.
//
// # Concurrency
//
// A widget is safe for concurrent use. Observers and click handlers run
// as the kernel runs comm callbacks: on its shell goroutine, like a cell
// (their output goes under the message that triggered them, an interrupt
// stops them, a panic is reported and the kernel goes on).
package widget
