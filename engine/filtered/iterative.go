package filtered

import (
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// scan is a continuing layer-0 search: pgvector 0.8's iterative index scan
// (src/hnswscan.c, GetScanItems / ResumeScanItems) and RediSearch's HNSW
// batch iterator both follow this shape. The visited set persists across
// batches, so no element is returned twice; every scored element that did
// not make a batch waits in the discarded min-heap, and the next batch is a
// fresh layer-0 search seeded with the ef nearest discarded elements.
type scan struct {
	s         *search
	discarded topk.MinHeap
	started   bool
}

// batch returns the next batch of at most ef elements, nearest first, from
// a layer-0 search with beam ef. It returns nil when nothing is left.
func (sc *scan) batch(ef int) []engine.Result {
	s := sc.s
	g := s.c.graph
	var eps []engine.Result
	if !sc.started {
		sc.started = true
		ep := s.descend(g)
		s.visit(ep.ID)
		eps = []engine.Result{ep}
	} else {
		for len(eps) < ef && sc.discarded.Len() > 0 {
			eps = append(eps, sc.discarded.Pop())
		}
		if len(eps) == 0 {
			return nil
		}
	}
	s.searchLayer0(g, eps, layerOpts{ef: ef, discarded: &sc.discarded})
	return s.takeW()
}

// iterative is pgvector 0.8 with hnsw.iterative_scan on. The index emits
// batches of ef_search elements nearest-first (ResumeScanItems seeds each
// new batch with the ef_search nearest discarded elements); the executor
// applies the WHERE clause to each row and stops at LIMIT k.
//
// What each mode guarantees:
//   - relaxed_order: every emitted row is a real row, at most once, and the
//     scan keeps going until k rows pass (or the limits hit); rows are only
//     approximately sorted because a later batch can hold rows closer than
//     rows already returned. The executor takes the FIRST k passing rows,
//     not the best k, so recall stays well under 1 even with k hits: the
//     first batch's few matches are near the query's cluster centre, the
//     later batches wander off and fill the remaining slots with whatever
//     matching rows they meet first.
//   - strict_order: output distances never decrease: any row closer than the
//     previously emitted row (matching or not: the index does not see the
//     filter) is silently skipped, never returned late. Sorted output at the
//     price of dropping true neighbours found late, hence lower recall than
//     relaxed.
//
// Limits: after a batch, if the scan has touched hnsw.max_scan_tuples
// elements (it never limits the first batch) or its modelled memory exceeds
// work_mem × hnsw.scan_mem_multiplier, exploration stops and the remaining
// discarded elements are emitted one at a time, nearest first.
func (s *search) iterative(k, ef int, strict bool, p Params) []engine.Result {
	sc := &scan{s: s}
	out := make([]engine.Result, 0, k)
	prev := float32(-1e38)
	maxMem := p.WorkMemKB * 1024 * p.ScanMemMultiplier
	exhausted := false
	for len(out) < k {
		var b []engine.Result
		if !exhausted {
			limit := sc.started && (s.st.Visited >= p.MaxScanTuples || s.st.Visited*p.ScanBytesPerTuple+sc.discarded.Len()*p.ScanBytesPerTuple > maxMem)
			if limit {
				exhausted = true
			} else {
				b = sc.batch(ef)
				s.st.Batches++
				if b == nil {
					break
				}
			}
		}
		if exhausted {
			if sc.discarded.Len() == 0 {
				break
			}
			b = []engine.Result{sc.discarded.Pop()}
		}
		for _, r := range b {
			s.st.Tuples++
			if strict {
				if r.Dist < prev {
					continue
				}
				prev = r.Dist
			}
			if s.allowed(r.ID) {
				out = append(out, r)
				if len(out) == k {
					break
				}
			}
		}
	}
	return out
}
