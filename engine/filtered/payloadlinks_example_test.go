package filtered_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// Qdrant's payload-block links: a keyword value held by 4 % of the points,
// independent of the vectors, is above the full-scan threshold, so the
// planner walks the graph, dropping every neighbour that fails the filter.
// Without the links the walk strands at its entry; with them it finds the
// nearest matching points.
func ExampleCollection_WithPayloadLinks() {
	const n, dim = 3000, 16
	rng := rand.New(rand.NewPCG(1, 2))
	vs := vec.NewMatrix(n, dim)
	docs := make([]filter.Doc, n)
	for i := 0; i < n; i++ {
		for j := range vs.Row(i) {
			vs.Row(i)[j] = float32(rng.NormFloat64())
		}
		_ = vec.Normalize(vs.Row(i))
		docs[i] = filter.Doc{Meta: map[string]any{"tag": fmt.Sprintf("t%02d", rng.IntN(25))}}
	}
	// The payload index exists before the links are built, as Qdrant needs.
	meta, _ := filter.NewStore(filter.Schema{Fields: []filter.Field{{Name: "tag", Kind: filter.KindKeyword, Indexed: true}}})
	meta.Add(docs...)
	g, _ := hnsw.New(hnsw.Config{Dim: dim, M: 8, EfConstruction: 64, Workers: 1})
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	g.AddBatch(keys, vs)
	coll, _ := filtered.New(g.Vectors(), meta, filtered.Options{Graph: g, M: 8})

	const threshold = 100 // full_scan_threshold in vectors, for the links and the planner alike
	linked, rep, err := coll.WithPayloadLinks(filtered.PayloadLinksConfig{Threshold: threshold, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("blocks: %d considered, %d built, %d skipped (percolation bound %d points)\n",
		rep.Considered(), rep.Built, rep.SkippedPercolation+rep.SkippedSmall, rep.MaxBlock)

	f, _ := meta.CompileString(`tag == 't07'`)
	q := vs.Row(42)
	truth, _, _ := coll.Search(filtered.Request{Query: q, K: 10, Filter: f, Strategy: filtered.Exact})
	for _, c := range []struct {
		name string
		c    *filtered.Collection
	}{{"without links", coll}, {"with links", linked}} {
		rs, st, _ := c.c.Search(filtered.Request{Query: q, K: 10, Filter: f, Strategy: filtered.QdrantPlanner,
			Params: filtered.Params{Ef: 40, FullScanThreshold: threshold}})
		fmt.Printf("%-13s path %s, %2d hits, recall ≥ 0.9: %v\n", c.name, st.Path, len(rs), overlap(rs, truth) >= 9)
	}
	_, _, err = coll.WithPayloadLinks(filtered.PayloadLinksConfig{Fields: []string{"colour"}, Threshold: threshold})
	fmt.Println(err)
	// Output:
	// blocks: 24 considered, 24 built, 0 skipped (percolation bound 1088 points)
	// without links path qdrant-graph,  1 hits, recall ≥ 0.9: false
	// with links    path qdrant-graph, 10 hits, recall ≥ 0.9: true
	// filtered: payload links: field "colour": filter: not allowed filter identifier name
}

func overlap(a, b []engine.Result) int {
	in := map[engine.ID]bool{}
	for _, r := range b {
		in[r.ID] = true
	}
	c := 0
	for _, r := range a {
		if in[r.ID] {
			c++
		}
	}
	return c
}
