package e25_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e25"
	"github.com/veclab/veclab/lab/measure"
)

// E25 as `veclab reproduce` runs it: parents of passages built, queried
// and measured by beam, and by passage-count distribution (small scale
// here).
func ExampleBuild() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	x, err := e25.Build(env, e25.Config{})
	check(err)
	fmt.Println(x.CountChart().Err())
	_, err = x.Query(env, 0, 40)
	check(err)
	rows, err := e25.Measure(env, x, []int{15, 40})
	check(err)
	fmt.Println(len(rows), "rows")
	_ = x.Summary(env, rows) // per beam, the parent walk beside the naive plan
	st, shapes, err := e25.Shapes(env, []e25.Config{{MinPassages: 1, MaxPassages: 1}, {}}, 40)
	check(err)
	fmt.Println(len(st.Rows), "shapes;", e25.ShapeChart(shapes).Err())
	// Output:
	// <nil>
	// 5 rows
	// 2 shapes; <nil>
}

// Notebook 09's cells: the documents chunked into passages, the passage
// graph, the three plans measured against the exact parents, and E25's
// verdicts on them (small scale here).
func ExampleVerdicts() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	check(err)
	defer env.Close()
	ds, err := env.Dataset()
	check(err)
	docs, err := dataset.ChunkPassages(ds.Base, ds.Base.N, dataset.PassageConfig{Seed: env.Seed})
	check(err)
	g, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: env.Seed, Workers: 1})
	check(err)
	keys := make([]uint64, docs.Len())
	for i := range keys {
		keys[i] = uint64(i)
	}
	check(g.AddBatch(keys, docs.Vectors))
	x, err := nested.New(g.Vectors(), docs.ParentOf, engine.Cosine, g)
	check(err)
	parents, err := measure.ExactParents(x, ds.Queries, env.Scale.K)
	check(err)
	kPrime := 50 // k × the mean passages per parent, 5
	var walk, naive, workaround []measure.Result
	for _, ef := range []int{15, 40} {
		r, err := measure.Index(x, ef, parents)
		check(err)
		walk = append(walk, r)
		r, err = measure.Index(nested.Naive{X: x}, ef, parents)
		check(err)
		naive = append(naive, r)
		r, err = measure.Index(nested.Naive{X: x, Passages: kPrime}, max(ef, kPrime), parents)
		check(err)
		workaround = append(workaround, r)
	}
	for _, v := range e25.Verdicts(env, kPrime, walk, naive, workaround, nil) {
		fmt.Println(v.Word(), "—", v.Claim)
	}
	// Output:
	// agrees — joining during the walk returns k documents at every beam
	// agrees — k passages then dedupe return fewer than k documents
	// agrees — at equal beam the parent walk finds more of the nearest documents than the naive plan
	// agrees — the workaround (k' = k × mean passages) brings back about k documents (± 0.5)
}

// check stops an Example at its first error, as a notebook cell's
// check(err) does.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
