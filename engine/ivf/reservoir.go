package ivf

import (
	"math"

	"github.com/veclab/veclab/engine"
)

// reservoir keeps the kk smallest results offered to it by (Dist, ID), for
// the scan of quantized lists, where kk = ⌈K·oversample⌉ runs to hundreds
// and most codes scanned would enter a bounded heap of that size. Offers
// are appended to a buffer of 2·kk; when it fills, a selection (an
// iterative quickselect) cuts it back to its kk smallest, and the largest
// distance kept then bars what later offers may enter. FAISS collects IVF
// scan results the same way (faiss/impl/ResultHandler.h, ReservoirTopN):
// an offer costs a comparison and an append, against log2(kk) swaps down
// a heap.
type reservoir struct {
	buf []engine.Result
	kk  int
	thr float32 // offers with a larger distance cannot be among the kk smallest
}

func (r *reservoir) reset(kk int) {
	r.buf, r.kk, r.thr = r.buf[:0], kk, float32(math.Inf(1))
}

// len returns how many results are held (at least min(kk, offers kept)).
func (r *reservoir) len() int { return len(r.buf) }

// offer adds (id, d) if it may be among the kk smallest.
func (r *reservoir) offer(id engine.ID, d float32) {
	if d > r.thr {
		return
	}
	r.buf = append(r.buf, engine.Result{ID: id, Dist: d})
	if len(r.buf) >= 2*r.kk {
		r.cut()
	}
}

// cut keeps the kk smallest of the buffer.
func (r *reservoir) cut() {
	selectSmallest(r.buf, r.kk)
	r.buf = r.buf[:r.kk]
	r.thr = r.buf[r.kk-1].Dist
}

// results returns the kk smallest results offered (fewer if fewer were),
// in no particular order; the slice is the reservoir's own.
func (r *reservoir) results() []engine.Result {
	if len(r.buf) > r.kk {
		r.cut()
	}
	return r.buf
}

func lessDistID(a, b engine.Result) bool {
	return a.Dist < b.Dist || (a.Dist == b.Dist && a.ID < b.ID)
}

// selectSmallest reorders a so that a[:k] holds its k smallest by (Dist,
// ID) and a[k-1] the largest of them (Hoare's FIND with a median-of-three
// pivot and Lomuto's partition; insertion sort below 16 elements).
// 1 ≤ k ≤ len(a).
func selectSmallest(a []engine.Result, k int) {
	lo, hi := 0, len(a)-1
	for hi > lo {
		if hi-lo < 16 {
			for i := lo + 1; i <= hi; i++ {
				for j := i; j > lo && lessDistID(a[j], a[j-1]); j-- {
					a[j], a[j-1] = a[j-1], a[j]
				}
			}
			return
		}
		mid := lo + (hi-lo)/2
		if lessDistID(a[mid], a[lo]) {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if lessDistID(a[hi], a[lo]) {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if lessDistID(a[hi], a[mid]) {
			a[hi], a[mid] = a[mid], a[hi]
		}
		a[mid], a[hi] = a[hi], a[mid] // the median of three is the pivot, at hi
		p := a[hi]
		i := lo
		for j := lo; j < hi; j++ {
			if lessDistID(a[j], p) {
				a[i], a[j] = a[j], a[i]
				i++
			}
		}
		a[i], a[hi] = a[hi], a[i]
		switch {
		case i == k-1:
			return
		case i < k-1:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
}
