package topk

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestHeaps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 100} {
		for _, k := range []int{1, 3, 10} {
			var all []engine.Result
			var maxh MaxHeap
			var minh MinHeap
			for i := 0; i < n; i++ {
				res := engine.Result{ID: engine.ID(i), Dist: float32(r.IntN(50))}
				all = append(all, res)
				maxh.PushBounded(res, k)
				minh.Push(res)
			}
			sort.SliceStable(all, func(i, j int) bool { return all[i].Dist < all[j].Dist })
			got := maxh.Sorted(nil)
			if len(got) != min(k, n) {
				t.Fatalf("n=%d k=%d: bounded heap kept %d", n, k, len(got))
			}
			for i := range got {
				if got[i].Dist != all[i].Dist {
					t.Fatalf("n=%d k=%d: result %d has distance %v, want %v", n, k, i, got[i].Dist, all[i].Dist)
				}
			}
			for i := 0; i < n; i++ {
				if d := minh.Pop().Dist; d != all[i].Dist {
					t.Fatalf("n=%d: min-heap pop %d = %v, want %v", n, i, d, all[i].Dist)
				}
			}
		}
	}
}

func TestVisited(t *testing.T) {
	v := NewVisited(10)
	for epoch := 0; epoch < 70000; epoch++ { // crosses the uint16 wrap
		v.Reset(10 + epoch%3)
		if v.Visit(3) {
			t.Fatalf("epoch %d: fresh set already holds 3", epoch)
		}
		if !v.Visit(3) || !v.Seen(3) || v.Seen(4) {
			t.Fatalf("epoch %d: marks wrong", epoch)
		}
	}
}
