package topk

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

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

// swapMax and swapMin are the heaps with the textbook sift by swaps, which
// MaxHeap and MinHeap replace by a sift through a hole: the reference their
// layouts are held to.
type swapMax struct{ items []engine.Result }

func (h *swapMax) push(r engine.Result) {
	h.items = append(h.items, r)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !(h.items[p].Dist < h.items[i].Dist) {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *swapMax) down() {
	n := len(h.items)
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.items[r].Dist > h.items[l].Dist {
			m = r
		}
		if !(h.items[m].Dist > h.items[i].Dist) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

func (h *swapMax) pop() engine.Result {
	top, n := h.items[0], len(h.items)-1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	h.down()
	return top
}

func (h *swapMax) replaceTop(r engine.Result) { h.items[0] = r; h.down() }

func (h *swapMax) pushBounded(r engine.Result, k int) bool {
	if len(h.items) < k {
		h.push(r)
		return true
	}
	if r.Dist < h.items[0].Dist {
		h.replaceTop(r)
		return true
	}
	return false
}

type swapMin struct{ items []engine.Result }

func (h *swapMin) push(r engine.Result) {
	h.items = append(h.items, r)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !(h.items[i].Dist < h.items[p].Dist) {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *swapMin) pop() engine.Result {
	top, n := h.items[0], len(h.items)-1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.items[r].Dist < h.items[l].Dist {
			m = r
		}
		if !(h.items[m].Dist < h.items[i].Dist) {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// TestHeapsLayoutAsSwaps runs one seeded sequence of pushes, bounded pushes,
// top replacements and pops, with many equal distances (ties are where a
// different sift would show), on both heaps and on the swap references, and
// requires the same storage, element for element and in heap order, after
// every operation: a search that walks Items() or breaks ties by position
// sees what it saw with the swaps.
func TestHeapsLayoutAsSwaps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var maxh MaxHeap
	var minh MinHeap
	var rmax swapMax
	var rmin swapMin
	for step := range 20000 {
		res := engine.Result{ID: engine.ID(step), Dist: float32(r.IntN(20))}
		var op string
		switch x := r.IntN(10); {
		case x < 4:
			op = "push"
			maxh.Push(res)
			rmax.push(res)
			minh.Push(res)
			rmin.push(res)
		case x < 7:
			op = "pushBounded"
			k := 1 + r.IntN(40)
			if a, b := maxh.PushBounded(res, k), rmax.pushBounded(res, k); a != b {
				t.Fatalf("step %d: PushBounded kept %t, the swap heap %t", step, a, b)
			}
		case x < 8 && maxh.Len() > 0:
			op = "replaceTop"
			maxh.ReplaceTop(res)
			rmax.replaceTop(res)
		default:
			op = "pop"
			if maxh.Len() > 0 {
				if a, b := maxh.Pop(), rmax.pop(); a != b {
					t.Fatalf("step %d: MaxHeap.Pop %v, the swap heap %v", step, a, b)
				}
			}
			if minh.Len() > 0 {
				if a, b := minh.Pop(), rmin.pop(); a != b {
					t.Fatalf("step %d: MinHeap.Pop %v, the swap heap %v", step, a, b)
				}
			}
		}
		if !slices.Equal(maxh.Items(), rmax.items) || !slices.Equal(minh.Items(), rmin.items) {
			t.Fatalf("step %d (%s): layouts differ:\nmax %v\nref %v\nmin %v\nref %v", step, op, maxh.Items(), rmax.items, minh.Items(), rmin.items)
		}
	}
}

// BenchmarkHeaps measures the beam loop's heap traffic — a bounded max-heap
// of ef results and a min-heap of candidates, fed seeded distances — on
// MaxHeap/MinHeap and on the swap references, alternating blocks of the two
// in one run; hole/swap is the median of the blocks' paired ratios.
// Hypothesis: the sift through a hole does half the stores of the swaps,
// which pays most under GOOS=js GOARCH=wasm (go_js_wasm_exec), where every
// store and bounds check is an instruction of its own.
func BenchmarkHeaps(b *testing.B) {
	const ef, ops = 100, 4096
	r := rand.New(rand.NewPCG(1, 1))
	ds := make([]float32, ops)
	for i := range ds {
		ds[i] = r.Float32()
	}
	var sink int
	hole := func() {
		var w MaxHeap
		var c MinHeap
		for i, d := range ds {
			res := engine.Result{ID: engine.ID(i), Dist: d}
			if w.PushBounded(res, ef) {
				c.Push(res)
			}
			if i%2 == 1 && c.Len() > 0 {
				sink += int(c.Pop().ID)
			}
		}
	}
	swap := func() {
		var w swapMax
		var c swapMin
		for i, d := range ds {
			res := engine.Result{ID: engine.ID(i), Dist: d}
			if w.pushBounded(res, ef) {
				c.push(res)
			}
			if i%2 == 1 && len(c.items) > 0 {
				sink += int(c.pop().ID)
			}
		}
	}
	block := func(f func()) float64 {
		t0 := time.Now()
		for range 8 {
			f()
		}
		return float64(time.Since(t0).Nanoseconds()) / (8 * ops)
	}
	var ratios, th, ts []float64
	for b.Loop() {
		a, s := block(hole), block(swap)
		th, ts = append(th, a), append(ts, s)
		ratios = append(ratios, a/s)
	}
	med := func(xs []float64) float64 { s := slices.Sorted(slices.Values(xs)); return s[len(s)/2] }
	b.ReportMetric(med(th), "hole-ns/op")
	b.ReportMetric(med(ts), "swap-ns/op")
	b.ReportMetric(med(ratios), "hole/swap")
	_ = sink
}
