// Package topk holds the small data structures every search loop needs:
// binary heaps of engine.Result with no allocation after warm-up, and a
// visited set that is cleared by bumping an epoch instead of a memset.
package topk

import "github.com/veclab/veclab/engine"

// MaxHeap is a binary heap with the furthest result on top. Used bounded,
// it keeps the k nearest results seen so far (W in the HNSW paper).
type MaxHeap struct{ items []engine.Result }

// Len returns the number of results held.
func (h *MaxHeap) Len() int { return len(h.items) }

// Reset empties the heap, keeping its storage.
func (h *MaxHeap) Reset() { h.items = h.items[:0] }

// Top returns the furthest result; the heap must not be empty.
func (h *MaxHeap) Top() engine.Result { return h.items[0] }

// Push adds r.
func (h *MaxHeap) Push(r engine.Result) {
	h.items = append(h.items, r)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !(h.items[p].Dist < h.items[i].Dist) {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

// Pop removes and returns the furthest result.
func (h *MaxHeap) Pop() engine.Result {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	h.down(0)
	return top
}

// ReplaceTop replaces the furthest result by r (cheaper than Pop then Push).
func (h *MaxHeap) ReplaceTop(r engine.Result) {
	h.items[0] = r
	h.down(0)
}

// PushBounded adds r if the heap holds fewer than k results or r is closer
// than the furthest; it reports whether r was kept.
func (h *MaxHeap) PushBounded(r engine.Result, k int) bool {
	if len(h.items) < k {
		h.Push(r)
		return true
	}
	if r.Dist < h.items[0].Dist {
		h.ReplaceTop(r)
		return true
	}
	return false
}

func (h *MaxHeap) down(i int) {
	n := len(h.items)
	for {
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

// Items returns the heap's storage in heap order (aliasing it).
func (h *MaxHeap) Items() []engine.Result { return h.items }

// Sorted empties the heap into dst in increasing distance order and returns it.
func (h *MaxHeap) Sorted(dst []engine.Result) []engine.Result {
	n := len(h.items)
	start := len(dst)
	for i := 0; i < n; i++ {
		dst = append(dst, engine.Result{})
	}
	for i := n - 1; i >= 0; i-- {
		dst[start+i] = h.Pop()
	}
	return dst
}

// MinHeap is a binary heap with the nearest result on top (C in the HNSW paper).
type MinHeap struct{ items []engine.Result }

// Len returns the number of results held.
func (h *MinHeap) Len() int { return len(h.items) }

// Reset empties the heap, keeping its storage.
func (h *MinHeap) Reset() { h.items = h.items[:0] }

// Top returns the nearest result; the heap must not be empty.
func (h *MinHeap) Top() engine.Result { return h.items[0] }

// Push adds r.
func (h *MinHeap) Push(r engine.Result) {
	h.items = append(h.items, r)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !(h.items[i].Dist < h.items[p].Dist) {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

// Pop removes and returns the nearest result.
func (h *MinHeap) Pop() engine.Result {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	i := 0
	for {
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

// Items returns the heap's storage in heap order (aliasing it).
func (h *MinHeap) Items() []engine.Result { return h.items }

// Visited is a visited set over dense ids that is cleared in O(1) by bumping
// an epoch; the array is rewritten only when the epoch wraps (hnswlib's
// visited_list_pool.h uses the same trick with uint16 tags).
type Visited struct {
	marks []uint16
	epoch uint16
}

// NewVisited returns a set for ids 0…n-1.
func NewVisited(n int) *Visited { return &Visited{marks: make([]uint16, n), epoch: 1} }

// Reset clears the set, growing it to n ids if needed.
func (v *Visited) Reset(n int) {
	if n > len(v.marks) {
		v.marks = append(v.marks, make([]uint16, n-len(v.marks))...)
	}
	v.epoch++
	if v.epoch == 0 {
		clear(v.marks)
		v.epoch = 1
	}
}

// Visit marks id and reports whether it was already marked.
func (v *Visited) Visit(id engine.ID) bool {
	if v.marks[id] == v.epoch {
		return true
	}
	v.marks[id] = v.epoch
	return false
}

// Seen reports whether id is marked.
func (v *Visited) Seen(id engine.ID) bool { return v.marks[id] == v.epoch }
