// Package beam is the layer-0 beam search every HNSW walk of the engine
// runs: engine/hnsw's search (hnswlib's searchBaseLayerST, nmslib/hnswlib
// v0.8.0 hnswlib/hnswalg.h), the filtered strategies of engine/filtered
// (post-filter, pgvector's iterative scan, in-graph, Qdrant's and Redis's
// graph paths, ACORN's predicate-subgraph search) and engine/nested's
// parent-deduplicating walk. Malkov & Yashunin, "Efficient and robust
// approximate nearest neighbor search using Hierarchical Navigable Small
// World graphs" (IEEE TPAMI 2020, arXiv:1603.09320), Alg. 2 is the shape:
// pop the nearest candidate, stop once it is further than the result
// set's bound, else score its unvisited neighbours and keep the ones that
// could enter the result set.
//
// The loop owns what is the same in all of them and is where the time
// goes: the candidate heap C, the visited set, gathering a node's
// unvisited neighbours, prefetching their rows and scoring them with the
// engine's distance kernels in one batch, and prefetching the next
// candidate's link list. What differs — the result set W (a bounded heap,
// one kept with a shared bound, one entry per parent), which scored nodes
// may enter it, which nodes an expansion reaches (ACORN's two-hop
// neighbourhoods) — is a [Policy], called once per expanded node with the
// whole scored batch, never once per edge, so an interface call costs a
// few nanoseconds against the hundreds of a node's distances.
package beam

import (
	"unsafe"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/topk"
)

// MaxPrefetchLines caps how many 64-byte lines of each gathered row are
// prefetched; the hardware streamer fetches the rest of a long row.
const MaxPrefetchLines = 8

// Space is the float32 rows a walk scores: row id is
// Data[id·Stride : id·Stride+Dim], against a query of Dim components
// prepared for Metric (unit length under Cosine).
type Space struct {
	Data   []float32
	Dim    int
	Stride int
	Metric engine.Metric
	// Quad scores four rows per kernel call (f32.Dot4 / L2Sq4), which
	// overlaps the four rows' cache misses; the distances then differ in
	// the last bits from one-row scoring (f32.Dot / L2Sq, what
	// engine/vec.Distance computes). false scores one row per call, bit
	// for bit what vec.Distance gives.
	Quad bool
}

// Prefetch asks the CPU to start loading the rows of ids. It never
// changes a result.
func (sp *Space) Prefetch(ids []engine.ID) {
	if len(ids) == 0 || len(sp.Data) == 0 {
		return
	}
	lines := min((sp.Dim*4+63)/64, MaxPrefetchLines)
	prefetchRows(&sp.Data[0], (*uint32)(unsafe.Pointer(&ids[0])), len(ids), sp.Stride*4, lines)
}

// PrefetchRows asks the CPU to start loading the first lines (64 bytes
// each) of the rows ids[0…n-1] of the slab at data, rowBytes apart (the
// instruction stub Space.Prefetch and PrefetchLinks use). It never changes
// a result.
func PrefetchRows(data *float32, ids *uint32, n int, rowBytes int, lines int) {
	prefetchRows(data, ids, n, rowBytes, lines)
}

// PrefetchLinks asks the CPU to start loading row id of a link slab of
// stride ids per row. It never changes a result.
func PrefetchLinks(links []engine.ID, stride int, id engine.ID) {
	prefetchRows((*float32)(unsafe.Pointer(&links[0])), (*uint32)(unsafe.Pointer(&id)), 1, stride*4, (stride*4+63)/64)
}

// Score writes the distances of the prepared query q to the rows ids into
// out (len(out) ≥ len(ids)): the whole list in one call of f32.DotIDs /
// L2SqIDs when sp.Quad (four rows per Dot4 block), else one row per call.
func (sp *Space) Score(q []float32, ids []engine.ID, out []float32) {
	dim, stride := sp.Dim, sp.Stride
	data := sp.Data
	out = out[:len(ids)]
	row := func(id engine.ID) []float32 {
		o := int(id) * stride
		return data[o : o+dim : o+dim]
	}
	l2 := sp.Metric == engine.L2
	if sp.Quad && len(ids) > 0 {
		// The whole batch in one kernel call (four rows per Dot4 block,
		// the rest one by one; on js/wasm one crossing into the SIMD128
		// kernels per expanded node). engine.ID is a uint32.
		u := unsafe.Slice((*uint32)(unsafe.Pointer(&ids[0])), len(ids))
		if l2 {
			f32.L2SqIDs(q[:dim], data, stride, u, out)
			return
		}
		f32.DotIDs(q[:dim], data, stride, u, out)
	} else if l2 {
		for i := range ids {
			out[i] = f32.L2Sq(q, row(ids[i]))
		}
		return
	} else {
		for i := range ids {
			out[i] = f32.Dot(q, row(ids[i]))
		}
	}
	if sp.Metric == engine.Dot {
		for j := range out {
			out[j] = -out[j]
		}
	} else {
		for j := range out {
			out[j] = 1 - out[j]
		}
	}
}

