package e05_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e05"
)

// Notebook 03: Elasticsearch's quantized default (E05) by num_candidates,
// then its rescoring oversample raised (small scale here; the notebook
// opens its environment with Notebook("article", 1)).
func ExampleMeasure() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	res05, err := e05.Measure(env, e05.Default)
	check(err)
	t := e05.Table(env, res05)
	fmt.Println(len(t.Rows), "num_candidates settings;", e05.Chart(res05).Err())
	sweep, err := e05.OversampleSweep(env, e05.OversampleDefault)
	check(err)
	fmt.Println(len(sweep.Table.Rows), "oversample rows")
	vs := append(e05.Verdicts(env, res05), e05.OversampleVerdicts(env, sweep)...)
	fmt.Println(len(vs) > 0, vs[0].ID)
	// Output:
	// 4 num_candidates settings; <nil>
	// 8 oversample rows
	// true E05
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
