package dataset_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

func ExampleGenerate() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 5, Dim: 16, Clusters: 8, Seed: 1})
	if err != nil {
		panic(err)
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "") // "" = no cache
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.Config)
	fmt.Println(ds.Base.N, "×", ds.Base.Dim, "base;", ds.Queries.N, "queries;", len(truth.At(0, 10)), "neighbours each")
	// Output:
	// n=2000 queries=5 dim=16 clusters=8 spread=1 seed=1
	// 2000 × 16 base; 5 queries; 10 neighbours each
}

// A real data set: the GloVe vectors checked into the repository (and
// compiled in as "glove-3k"), read from its directory with the truth
// cached beside it.
func ExampleOpen() {
	r, err := dataset.Open("testdata/glove-3k")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Manifest.Name, r.Metric, r.Base.N, "×", r.Base.Dim, "base;", r.Queries.N, "queries")
	// words.txt names the base rows, then the query rows.
	b, err := os.ReadFile("testdata/glove-3k/words.txt")
	if err != nil {
		panic(err)
	}
	words := strings.Split(string(b), "\n")
	q := 2 // groundtruth.ivecs: the exact cosine top-100 of each query
	fmt.Print(words[r.Base.N+q], ":")
	for _, id := range r.Given[q][:5] {
		fmt.Print(" ", words[id])
	}
	fmt.Println()
	if err := dataset.VerifyDir("testdata/glove-3k"); err != nil {
		panic(err)
	}
	fmt.Println("checksums verified")
	// Output:
	// glove-3k cosine 3000 × 100 base; 100 queries
	// drink: taste packs sauce anyone sake
	// checksums verified
}

// Reading a NumPy array written by numpy.save.
func ExampleReadNpy() {
	var buf bytes.Buffer
	m := &vec.Matrix{N: 2, Dim: 3, Stride: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	if err := dataset.WriteNpy(&buf, m); err != nil {
		panic(err)
	}
	back, err := dataset.ReadNpy(&buf)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.N, back.Dim, back.Row(1))
	_, err = dataset.ReadNpy(strings.NewReader("\x93NUMPY\x01\x00"))
	fmt.Println(err)
	// Output:
	// 2 3 [4 5 6]
	// dataset: npy: truncated header length: engine: corrupt data
}
