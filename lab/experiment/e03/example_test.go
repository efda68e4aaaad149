package e03_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e03"
)

// Notebook 04: the article's filter, pgvector's post-filter (E03) and
// its arithmetic, and hits by selectivity.
func ExampleMeasure() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	sel, err := experiment.MeasureSelectivity(env, experiment.ArticleFilter)
	check(err)
	fmt.Println(sel)
	res03, err := e03.Measure(env)
	check(err)
	fmt.Println(e03.Table(env, res03))
	pf, err := e03.PostFilterHits(env, res03)
	check(err)
	fmt.Println(pf)
	hits, err := experiment.SweepSelectivity(env, []string{"year == 2025"}, []string{experiment.ArticleFilter})
	check(err)
	fmt.Println(hits.Table)
	fmt.Println(e03.Verdicts(env, res03))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
