package flat

import (
	"slices"

	"github.com/veclab/veclab/engine"
)

// heap is a bounded max-heap of results under the total order (Dist, ID):
// the top is the worst result kept. engine/internal/topk's MaxHeap orders by
// distance only; the exact oracle needs ties broken by id so that a serial
// scan, a split scan and an id-list scan agree to the last element.
type heap struct{ items []engine.Result }

// worse reports whether a ranks after b.
func worse(a, b engine.Result) bool {
	return a.Dist > b.Dist || a.Dist == b.Dist && a.ID > b.ID
}

// pushBounded keeps r if fewer than k results are held or r ranks before
// the worst one.
func (h *heap) pushBounded(r engine.Result, k int) {
	if len(h.items) < k {
		h.items = append(h.items, r)
		i := len(h.items) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(h.items[i], h.items[p]) {
				break
			}
			h.items[p], h.items[i] = h.items[i], h.items[p]
			i = p
		}
		return
	}
	if !worse(h.items[0], r) {
		return
	}
	h.items[0] = r
	n := len(h.items)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if rr := l + 1; rr < n && worse(h.items[rr], h.items[l]) {
			m = rr
		}
		if !worse(h.items[m], h.items[i]) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// sorted returns the held results best first (a new slice).
func (h *heap) sorted() []engine.Result {
	out := slices.Clone(h.items)
	slices.SortFunc(out, func(a, b engine.Result) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	if out == nil {
		out = []engine.Result{}
	}
	return out
}
