package e01_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e01"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/profile"
)

// Notebook 01: the four stores ingest the set on their defaults (E01),
// then the lag from the last acknowledgement to searchable.
func ExampleMeasure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	var res01 []measure.Ingested
	for _, p := range profile.Defaults() {
		in, err := e01.Measure(env, p)
		check(err)
		res01 = append(res01, in)
	}
	fmt.Println(e01.Table(env, res01))
	lagTable, lagChart, err := e01.Lag(env, res01)
	check(err)
	fmt.Println(lagTable, lagChart.Err())
	fmt.Println(e01.Verdicts(env, res01, lagTable))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
