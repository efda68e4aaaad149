package e07_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e07"
)

// Notebook 04's knobs: every filtered strategy measured once under filters
// from 0.1 % to 50 % of the documents (small scale here), then one
// setting of the knobs looked up: its table, its story and its chart.
func ExampleMeasureStrategyGrid() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	g, err := e07.MeasureStrategyGrid(env, []string{
		"category == 'c3' || category == 'c5'", "category == 'c3' && region == 'latam'",
		experiment.ArticleFilter, "category == 'c3'",
	})
	check(err)
	fmt.Println(g.Labels(), g.Strategies)
	t, err := g.Table(1) // the article's filter
	check(err)
	fmt.Println(len(t.Rows), "strategies;", len(g.Overview().Rows), "selectivities")
	story, err := g.Story(1)
	check(err)
	fmt.Println(story[:len("s = 4.0 %: ef_search 40 yields 40 rows")])
	c, err := g.Chart(1, 2)
	check(err)
	fmt.Println(c.Err())
	_, err = g.Detail(9, 0)
	fmt.Println(err)
	// Output:
	// [1.4 % 4.0 % 13 % 26 %] [post-filter 40 post-filter 200 relaxed_order strict_order in-graph exact]
	// 6 strategies; 4 selectivities
	// s = 4.0 %: ef_search 40 yields 40 rows
	// <nil>
	// experiment: strategy grid: filter 9 (want 0…3): experiment: engine: invalid argument
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
