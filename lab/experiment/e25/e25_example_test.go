package e25_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment/e25"
)

// A notebook cell choosing E25's passage-count distribution: the config
// prints in the form it parses, and its zero fields take the defaults.
func ExampleParseConfig() {
	c, err := e25.ParseConfig("passages=1-16")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c, "→ mean", c.MeanPassages(), "passages per parent")
	fmt.Println(e25.Config{}.WithDefaults())
	_, err = e25.ParseConfig("passages=8-2")
	fmt.Println(err)
	// Output:
	// passages=1-16 spread=0.5 → mean 8.5 passages per parent
	// passages=2-8 spread=0.5
	// experiment: E25 config: max passages 2 below min 8: experiment: engine: invalid argument
}
