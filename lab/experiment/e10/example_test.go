package e10_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e10"
	"github.com/veclab/veclab/lab/profile"
)

// Notebook 03: Elasticsearch's index types (E10), their sizes, codes or
// segments, and the generator's spread.
func ExampleMeasure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	ms, fms, bytes, err := e10.Measure(env, e10.Types)
	check(err)
	fmt.Println(e10.Table(env, ms, fms, bytes))
	sizes, err := e10.Sizes(env, ms, bytes)
	check(err)
	fmt.Println(sizes)
	var labels []string
	var ps []profile.Profile
	for _, segs := range []int{1, 10} {
		p := profile.Default(profile.Elasticsearch)
		p.Segments = segs
		labels, ps = append(labels, fmt.Sprint(segs, " segment(s)")), append(ps, p)
	}
	segTable, err := experiment.CompareProfiles(env, "Elasticsearch by segment count (lab)", labels, ps)
	check(err)
	fmt.Println(segTable)
	cs, err := e10.CodesOrSegments(env)
	check(err)
	fmt.Println(cs)
	rows, err := experiment.SpreadSensitivity(env, []float64{1, 1.5})
	check(err)
	fmt.Println(experiment.SpreadTable(env, rows), experiment.SpreadChart(rows).Err())
	fmt.Println(e10.Verdicts(env, ms, fms, bytes))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
