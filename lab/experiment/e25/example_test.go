package e25_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e25"
)

// Notebook 09: parents of passages (E25) built, queried and measured by
// beam, and by passage-count distribution (small scale here).
func ExampleBuild() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	x, err := e25.Build(env, e25.Config{})
	check(err)
	fmt.Println(x.CountChart().Err())
	_, err = x.Query(env, 0, 40)
	check(err)
	rows, err := e25.Measure(env, x, e25.Ef)
	check(err)
	fmt.Println(len(e25.Table(env, x, rows).Rows) > 0, e25.Chart(env, rows).Err())
	_ = x.Summary(env, rows) // per beam, the parent walk beside the naive plan
	st, shapes, err := e25.Shapes(env, []e25.Config{{MinPassages: 1, MaxPassages: 1}, {}}, 40)
	check(err)
	fmt.Println(len(st.Rows), "shapes;", e25.ShapeChart(shapes).Err())
	fmt.Println(e25.Verdicts(env, x, rows, shapes)[0].ID)
	// Output:
	// <nil>
	// true <nil>
	// 2 shapes; <nil>
	// E25
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
