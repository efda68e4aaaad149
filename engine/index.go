package engine

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// Request is one query's parameters, for any [Index], as FAISS's
// SearchParameters is for any faiss::Index (faiss/Index.h; the
// index-specific part in a subclass such as SearchParametersHNSW, here
// in Params): how many results, how broad a search, which documents may
// be returned, where a graph walk starts and when it stops, a bound
// shared with the searches of other indexes. The zero value of every
// field but K is the index's own default; [Request.Validate] checks a
// request in one place, and every index's Query calls it.
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
	// Seeds, when set, are where a graph search enters its base layer,
	// instead of descending from the top entry point (Lucene 10.3+'s
	// KnnSearchStrategy.Seeded: the optimistic collection's re-entry
	// seeds a segment's second search with its first search's hits).
	// Seeds out of range are ignored. Not with Bound; indexes without a
	// graph ignore them.
	Seeds []ID
	// Patience ends a graph search's base-layer walk early, as
	// Elasticsearch 9.3+ does by default (index.dense_vector
	// .hnsw_enable_early_termination, AdaptiveHnswQueueSaturationCollector).
	// Not with Bound; indexes without a graph ignore it.
	Patience bool
	// Params holds index-specific parameters, as FAISS's
	// SearchParameters subclasses do (hnsw.Lucene selects Lucene's reader
	// search on an HNSW graph). An index rejects a Params of a type it
	// does not know, with ErrInvalidArgument; nil is the index's own search.
	Params any
}

// Validate checks the request itself (not the query vector) and names the
// first field that is wrong, with its value and the allowed range (an
// *ArgError), or the two fields that cannot go together.
func (r Request) Validate() error {
	if err := CheckK(r.K); err != nil {
		return err
	}
	if r.Breadth < 0 {
		return fmt.Errorf("engine: %w", &ArgError{Field: "breadth", Value: r.Breadth, Want: "≥ 0 (0: the index's default)"})
	}
	if r.Bound != nil && len(r.Seeds) > 0 {
		return fmt.Errorf("engine: seeds (%d given) with a shared bound are not emulated; set one of Seeds and Bound: %w", len(r.Seeds), ErrInvalidArgument)
	}
	if r.Bound != nil && r.Patience {
		return fmt.Errorf("engine: patience with a shared bound is not emulated; set one of Patience and Bound: %w", ErrInvalidArgument)
	}
	return nil
}

// RescoreDepth returns k′ = ⌈oversample·k⌉, the number of candidates a
// rescored search gathers before re-ranking them with full-precision
// vectors (Elasticsearch's rescore_vector, dense_vector
// index_options.rescore_vector, 9.1). It is the one place the engine and
// the lab compute k′; the caller validates oversample (a store's own
// range) and clamps k′ to its own limits (Elasticsearch's 10 000).
func RescoreDepth(k int, oversample float64) int {
	return int(math.Ceil(oversample * float64(k)))
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
