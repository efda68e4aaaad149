package hnsw

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// Searcher holds one goroutine's search state — visited set, heaps, query
// and result buffers — so that a search allocates nothing once warm.
// A Searcher is not safe for concurrent use; make one per goroutine.
type Searcher struct {
	ix    *Index
	vis   *topk.Visited
	cand  topk.MinHeap
	res   topk.MaxHeap
	q     []float32
	out   []engine.Result
	fs    FloatScorer
	stats engine.SearchStats
	ids   []engine.ID // unvisited neighbours of the node being expanded
	dists []float32   // their distances
	// Shared-bound search (SearchBound) only.
	nc  topk.MaxHeap // the m nearest collected, m = (1 − greediness)·ef
	upd []float32    // distances collected since the last offer to the bound
	// tr, when set (SearchTrace only), records what the search does.
	tr *Trace
}

// NewSearcher returns a Searcher bound to ix.
func (ix *Index) NewSearcher() *Searcher {
	return &Searcher{ix: ix, vis: topk.NewVisited(0),
		ids: make([]engine.ID, 0, ix.m0), dists: make([]float32, ix.m0)}
}

// Stats returns the counters of the last search.
func (s *Searcher) Stats() engine.SearchStats { return s.stats }

// Search returns the k nearest neighbours of q with beam ef (ef ≤ 0 means
// Config.EfSearch; ef < k is raised to k), restricted to ids allow accepts
// (nil: all). Disallowed nodes are traversed but never returned, as in
// hnswlib's isIdAllowed filter (nmslib/hnswlib v0.8.0 hnswlib/hnswalg.h,
// searchBaseLayerST). Result ids are dense
// ids (Index.Key maps them back); the slice is valid until the next call.
func (s *Searcher) Search(q []float32, k, ef int, allow engine.Filter) ([]engine.Result, error) {
	return s.search(q, k, ef, allow, nil)
}

func (s *Searcher) search(q []float32, k, ef int, allow engine.Filter, b *engine.Bound) ([]engine.Result, error) {
	ix := s.ix
	s.stats = engine.SearchStats{}
	if err := engine.CheckK(k); err != nil {
		return nil, fmt.Errorf("hnsw: %w", err)
	}
	var err error
	if s.q, err = ix.PrepareQuery(s.q, q); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.keys) == 0 {
		return nil, fmt.Errorf("hnsw: search: %w", engine.ErrEmpty)
	}
	if ef <= 0 {
		ef = ix.cfg.EfSearch
	}
	ef = max(ef, k)
	var sc engine.QueryScorer
	if ix.codes != nil {
		if sc, err = ix.codes.NewQueryScorer(s.q); err != nil {
			return nil, fmt.Errorf("hnsw: search: %w", err)
		}
	}
	s.fs = FloatScorer{ix: ix, q: s.q}
	ep, epDist := ix.greedyDescend(s.q, sc, &s.stats, s.tr)
	if b != nil {
		s.layer0Bound(s.q, sc, ep, epDist, ef, allow, b)
	} else {
		s.layer0(s.q, sc, ep, epDist, ef, allow)
	}
	s.out = s.res.Sorted(s.out[:0])
	if len(s.out) > k {
		s.out = s.out[:k]
	}
	return s.out, nil
}

// Search is the convenience form of Searcher.Search: it borrows a pooled
// Searcher and returns a fresh slice.
func (ix *Index) Search(q []float32, k, ef int) ([]engine.Result, error) {
	return ix.SearchFilter(q, k, ef, nil)
}

// SearchFilter is Search restricted to ids allow accepts.
func (ix *Index) SearchFilter(q []float32, k, ef int, allow engine.Filter) ([]engine.Result, error) {
	s := ix.searchers.Get().(*Searcher)
	defer ix.searchers.Put(s)
	res, err := s.Search(q, k, ef, allow)
	if err != nil {
		return nil, err
	}
	return append([]engine.Result(nil), res...), nil
}

// Scorer prepares q into the searcher's buffer and binds a scorer to it
// (codes if attached, else float32) without allocating on the float path.
// The scorer is valid until the next call on s.
func (s *Searcher) Scorer(q []float32) (engine.QueryScorer, error) {
	var err error
	if s.q, err = s.ix.PrepareQuery(s.q, q); err != nil {
		return nil, err
	}
	if s.ix.codes != nil {
		return s.ix.codes.NewQueryScorer(s.q)
	}
	s.fs = FloatScorer{ix: s.ix, q: s.q}
	return &s.fs, nil
}

// GreedyDescend walks from the entry point down to layer 1 with ef = 1
// (Alg. 5 lines 1–4) and returns the layer-0 entry and its distance. stats
// may be nil. The index must not be empty.
func (ix *Index) GreedyDescend(sc engine.QueryScorer, stats *engine.SearchStats) (engine.ID, float32) {
	if stats == nil {
		stats = new(engine.SearchStats)
	}
	if fs, ok := sc.(*FloatScorer); ok && fs.ix == ix {
		return ix.greedyDescend(fs.q, nil, stats, nil)
	}
	return ix.greedyDescend(nil, sc, stats, nil)
}

