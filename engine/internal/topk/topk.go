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

// Push adds r. It sifts r up through a hole (each parent it passes moves
// down one level, and r is written once, where it stops): the same layout
// as swapping r upwards, with half the writes.
func (h *MaxHeap) Push(r engine.Result) {
	h.items = append(h.items, r)
	items := h.items
	i := len(items) - 1
	for i > 0 {
		p := int(uint(i-1) >> 1)
		if !(items[p].Dist < r.Dist) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = r
}

// Pop removes and returns the furthest result.
func (h *MaxHeap) Pop() engine.Result {
	top := h.items[0]
	n := len(h.items) - 1
	last := h.items[n]
	h.items = h.items[:n]
	if n > 0 {
		h.down(last)
	}
	return top
}

// ReplaceTop replaces the furthest result by r (cheaper than Pop then Push).
func (h *MaxHeap) ReplaceTop(r engine.Result) { h.down(r) }

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

// down puts x at the root of the non-empty heap and sifts it down through a
// hole: each larger child it passes moves up one level, and x is written
// once, where it stops (the layout of swapping it down, with half the
// writes: in the HNSW loops the heaps' sift is next in cost to the
// distances, and more so under wasm, where every store and bounds check is
// an instruction of its own).
func (h *MaxHeap) down(x engine.Result) {
	items := h.items
	n := len(items)
	// Unsigned indices: l < n then proves items[l] in bounds.
	un := uint(n)
	var i uint
	for {
		l := 2*i + 1
		if l >= un {
			break
		}
		m := l
		if r := l + 1; r < un && items[r].Dist > items[l].Dist {
			m = r
		}
		if !(items[m].Dist > x.Dist) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = x
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

// Push adds r, sifting it up through a hole as MaxHeap.Push does.
func (h *MinHeap) Push(r engine.Result) {
	h.items = append(h.items, r)
	items := h.items
	i := len(items) - 1
	for i > 0 {
		p := int(uint(i-1) >> 1)
		if !(r.Dist < items[p].Dist) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = r
}

// Pop removes and returns the nearest result, sifting the last one down
// from the root through a hole as MaxHeap.down does.
func (h *MinHeap) Pop() engine.Result {
	top := h.items[0]
	n := len(h.items) - 1
	x := h.items[n]
	items := h.items[:n]
	h.items = items
	if n == 0 {
		return top
	}
	// Unsigned indices: l < n then proves items[l] in bounds.
	un := uint(n)
	var i uint
	for {
		l := 2*i + 1
		if l >= un {
			break
		}
		m := l
		if r := l + 1; r < un && items[r].Dist < items[l].Dist {
			m = r
		}
		if !(items[m].Dist < x.Dist) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = x
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
