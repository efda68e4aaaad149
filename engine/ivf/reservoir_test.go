package ivf

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// TestReservoir offers random results, with many tied distances, and
// checks that the reservoir holds exactly the kk smallest by (Dist, ID).
func TestReservoir(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var r reservoir
	for _, n := range []int{0, 1, 10, 100, 1000, 5000} {
		for _, kk := range []int{1, 2, 10, 30, 200, 6000} {
			r.reset(kk)
			all := make([]engine.Result, n)
			for i := range all {
				all[i] = engine.Result{ID: engine.ID(i), Dist: float32(rng.IntN(n/3 + 1))}
				r.offer(all[i].ID, all[i].Dist)
			}
			cmpDistID := func(a, b engine.Result) int {
				if lessDistID(a, b) {
					return -1
				}
				if lessDistID(b, a) {
					return 1
				}
				return 0
			}
			slices.SortFunc(all, cmpDistID)
			want := all[:min(kk, n)]
			got := slices.Clone(r.results())
			slices.SortFunc(got, cmpDistID)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d kk=%d: got %d results %v…, want %v…", n, kk, len(got), got[:min(5, len(got))], want[:min(5, len(want))])
			}
		}
	}
}

// BenchmarkCollect compares the reservoir with the bounded heap it
// replaced on a 1-bit scan's shape: 800 estimates in random order, the
// 200 smallest kept (k = 10, oversample 20), each offer screened against
// the current bound first as scanCodes does.
func BenchmarkCollect(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	ds := make([]float32, 800)
	for i := range ds {
		ds[i] = rng.Float32()
	}
	const kk = 200
	b.Run("reservoir", func(b *testing.B) {
		var r reservoir
		for b.Loop() {
			r.reset(kk)
			for i, d := range ds {
				if d > r.thr {
					continue
				}
				r.offer(engine.ID(i), d)
			}
			_ = r.results()
		}
	})
	b.Run("heap", func(b *testing.B) {
		var h topk.MaxHeap
		for b.Loop() {
			h.Reset()
			for i, d := range ds {
				if h.Len() >= kk && !(d < h.Top().Dist) {
					continue
				}
				h.PushBounded(engine.Result{ID: engine.ID(i), Dist: d}, kk)
			}
			_ = h.Items()
		}
	})
}
