package engine

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// Request carries one query's parameters to any [Index]: how many results,
// how broad a search, which documents may be returned, and optionally a
// bound shared with searches of other indexes.
type Request struct {
	// K is the number of results wanted (≥ 1).
	K int
	// Breadth is the index's own breadth knob: ef for graph indexes, the
	// number of probed lists for IVF, the candidate count for quantized
	// scans. 0 means the index's configured default; exact search ignores it.
	Breadth int
	// Filter restricts the results to the documents it allows (nil: all).
	Filter Filter
	// Bound, when set, is the global top-Breadth bound of a search over
	// several indexes (the segments of one collection); an index that
	// supports it prunes against it and offers its own distances to it.
	// Indexes that do not support it ignore it.
	Bound *Bound
}

// Check validates the request itself (not the query vector).
func (r Request) Check() error {
	if err := CheckK(r.K); err != nil {
		return err
	}
	if r.Breadth < 0 {
		return fmt.Errorf("engine: breadth must be ≥ 0, got %d: %w", r.Breadth, ErrInvalidArgument)
	}
	return nil
}

// Index is the one contract every index of the engine satisfies (flat,
// hnsw, ivf, quant.Store, filtered.Collection, nested), so that a segment
// or an experiment can hold "an index" without knowing which. Result ids
// are the index's dense ids; for nested indexes they are parent ids.
//
// Query must be safe for concurrent use with itself.
type Index interface {
	// Len returns the number of documents indexed.
	Len() int
	// Dim returns the vector dimension.
	Dim() int
	// Query returns up to r.K results nearest first and the work counted.
	// An empty index reports ErrEmpty; a bad query vector ErrDimension,
	// ErrInvalidVector or ErrZeroVector; a bad request ErrInvalidArgument.
	Query(q []float32, r Request) ([]Result, SearchStats, error)
}

// Bound is the shared bound of one search over several indexes, after
// Lucene's MultiLeafKnnCollector and BlockingFloatHeap (Lucene 9.10,
// org.apache.lucene.search.knn.MultiLeafKnnCollector): every index offers
// the distances it collects, and the bound answers the k-th smallest
// distance offered so far by anyone. A graph search then stops expanding
// candidates that cannot enter the global top k, even while its own
// result set is not yet that tight.
//
// # Concurrency
//
// A Bound is safe for concurrent use; Offer takes a mutex (as
// BlockingFloatHeap does), Value is a lock-free read of the last bound.
type Bound struct {
	mu   sync.Mutex // guards heap
	k    int
	heap []float32 // max-heap of the k smallest distances offered
	kth  atomicF32 // heap[0] once full, +Inf before
}

// NewBound returns a bound over the k smallest distances (k ≥ 1; a
// smaller k is raised to 1).
func NewBound(k int) *Bound {
	k = max(k, 1)
	b := &Bound{k: k, heap: make([]float32, 0, k)}
	b.kth.Store(float32(math.Inf(1)))
	return b
}

// K returns the number of distances the bound keeps.
func (b *Bound) K() int { return b.k }

// Offer adds distances and returns the k-th smallest distance offered so
// far (+Inf while fewer than k were offered).
func (b *Bound) Offer(ds ...float32) float32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range ds {
		if d != d { // NaN never bounds anything
			continue
		}
		if len(b.heap) < b.k {
			b.heap = append(b.heap, d)
			b.up(len(b.heap) - 1)
		} else if d < b.heap[0] {
			b.heap[0] = d
			b.down(0)
		}
	}
	v := float32(math.Inf(1))
	if len(b.heap) == b.k {
		v = b.heap[0]
	}
	b.kth.Store(v)
	return v
}

// Value returns the k-th smallest distance offered so far (+Inf while
// fewer than k were offered).
func (b *Bound) Value() float32 { return b.kth.Load() }

func (b *Bound) up(i int) {
	h := b.heap
	for i > 0 {
		p := (i - 1) / 2
		if !(h[p] < h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (b *Bound) down(i int) {
	h := b.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] > h[l] {
			m = r
		}
		if !(h[m] > h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// MergeResults merges per-index result lists (each nearest first) into the
// k nearest overall, ties broken by id so the merge is deterministic.
// Callers map ids into one space before merging.
func MergeResults(k int, lists ...[]Result) []Result {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	all := make([]Result, 0, n)
	for _, l := range lists {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Dist != all[j].Dist {
			return all[i].Dist < all[j].Dist
		}
		return all[i].ID < all[j].ID
	})
	if len(all) > k {
		all = all[:k]
	}
	return all
}
