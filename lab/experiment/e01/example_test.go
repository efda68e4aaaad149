package e01_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e01"
	"github.com/veclab/veclab/lab/experiment/e02"
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

// Notebook 01's cells: the four stores opened on their defaults, loaded and
// timed (measure.Ingest), the queries run on them (measure.Store), and the
// verdicts of E01 and E02 over the cells' figures (experiment.Rows hands
// the measure.Results to E02's Verdicts).
func ExampleVerdicts() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	ds, err := dataset.Generate(dataset.Config{N: env.Scale.N, Queries: env.Scale.Queries, Dim: env.Scale.Dim, Clusters: env.Scale.Clusters, Seed: env.Seed})
	check(err)
	queries, err := measure.Exact(ds, env.Scale.K, engine.Cosine)
	check(err)
	var res01 []measure.Ingested
	var res02 []measure.Result
	for _, p := range profile.Defaults() {
		p.Seed = env.Seed
		s, in, err := measure.Ingest(p, ds.Base, profile.BuildOptions{Batch: env.Scale.Batch}, queries)
		check(err)
		r, err := measure.Store(s, queries)
		check(err)
		check(s.Close())
		res01, res02 = append(res01, in), append(res02, r)
	}
	lagTable, _, err := e01.Lag(env, res01)
	check(err)
	fmt.Println(e01.Verdicts(env, res01, lagTable))
	fmt.Println(e02.Verdicts(env, experiment.Rows(res02)))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
