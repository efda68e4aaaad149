package ivf

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// SearchBatch answers every row as a lone SearchWith does, in row order,
// on one worker and several, for float and quantized lists and a filter; a
// bad row fails the batch naming it; a done context stops it.
func TestSearchBatch(t *testing.T) {
	x, qs := clustered(3000, 41, 16, 8, 9)
	odd := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 1 })
	for _, bits := range []int{0, 4} {
		ix, err := Build(x, Config{Nlist: 16, Seed: 2, Bits: bits})
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3} {
			for _, o := range []SearchOptions{{K: 10, Nprobe: 3}, {K: 5, Nprobe: 2, Filter: odd}} {
				got, err := ix.SearchBatchWorkers(context.Background(), qs, o, workers)
				if err != nil {
					t.Fatal(err)
				}
				for i := range qs.N {
					want, _, err := ix.SearchWith(qs.Row(i), o)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got[i], want) {
						t.Fatalf("bits=%d workers=%d %v query %d: batch %v, single %v", bits, workers, o, i, got[i], want)
					}
				}
			}
		}
		if _, err := ix.SearchBatch(qs, SearchOptions{K: 0, Nprobe: 1}); err == nil || !strings.Contains(err.Error(), "query 0") {
			t.Fatalf("k=0: %v, want an error naming query 0", err)
		}
		if _, err := ix.SearchBatch(vec.NewMatrix(2, 15), SearchOptions{K: 1}); !errors.Is(err, engine.ErrDimension) {
			t.Fatalf("wrong dimension: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := ix.SearchBatchContext(ctx, qs, SearchOptions{K: 1, Nprobe: 1}); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled context: %v", err)
		}
	}
}
