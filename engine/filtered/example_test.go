package filtered_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

func Example() {
	// 2,000 random unit vectors with a category each.
	const n, dim = 2000, 16
	rng := rand.New(rand.NewPCG(1, 2))
	vs := vec.NewMatrix(n, dim)
	docs := make([]filter.Doc, n)
	for i := 0; i < n; i++ {
		for j := range vs.Row(i) {
			vs.Row(i)[j] = float32(rng.NormFloat64())
		}
		_ = vec.Normalize(vs.Row(i))
		docs[i] = filter.Doc{Meta: map[string]any{"category": fmt.Sprintf("c%d", i%8), "year": 2015 + i%11}}
	}
	meta, _ := filter.NewStore(filter.Schema{Fields: []filter.Field{
		{Name: "category", Kind: filter.KindKeyword, Indexed: true},
		{Name: "year", Kind: filter.KindInteger, Indexed: true}}})
	meta.Add(docs...)

	g, _ := hnsw.New(hnsw.Config{Dim: dim, Workers: 1})
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	g.AddBatch(keys, vs)
	coll, _ := filtered.New(g.Vectors(), meta, filtered.Options{Graph: g})

	f, _ := meta.CompileString(`category == 'c3' && year >= 2022`)
	fmt.Println("matching:", len(f.IDs()))
	q := vs.Row(7)
	// Each store's knobs on its defaults, as lab/profile resolves them
	// (the engine holds none): pgvector's ef_search 40, Qdrant's hnsw_ef
	// (ef_construct 100) and full_scan_threshold (10,000 KB of vectors),
	// Redis's EF_RUNTIME 10.
	params := map[filtered.Strategy]filtered.Params{
		filtered.PostFilter:    {Ef: 40},
		filtered.QdrantPlanner: {Ef: 100, FullScanThreshold: 10000 * 1024 / (4 * dim)},
		filtered.RedisHybrid:   {Ef: 10, RedisM: 16},
	}
	for _, s := range []filtered.Strategy{filtered.Exact, filtered.PostFilter, filtered.QdrantPlanner, filtered.RedisHybrid} {
		rs, st, err := coll.Search(filtered.Request{Query: q, K: 10, Filter: f, Strategy: s, Params: params[s]})
		if err != nil {
			panic(err)
		}
		if s == filtered.PostFilter { // ef 40 rows, then the filter: ≈ 40 × 4.5 % survive
			fmt.Printf("%-10s fewer than k: %v\n", s, len(rs) < 10)
			continue
		}
		fmt.Printf("%-10s hits %2d path %s\n", s, len(rs), st.Path)
	}
	_, _, err := coll.Search(filtered.Request{Query: q[:3], K: 10, Filter: f})
	fmt.Println(err)
	// Output:
	// matching: 91
	// exact      hits 10 path exact
	// postfilter fewer than k: true
	// qdrant     hits 10 path exact
	// redis      hits 10 path redis-adhoc-bf
	// filtered: query: engine: vector has 3 components, index has 16: engine: dimension mismatch
}
