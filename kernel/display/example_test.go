package display_test

import (
	"fmt"

	"github.com/veclab/veclab/kernel/display"
)

type score float64

func (s score) HTML() string   { return fmt.Sprintf("<b>%.2f</b>", float64(s)) }
func (s score) String() string { return fmt.Sprintf("%.2f", float64(s)) }

// Render lists every MIME type a value offers; the kernel shows the
// richest one the front end supports. Outside a kernel the display
// functions print the text/plain form.
func ExampleRender() {
	b := display.Render(score(0.951))
	fmt.Println(b["text/html"], b["text/plain"])
	display.Any(score(0.616))
	// Output:
	// <b>0.95</b> 0.95
	// 0.62
}

// A Handle is one display that is replaced in place, for progress.
func ExampleHandle() {
	h := display.NewHandle()
	for i := 1; i <= 2; i++ {
		h.Text(fmt.Sprintf("built %d of 2 indexes", i))
	}
	// Output:
	// built 1 of 2 indexes
	// built 2 of 2 indexes
}
