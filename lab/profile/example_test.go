package profile_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// Each store's default query plan for topK = 10 on 384-dim vectors.
func ExampleProfile_Plan() {
	for _, p := range profile.Defaults() {
		fmt.Printf("%-13s %v\n", p.Kind, p.Plan(10, 384))
	}
	// Output:
	// pgvector      k=10 ef=40 candidates=10 limit=10
	// redis         k=10 ef=10 candidates=10 limit=10
	// qdrant        k=10 ef=100 candidates=10 limit=10
	// elasticsearch k=10 ef=30 candidates=30 limit=10 rescore=30 num_candidates=30
}

// A profile prints as a config line and parses back.
func ExampleParse() {
	p, err := profile.Parse("redis ef_runtime=50")
	fmt.Println(p, err)
	// Output: redis metric=cosine m=16 m0=32 ef_construction=200 degree0=16 keep_pruned=false ef=50 segments=1 seed=0 workers=1 <nil>
}

// Build a store on its defaults, search it, then override one setting.
func ExampleProfile_Build() {
	ds, err := dataset.Generate(dataset.Config{N: 500, Queries: 1, Dim: 384, Clusters: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{Batch: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	res, err := s.Search(ds.Queries.Row(0), 10)
	fmt.Println(len(res), err, s.Profile().Ef)
	wide := s.WithEf(200) // EF_RUNTIME 200, same index
	res, err = wide.Search(ds.Queries.Row(0), 10)
	fmt.Println(len(res), err, wide.Profile().Ef)
	// Output:
	// 10 <nil> 10
	// 10 <nil> 200
}
