package e24_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e24"
)

// A notebook cell measuring the 1-bit quantizers at its own oversample
// factors (small scale here).
func ExampleSweep() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := e24.Sweep(env, []float64{1, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(t.Rows), "quantizers")
	// Output: 3 quantizers
}
