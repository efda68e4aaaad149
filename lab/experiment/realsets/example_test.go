package realsets_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/realsets"
)

// Notebook 14: the same measurements on real embeddings, one environment
// per data set (a set not fetched is skipped with its reason).
func ExampleOpenRealSets() {
	scale, err := experiment.NotebookScale("article")
	check(err)
	sets, err := experiment.OpenRealSets(scale, 1)
	check(err)
	fmt.Println(sets)
	quants, err := realsets.MeasureQuantSets(sets, []string{"raw", "int8"}, []float64{1, 3})
	check(err)
	fmt.Println(quants.Table("E22 int8 beside raw float32", "raw", "int8"), quants.Chart("E22 int8", "int8").Err())
	var runs realsets.SetRuns
	for _, name := range sets.Names {
		env, err := experiment.NewEnv(experiment.Small, 1)
		if err == nil && name != "generated" {
			err = env.UseData(name, "")
		}
		check(err)
		run, err := realsets.RunOnSet(env)
		env.Close()
		check(err)
		runs = append(runs, run)
	}
	fmt.Println(runs.StoresTable())
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