// Policy is what one kind of walk adds to the loop. Each method is called
// once per expanded node.
type Policy interface {
	// Expand returns the nodes to consider from the expanded node id, in
	// order (read-only until the next call; visited ones are skipped).
	// It is not called when the walk reads a link slab (Walk.Links).
	Expand(id engine.ID) []engine.ID
	// Admit receives the newly visited nodes of one expansion and their
	// distances, in the order Expand listed them (both slices are the
	// walk's buffers: read them, do not keep them). It pushes the ones
	// that may still lead somewhere onto w.Cand, updates its result set
	// and sets w.Bound for the next stop test.
	Admit(w *Walk, ids []engine.ID, dists []float32)
}

// Walk is one goroutine's reusable state of the loop. Run leaves the
// counters of its walk in Hops and Scored; set the inputs before each Run.
type Walk struct {
	Vis  *topk.Visited
	Cand topk.MinHeap // C: nearest candidate on top
	// Bound is the stop test: the walk ends when the nearest candidate is
	// further than Bound (+Inf: not yet). The policy keeps it current.
	Bound float32
	// Links, when set, is a layer-0 link slab in hnswlib's layout — row id
	// at id·LinkStride, a count then the neighbours — that Run reads
	// directly instead of calling Policy.Expand, prefetching the next
	// candidate's row as searchBaseLayerST does.
	Links      []engine.ID
	LinkStride int
	// Limit, when > 0, ends the walk (Run returns false) once more than
	// Limit nodes were scored, stopping inside the expansion that crosses
	// it (the nodes before the one that crossed it are admitted): Lucene's
	// visit limit (the filter's cardinality).
	Limit int

	Hops   int // nodes expanded
	Scored int // nodes visited and scored

	ids   []engine.ID
	dists []float32
}

// Run walks from the candidates already on w.Cand (their nodes marked in
// w.Vis) until the stop test or an empty C, scoring with sc when it is not
// nil and otherwise with sp against the prepared query q. It returns false
// when w.Limit ended it. The policy's result set is the answer.
func Run(w *Walk, sp *Space, q []float32, sc engine.QueryScorer, p Policy) bool {
	w.Hops, w.Scored = 0, 0
	links, stride := w.Links, w.LinkStride
	for w.Cand.Len() > 0 {
		c := w.Cand.Top()
		if c.Dist > w.Bound {
			break
		}
		w.Cand.Pop()
		w.Hops++
		var lst []engine.ID
		if links != nil {
			o := int(c.ID) * stride
			row := links[o : o+stride : o+stride]
			lst = row[1 : 1+row[0]]
		} else {
			lst = p.Expand(c.ID)
		}
		// Mark and gather the unvisited neighbours, score them in one
		// batch, then let the policy apply its per-neighbour rule in
		// list order (the outcome is that of scoring them one at a time).
		ids := w.ids[:0]
		over := false
		if w.Limit > 0 {
			room := w.Limit + 1 - w.Scored
			for _, nb := range lst {
				if !w.Vis.Visit(nb) {
					ids = append(ids, nb)
					if len(ids) == room {
						over = true
						break
					}
				}
			}
		} else {
			for _, nb := range lst {
				if !w.Vis.Visit(nb) {
					ids = append(ids, nb)
				}
			}
		}
		w.ids = ids
		w.Scored += len(ids)
		if cap(w.dists) < len(ids) {
			w.dists = make([]float32, cap(ids))
		}
		dists := w.dists[:len(ids)]
		if sc != nil {
			for i, nb := range ids {
				dists[i] = sc.Distance(nb)
			}
		} else {
			sp.Prefetch(ids)
			sp.Score(q, ids, dists)
		}
		if over {
			// The last one crossed the limit: the ones before it still
			// count, as when scoring one at a time.
			p.Admit(w, ids[:len(ids)-1], dists[:len(ids)-1])
			return false
		}
		p.Admit(w, ids, dists)
		if links != nil && w.Cand.Len() > 0 {
			// Start loading the link list of the node expanded next.
			PrefetchLinks(links, stride, w.Cand.Top().ID)
		}
	}
	return true
}
