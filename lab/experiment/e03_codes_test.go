package experiment

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// TestWithStoreCodes: E03's Elasticsearch row scores with the codes its
// graph searches with, and a graph without codes is left on float32.
func TestWithStoreCodes(t *testing.T) {
	const n, dim = 300, 16
	rng := rand.New(rand.NewPCG(1, 2))
	m := vec.NewMatrix(n, dim)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	keys := make([]uint64, n)
	docs := make([]filter.Doc, n)
	for i := range keys {
		keys[i] = uint64(i)
		docs[i] = filter.Doc{Key: strconv.Itoa(i), Meta: map[string]any{"b": i % 10}}
	}
	meta, err := filter.NewStore(filter.Schema{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := meta.Add(docs...); err != nil {
		t.Fatal(err)
	}
	q, err := quant.TrainOSQ(m, engine.Cosine, quant.OSQConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		codes bool
	}{{"float", false}, {"bbq", true}} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := hnsw.New(hnsw.Config{Dim: dim, M: 8, EfConstruction: 40, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := g.AddBatch(keys, m); err != nil {
				t.Fatal(err)
			}
			if tc.codes {
				if err := g.AttachCodes(quant.NewStore(q)); err != nil {
					t.Fatal(err)
				}
			}
			coll, err := filtered.New(g.Vectors(), meta, filtered.Options{Graph: g})
			if err != nil {
				t.Fatal(err)
			}
			got, err := withStoreCodes(coll)
			if err != nil {
				t.Fatal(err)
			}
			if (got.Codes() != nil) != tc.codes {
				t.Fatalf("codes bound: %v, want %v", got.Codes() != nil, tc.codes)
			}
			if tc.codes && got.Codes() != g.Codes() {
				t.Fatal("bound a different code store than the graph's")
			}
		})
	}
}
