package experiment_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
)

// The registered experiments, as `veclab reproduce -list` prints them.
func ExampleSelect() {
	exps, err := experiment.Select("E06,E02")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range exps {
		f, _ := e.Figure(map[string]string{"E02": "redis", "E06": "50"}[e.ID], "recall@10")
		fmt.Printf("%s %s (article: %v)\n", e.ID, e.Title, f)
	}
	// Output:
	// E02 unfiltered recall@10 of four stores on their defaults (article: redis recall@10 = 0.616)
	// E06 Redis EF_RUNTIME: the library default (10) against 50 and 200 (article: 50 recall@10 = 0.962)
}

// A notebook runs an experiment cell by cell: an environment, the sweep,
// the table (article beside lab) and the chart.
func ExampleE06Measure() {
	env, err := experiment.NewEnv(experiment.Small, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Close()
	env.Progress = func(done, total int, what string) {} // e.g. update a progress bar
	ms, err := experiment.E06Measure(env, []int{10, 50, 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := experiment.E06Table(env, ms, nil)
	c := experiment.E06Chart(ms)
	fmt.Println(len(t.Rows), t.Columns[1].Label(), t.Columns[2].Label(), c.Err())
	// Output: 3 recall@10 (article) recall@10 (lab) <nil>
}
