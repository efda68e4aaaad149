package e03_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e03"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/profile"
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

// Notebook 04's steps: pgvector on its defaults, the article's filter
// applied after the graph walk, the rows handed to the verdicts
// (experiment.FilteredRows) and, with a real PostgreSQL configured
// (VECLAB_PG), the real server's answer beside the lab's
// (experiment.MeasureLiveStore).
func Example_steps() {
	env, err := experiment.Notebook("article", 1)
	check(err)
	defer env.Close()
	ds, err := env.Dataset()
	check(err)
	queries, err := measure.Exact(ds, env.Scale.K, engine.Cosine)
	check(err)
	filtered, err := queries.Where(dataset.ArticleWhere)
	check(err)
	pg, err := profile.Default(profile.PGVector).Build(ds.Base, profile.BuildOptions{Batch: env.Scale.Batch})
	check(err)
	defer pg.Close()
	r, err := measure.Store(pg, filtered)
	check(err)
	rows := experiment.FilteredRows([]measure.Result{r})
	if env.PG != nil {
		live, err := experiment.MeasureLiveStore(env, pg, filtered.Filter, "pgvector")
		check(err)
		rows[0].Live = &live
	}
	fmt.Println(e03.Verdicts(env, rows))
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
