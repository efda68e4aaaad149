package e02_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e02"
	"github.com/veclab/veclab/lab/profile"
)

// Notebooks 01 and 02: recall of the stores on their defaults (E02), one
// profile at a time or all four, and each store's graph at equal breadths.
func ExampleMeasure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	m, err := experiment.MeasureProfile(env, profile.Default(profile.Redis))
	check(err)
	fmt.Println(m)
	res02, err := e02.Measure(env)
	check(err)
	fmt.Println(e02.Table(env, res02))
	eq, err := e02.MeasureBreadth(env, []int{10, 40, 100})
	check(err)
	fmt.Println(eq.Table)
	fmt.Println(e02.Verdicts(env, res02), e02.ShapeVerdicts(env, res02, eq))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
