package measure_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
)

// nestedIndex chunks a small generated set into passages and builds the
// passage graph, as notebook 09 does.
func nestedIndex(t testing.TB) (*nested.Index, *dataset.Dataset) {
	t.Helper()
	ds, err := dataset.Generate(dataset.Config{N: 1500, Queries: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := dataset.ChunkPassages(ds.Base, ds.Base.N, dataset.PassageConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	g, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, docs.Len())
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, docs.Vectors); err != nil {
		t.Fatal(err)
	}
	x, err := nested.New(g.Vectors(), docs.ParentOf, engine.Cosine, g)
	if err != nil {
		t.Fatal(err)
	}
	return x, ds
}

// TestExactParents: the answers are parent ids, the exact walk scores 1,
// the naive plan returns fewer parents than k, and bad arguments are
// errors in the caller's terms.
func TestExactParents(t *testing.T) {
	x, ds := nestedIndex(t)
	q, err := measure.ExactParents(x, ds.Queries, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, ids := range q.Truth {
		if len(ids) != 10 {
			t.Fatalf("query %d: %d answers", i, len(ids))
		}
		for _, id := range ids {
			if int(id) >= x.Len() {
				t.Fatalf("query %d: answer %d is not a parent id (%d parents)", i, id, x.Len())
			}
		}
	}
	wide, err := measure.Index(x, x.Len(), q) // a beam over every parent: exact
	if err != nil {
		t.Fatal(err)
	}
	if wide.Recall != 1 || wide.MeanHits != 10 {
		t.Errorf("parent walk over every parent: recall %.3f, mean hits %.1f; want 1 and 10", wide.Recall, wide.MeanHits)
	}
	naive, err := measure.Index(nested.Naive{X: x}, 40, q)
	if err != nil {
		t.Fatal(err)
	}
	if naive.MeanHits >= 10 {
		t.Errorf("naive plan: mean hits %.2f, want fewer than 10 (passages share parents)", naive.MeanHits)
	}
	for _, tc := range []struct {
		name    string
		x       *nested.Index
		queries *vec.Matrix
		k       int
		want    error
	}{
		{"no index", nil, ds.Queries, 10, engine.ErrInvalidArgument},
		{"no queries", x, nil, 10, engine.ErrInvalidArgument},
		{"k 0", x, ds.Queries, 0, engine.ErrInvalidArgument},
		{"wrong dimension", x, vec.NewMatrix(2, 8), 10, engine.ErrDimension},
	} {
		if _, err := measure.ExactParents(tc.x, tc.queries, tc.k); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// Documents chunked into passages (E25): the parent walk returns k
// documents, the naive plan (k passages, deduplicated) fewer.
func ExampleExactParents() {
	ds, err := dataset.Generate(dataset.Config{N: 1500, Queries: 20, Seed: 1})
	check(err)
	docs, err := dataset.ChunkPassages(ds.Base, ds.Base.N, dataset.PassageConfig{Seed: 1}) // 2–8 passages each
	check(err)
	g, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: 1, Workers: 1})
	check(err)
	keys := make([]uint64, docs.Len())
	for i := range keys {
		keys[i] = uint64(i)
	}
	check(g.AddBatch(keys, docs.Vectors))
	x, err := nested.New(g.Vectors(), docs.ParentOf, engine.Cosine, g)
	check(err)

	parents, err := measure.ExactParents(x, ds.Queries, 10)
	check(err)
	walk, err := measure.Index(x, 40, parents)
	check(err)
	naive, err := measure.Index(nested.Naive{X: x}, 40, parents)
	check(err)
	fmt.Printf("parent walk: %.1f documents per query\n", walk.MeanHits)
	fmt.Println("naive plan returns fewer:", naive.MeanHits < walk.MeanHits)
	// Output:
	// parent walk: 10.0 documents per query
	// naive plan returns fewer: true
}
