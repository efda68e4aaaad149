package hnsw_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

func grid() *vec.Matrix {
	m := vec.NewMatrix(100, 2)
	for i := 0; i < 100; i++ {
		copy(m.Row(i), []float32{float32(i % 10), float32(i / 10)})
	}
	return m
}

func Example() {
	ix, err := hnsw.New(hnsw.Config{Dim: 2, Metric: engine.L2, M: 8, EfConstruction: 32, Workers: 1})
	if err != nil {
		panic(err)
	}
	keys := make([]uint64, 100)
	for i := range keys {
		keys[i] = uint64(1000 + i)
	}
	if err := ix.AddBatch(keys, grid()); err != nil {
		panic(err)
	}
	s := ix.NewSearcher()
	res, err := s.Search([]float32{3.1, 4.2}, engine.Request{K: 3, Breadth: 20})
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("key %d at %.2f\n", ix.Key(r.ID), r.Dist)
	}
	// Output:
	// key 1043 at 0.05
	// key 1053 at 0.65
	// key 1044 at 0.85
}

func ExampleSearcher_Search_filter() {
	ix, _ := hnsw.New(hnsw.Config{Dim: 2, Metric: engine.L2, M: 8, Workers: 1})
	ix.AddBatch(make100Keys(), grid())
	odd := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 1 })
	res, _ := ix.NewSearcher().Search([]float32{4, 4}, engine.Request{K: 2, Breadth: 20, Filter: odd})
	for _, r := range res {
		fmt.Println(r.ID, r.Dist)
	}
	// Output:
	// 43 1
	// 45 1
}

func make100Keys() []uint64 {
	k := make([]uint64, 100)
	for i := range k {
		k[i] = uint64(i)
	}
	return k
}

func ExampleLoad() {
	ix, _ := hnsw.New(hnsw.Config{Dim: 2, Metric: engine.L2, Workers: 1})
	ix.AddBatch(make100Keys(), grid())
	fsys := vfs.NewMem() // vfs.Default for real files
	if err := ix.Save(fsys, "grid.hnsw"); err != nil {
		panic(err)
	}
	ld, err := hnsw.Load(fsys, "grid.hnsw")
	if err != nil {
		panic(err)
	}
	fmt.Println(ld.Len(), ld.Config().Metric)
	// Output: 100 l2
}

func ExampleParseConfig() {
	c := hnsw.HnswlibConfig(384, engine.Cosine, 16, 64).WithDefaults()
	c.Workers = 1
	fmt.Println(c)
	back, _ := hnsw.ParseConfig(c.String())
	fmt.Println(back == c)
	// Output:
	// dim=384 metric=cosine m=16 m0=32 efc=64 ef=40 mult=0.36067376022224085 seed=100 levels=hnswlib selection=heuristic keeppruned=false degree0=16 workers=1
	// true
}

func ExampleIndex_GreedyDescend() {
	ix, _ := hnsw.New(hnsw.Config{Dim: 2, Metric: engine.L2, Workers: 1})
	ix.AddBatch(make100Keys(), grid())
	s := ix.NewSearcher()
	q := []float32{9, 9}
	sc, _ := s.Scorer(q)
	ep, _ := ix.GreedyDescend(sc, nil) // entry for layer 0
	// The base-layer loop from there: a search seeded with that entry.
	w, _ := s.Search(q, engine.Request{K: 1, Breadth: 10, Seeds: []engine.ID{ep}})
	fmt.Println(w[0].ID, w[0].Dist)
	// Output: 99 0
}
