package e07_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e07"
	"github.com/veclab/veclab/lab/profile"
)

// Notebook 04: pgvector's iterative scans (E07), each row beside what its
// mechanism predicts, and hnsw.max_scan_tuples lowered (small scale here).
func ExampleMeasure() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	res07, err := e07.Measure(env, experiment.FilterProfile(profile.PGVector), e07.Default)
	check(err)
	fmt.Println(len(e07.Table(env, res07).Rows), "settings")
	_, err = e07.Read(env, res07)
	check(err)
	bounds, err := e07.ScanBoundSweep(env, []int{1000, 20000})
	check(err)
	fmt.Println(len(bounds.Table.Rows), "scan bounds (both iterative scans at each)")
	fmt.Println(e07.Verdicts(env, res07)[0].ID)
	// Output:
	// 5 settings
	// 4 scan bounds (both iterative scans at each)
	// E07
}
