package widget

import (
	"github.com/veclab/veclab/kernel/comm"
	"github.com/veclab/veclab/kernel/display"
)

// Interactive is what Interact returns: the controls above the output
// area fn draws into. It shows as its box.
type Interactive struct {
	*Box
	Out      *Output
	fn       func()
	controls []Model
}

// Interact lays out controls above an output area, runs fn once into it,
// and runs fn again each time a control changes (a value, a selection, a
// click), replacing its output in place: clear_output(wait) then fn's new
// output, so the area does not flicker.
//
// Redraws never queue: a change that arrives while fn runs stops that run
// (as an interrupt does: interpreted loops, time.Sleep and the engine's
// builds stop at once) and fn starts again with the newest values; when
// several changes are queued (a slider dragged), only the last one redraws
// — the last value wins. That is the debounce: no redraw is spent on a
// value the user has already left. (Jupyter's widget manager also holds a
// model's next change until the kernel is idle after its last, merging the
// changes between, so of one slider's changes only the newest is ever
// sent; a change of another control arrives at once and preempts.)
//
// fn reads the controls itself (ef.Value()): the function needs no
// arguments, which keeps Interact free of generics and reflection.
// Detached (no front end), fn runs once into the cell's own output, and
// again on each change a cell makes (SetValue); under a recording with a
// capture function (`veclab run`, [Record]) it runs into the output area
// as it would with a front end, so the saved widget state holds its last
// output.
func Interact(fn func(), controls ...Model) *Interactive {
	out := NewOutput()
	kids := append(append([]Model{}, controls...), out)
	ia := &Interactive{Box: VBox(kids...), Out: out, fn: fn, controls: controls}
	if fn == nil {
		return ia
	}
	for _, c := range controls {
		if c == nil {
			continue
		}
		switch x := c.(type) {
		case *Button:
			x.OnClick(ia.redraw)
		case *Dropdown, *ToggleButtons, *SelectionSlider:
			c.Base().Observe("index", ia.redraw)
		case *Tab:
			c.Base().Observe("selected_index", ia.redraw)
		default:
			c.Base().Observe("value", ia.redraw)
		}
	}
	if !out.capturing() {
		fn()
		return ia
	}
	out.Capture(fn)
	return ia
}

// redraw reruns fn into the output area, preemptibly.
func (ia *Interactive) redraw() {
	ids := make([]string, 0, len(ia.controls))
	for _, c := range ia.controls {
		if c != nil {
			ids = append(ids, c.Base().ID())
		}
	}
	if !ia.Out.Attached() {
		if ia.Out.capturing() { // a recording: replace the area's output
			ia.Out.Capture(func() {
				display.ClearOutput(true)
				ia.fn()
			})
			return
		}
		ia.fn()
		return
	}
	comm.Default.Preemptible(ids, func() {
		ia.Out.Capture(func() {
			display.ClearOutput(true)
			ia.fn()
		})
	})
}

// Redraw runs fn again into the output area, as a change does.
func (ia *Interactive) Redraw() { ia.redraw() }
