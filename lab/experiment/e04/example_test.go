package e04_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e04"
)

// The last cell of every notebook: every verdict its cells stated, in
// order (here E04's, which needs no measurement).
func ExampleEnv_Verdicts() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	fmt.Println(e04.Describe(env) != "")
	t := e04.Table(env)
	env.Keep(e04.Verdicts(env, t))
	for _, v := range env.Verdicts() {
		fmt.Println(v.ID)
	}
	// Output:
	// true
	// E04
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