// dist scores id with sc when set, else with the float query q.
func (ix *Index) dist(q []float32, sc engine.QueryScorer, id engine.ID) float32 {
	if sc != nil {
		return sc.Distance(id)
	}
	return ix.QueryDistance(q, id)
}

// greedyDescend records each layer's hops and scored nodes into tr when
// it is not nil (SearchTrace); the check is once per hop, not per distance.
func (ix *Index) greedyDescend(q []float32, sc engine.QueryScorer, st *engine.SearchStats, tr *Trace) (engine.ID, float32) {
	cur := ix.entry
	curDist := ix.dist(q, sc, cur)
	st.DistComps++
	if tr != nil {
		tr.Entry, tr.EntryDist = cur, curDist
	}
	for l := ix.maxLevel; l > 0; l-- {
		if tr != nil {
			tr.Layers = append(tr.Layers, LayerTrace{Level: l})
		}
		for changed := true; changed; {
			changed = false
			st.Hops++
			lst := ix.list(l, cur)
			if tr != nil {
				lt := &tr.Layers[len(tr.Layers)-1]
				lt.Expanded = append(lt.Expanded, cur)
				lt.Visited = append(lt.Visited, lst[1:1+lst[0]]...)
			}
			for _, nb := range lst[1 : 1+lst[0]] {
				d := ix.dist(q, sc, nb)
				st.DistComps++
				if d < curDist {
					cur, curDist, changed = nb, d, true
				}
			}
		}
	}
	return cur, curDist
}

// Layer0 runs SEARCH-LAYER on layer 0 from ep with beam ef and the
// allow-list semantics of Search, and returns W nearest first (valid until
// the next call). It is the building block for strategies that choose
// their own entry or post-process W; sc comes from Scorer or
// Index.NewQueryScorer. Statistics accumulate into Stats.
func (s *Searcher) Layer0(sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter) []engine.Result {
	var q []float32
	if fs, ok := sc.(*FloatScorer); ok && fs.ix == s.ix {
		q, sc = fs.q, nil
	}
	s.layer0(q, sc, ep, epDist, max(ef, 1), allow)
	s.out = s.res.Sorted(s.out[:0])
	return s.out
}

// layer0 is the base-layer loop of hnswlib's searchBaseLayerST: a popped
// candidate further than the worst result stops the search once W holds
// ef results (or at once when nothing is filtered). Every unvisited
// neighbour that could enter W goes to the candidate queue; only allowed
// ones enter W, and only they tighten the bound.
func (s *Searcher) layer0(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter) {
	ix := s.ix
	s.vis.Reset(len(ix.keys))
	s.cand.Reset()
	s.res.Reset()
	st := &s.stats
	s.vis.Visit(ep)
	st.Visited++
	lower := float32(math.Inf(1))
	if allow == nil || allow.Allowed(ep) {
		s.res.Push(engine.Result{ID: ep, Dist: epDist})
		lower = epDist
	}
	s.cand.Push(engine.Result{ID: ep, Dist: epDist})
	var lt *LayerTrace
	if s.tr != nil {
		s.tr.Layers = append(s.tr.Layers, LayerTrace{Level: 0, Visited: []engine.ID{ep}})
		lt = &s.tr.Layers[len(s.tr.Layers)-1]
	}
	links, stride := ix.links0, ix.stride0
	for s.cand.Len() > 0 {
		c := s.cand.Top()
		if c.Dist > lower && (allow == nil || s.res.Len() >= ef) {
			break
		}
		s.cand.Pop()
		st.Hops++
		o := int(c.ID) * stride
		lst := links[o : o+stride : o+stride]
		// Mark and gather the unvisited neighbours, score them in one
		// batch, then apply hnswlib's per-neighbour rule in list order
		// (the outcome is the same as scoring one at a time).
		ids := s.ids[:0]
		for _, nb := range lst[1 : 1+lst[0]] {
			if !s.vis.Visit(nb) {
				ids = append(ids, nb)
			}
		}
		st.Visited += len(ids)
		st.DistComps += len(ids)
		if lt != nil {
			lt.Expanded = append(lt.Expanded, c.ID)
			lt.Visited = append(lt.Visited, ids...)
		}
		dists := s.dists[:len(ids)]
		if sc != nil {
			for i, nb := range ids {
				dists[i] = sc.Distance(nb)
			}
		} else {
			ix.prefetch(ids)
			ix.distBatch(q, ids, dists)
		}
		for i, nb := range ids {
			d := dists[i]
			if s.res.Len() < ef || d < lower {
				s.cand.Push(engine.Result{ID: nb, Dist: d})
				if allow == nil || allow.Allowed(nb) {
					s.res.PushBounded(engine.Result{ID: nb, Dist: d}, ef)
					lower = s.res.Top().Dist
				}
			}
		}
		if prefetchNext && s.cand.Len() > 0 {
			// Start loading the link list of the node expanded next.
			next := s.cand.Top().ID
			prefetchRows((*float32)(unsafe.Pointer(&links[0])), (*uint32)(unsafe.Pointer(&next)), 1, stride*4, (stride*4+63)/64)
		}
	}
}
