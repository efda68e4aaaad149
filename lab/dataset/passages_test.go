package dataset

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func TestChunkPassages(t *testing.T) {
	ds, err := Generate(Config{N: 500, Queries: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cfg      PassageConfig
		min, max int
	}{
		{"defaults", PassageConfig{Seed: 1}, 2, 8},
		{"one each", PassageConfig{MinPassages: 1, MaxPassages: 1, Seed: 1}, 1, 1},
		{"ten each", PassageConfig{MinPassages: 10, MaxPassages: 10, Seed: 1}, 10, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ChunkPassages(ds.Base, ds.Base.N, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.ParentOf) != p.Len() {
				t.Fatalf("%d parents for %d passages", len(p.ParentOf), p.Len())
			}
			i := 0
			for doc, c := range p.Counts {
				if c < tc.min || c > tc.max {
					t.Fatalf("document %d has %d passages, want %d–%d", doc, c, tc.min, tc.max)
				}
				for range c { // contiguous, in document order
					if p.ParentOf[i] != uint32(doc) {
						t.Fatalf("passage %d: parent %d, want %d", i, p.ParentOf[i], doc)
					}
					i++
				}
			}
			if n := vec.Norm(p.Vectors.Row(0)); n < 0.999 || n > 1.001 {
				t.Errorf("passage 0 has norm %v, want 1", n)
			}
			again, _ := ChunkPassages(ds.Base, ds.Base.N, tc.cfg)
			if !slices.Equal(again.Vectors.Data, p.Vectors.Data) {
				t.Error("the same seed gave other passages")
			}
		})
	}
	for _, tc := range []struct {
		name string
		docs *vec.Matrix
		n    int
		cfg  PassageConfig
	}{
		{"no documents", nil, 10, PassageConfig{}},
		{"n 0", ds.Base, 0, PassageConfig{}},
		{"max below min", ds.Base, 10, PassageConfig{MinPassages: 5, MaxPassages: 3}},
		{"negative min", ds.Base, 10, PassageConfig{MinPassages: -1}},
		{"negative spread", ds.Base, 10, PassageConfig{Spread: -1}},
	} {
		if _, err := ChunkPassages(tc.docs, tc.n, tc.cfg); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", tc.name, err)
		}
	}
}
