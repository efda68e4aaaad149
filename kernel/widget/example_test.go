package widget_test

import (
	"fmt"

	"github.com/veclab/veclab/kernel/widget"
)

// Without a front end (here, or `veclab run`) Interact runs its function
// once, into the cell's own output; in Jupyter it also reruns it whenever
// a control changes, into the output area below the controls.
func ExampleInteract() {
	ef := widget.NewIntSlider("ef", 64, 10, 400)
	m := widget.NewDropdown("M", []string{"8", "16", "32"}, "16")
	ia := widget.Interact(func() {
		fmt.Println("ef", ef.Value(), "M", m.Value())
	}, ef, m)
	fmt.Println(ia)
	fmt.Println(m)
	// Output:
	// ef 64 M 16
	// VBox()
	// Dropdown(description="M", value="16")
}

// A widget keeps its state in Go either way: a value set from Go is what
// the front end shows.
func ExampleIntSlider() {
	s := widget.NewIntSlider("bits", 4, 1, 8)
	s.SetValue(12) // clamped to the slider's range
	fmt.Println(s.Value(), s)
	// Output: 8 IntSlider(description="bits", value=8)
}
