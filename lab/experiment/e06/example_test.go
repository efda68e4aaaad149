package e06_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e06"
)

// A notebook runs an experiment cell by cell: an environment, the sweep,
// the table (article beside lab) and the chart.
func ExampleMeasure() {
	env, err := experiment.NewEnv(experiment.Small, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Close()
	env.Progress = func(done, total int, what string) {} // e.g. update a progress bar
	ms, err := e06.Measure(env, []int{10, 50, 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := e06.Table(env, ms, nil)
	c := e06.Chart(ms)
	fmt.Println(len(t.Rows), t.Columns[1].Label(), t.Columns[2].Label(), c.Err())
	// Output: 3 recall@10 (article) recall@10 (lab) <nil>
}

// Notebook 02's EF_RUNTIME sweep, filtered and not, and its verdicts
// (small scale here).
func ExampleVerdicts() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	res06, err := e06.Measure(env, e06.Default)
	check(err)
	filtered, err := e06.MeasureFiltered(env, e06.Default)
	check(err)
	fmt.Println(len(e06.Table(env, res06, filtered).Rows), "EF_RUNTIME settings")
	for _, v := range e06.Verdicts(env, res06) {
		fmt.Println(v.ID, v.Claim)
	}
	// Output:
	// 3 EF_RUNTIME settings
	// E06 10 (Redis EF_RUNTIME): recall@10 is 0.616
	// E06 50 (Redis EF_RUNTIME): recall@10 is 0.962
	// E06 200 (Redis EF_RUNTIME): recall@10 is 1.000
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
