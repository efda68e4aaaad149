package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
	"github.com/veclab/veclab/engine/internal/topk"
)

// Searcher holds one goroutine's search state — visited set, heaps, query
// and result buffers — so that a search allocates nothing once warm.
// A Searcher is not safe for concurrent use; make one per goroutine.
type Searcher struct {
	ix    *Index
	vis   *topk.Visited
	res   topk.MaxHeap
	q     []float32
	out   []engine.Result
	fs    FloatScorer
	stats engine.SearchStats
	// Shared-bound search (engine.Request.Bound) only.
	nc  topk.MaxHeap // the m nearest collected, m = (1 − greediness)·ef
	upd []float32    // distances collected since the last offer to the bound
	// tr, when set (SearchTrace only), records what the search does.
	tr *Trace
	// The shared layer-0 loop's state and the policies it runs.
	walk beam.Walk
	pol  layer0Policy
	pat  patience // the early exit of engine.Request.Patience (off unless armed)
	bpol boundPolicy
}

// NewSearcher returns a Searcher bound to ix.
func (ix *Index) NewSearcher() *Searcher {
	return &Searcher{ix: ix, vis: topk.NewVisited(0)}
}

// Stats returns the counters of the last search.
func (s *Searcher) Stats() engine.SearchStats { return s.stats }

// Search runs the search r asks for and returns up to r.K results nearest
// first; the slice is valid until the next call on s, and Stats holds the
// counters. It is the searcher behind [Index.Query], which borrows a
// pooled Searcher and copies the results; a goroutine that searches many
// times keeps its own Searcher and allocates nothing once warm.
//
// r.Breadth is ef (0: Config.EfSearch; an ef below r.K is raised to
// r.K). r.Filter restricts the results to the ids it allows: disallowed
// nodes are traversed but never returned, as in hnswlib's isIdAllowed
// filter (nmslib/hnswlib v0.8.0 hnswlib/hnswalg.h, searchBaseLayerST).
// r.Seeds, when set, replace the descent from the top layer: the seeds
// are scored, visited and collected, then the layer-0 loop runs from all
// of them, as Lucene's HnswGraphSearcher does for a collector with a
// KnnSearchStrategy.Seeded (apache/lucene 10.3+
// lucene/core/src/java/org/apache/lucene/util/hnsw/HnswGraphSearcher.java);
// seeds out of range are ignored, and with none left the search descends
// as usual. r.Patience stops the layer-0 walk early as Elasticsearch
// 9.3+ does (patience.go). r.Bound shares the beam's bound with the
// searches of other segments (see boundPolicy in query.go). r.Params may
// be a *[Lucene] (Lucene's reader search) or a *[Rescore] (quantized
// search with rescoring); any other type is an error. Result ids are
// dense ids ([Index.Key] maps them back).
func (s *Searcher) Search(q []float32, r engine.Request) ([]engine.Result, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("hnsw: %w", err)
	}
	switch p := r.Params.(type) {
	case nil:
	case *Lucene:
		return s.lucene(q, r, p)
	case *Rescore:
		return s.rescored(q, r, p)
	default:
		return nil, fmt.Errorf("hnsw: search: Params of type %T (want *hnsw.Lucene, *hnsw.Rescore or nil): %w", r.Params, engine.ErrInvalidArgument)
	}
	return s.search(q, r.K, r.Breadth, r.Filter, r.Bound, r.Seeds, r.Patience)
}

// search is the one search of every entry point; the request is
// validated by them (the query vector here, by PrepareQuery).
func (s *Searcher) search(q []float32, k, ef int, allow engine.Filter, b *engine.Bound, seeds []engine.ID, patient bool) ([]engine.Result, error) {
	ix := s.ix
	s.stats = engine.SearchStats{}
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
	s.pat.reset(patient, ef) // the collector's k is the beam (Lucene's k)
	var sc engine.QueryScorer
	if ix.codes != nil {
		if sc, err = ix.codes.NewQueryScorer(s.q); err != nil {
			return nil, fmt.Errorf("hnsw: search: %w", err)
		}
	}
	s.fs = FloatScorer{ix: ix, q: s.q}
	if n := engine.ID(len(ix.keys)); len(seeds) > 0 {
		valid := seeds[:0:0]
		for _, id := range seeds {
			if id < n {
				valid = append(valid, id)
			}
		}
		if len(valid) > 0 {
			s.layer0Seeded(s.q, sc, valid, ef, allow)
			s.out = s.res.Sorted(s.out[:0])
			if len(s.out) > k {
				s.out = s.out[:k]
			}
			return s.out, nil
		}
	}
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

// layer0 is the base-layer loop of hnswlib's searchBaseLayerST, run by
// the engine's shared beam loop (engine/internal/beam) with hnswlib's
// rule as its policy: a popped candidate further than the worst result
// stops the search once W holds ef results (or at once when nothing is
// filtered). Every unvisited neighbour that could enter W goes to the
// candidate queue; only allowed ones enter W, and only they tighten the
// bound.
func (s *Searcher) layer0(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter) {
	ix := s.ix
	w := s.startWalk(ep, epDist)
	p := &s.pol
	*p = layer0Policy{res: &s.res, ef: ef, allow: allow, lower: float32(math.Inf(1)), pat: &s.pat}
	if allow == nil || allow.Allowed(ep) {
		s.res.Push(engine.Result{ID: ep, Dist: epDist})
		s.pat.collect(true)
		p.lower = epDist
	}
	p.setBound(w)
	if s.tr != nil {
		s.tr.Layers = append(s.tr.Layers, LayerTrace{Level: 0, Visited: []engine.ID{ep}})
		p.lt = &s.tr.Layers[len(s.tr.Layers)-1]
		p.links, p.stride = ix.links0, ix.stride0
		w.Links = nil // Expand records each expansion
	}
	sp := ix.space()
	beam.Run(w, &sp, q, sc, p)
	s.endWalk()
}

// layer0Seeded is layer0 from several entry points: each seed is scored,
// marked visited, pushed as a candidate and, if allowed, collected before
// the loop runs (Lucene's searchLevel over its entry points).
func (s *Searcher) layer0Seeded(q []float32, sc engine.QueryScorer, seeds []engine.ID, ef int, allow engine.Filter) {
	ix := s.ix
	ep := seeds[0]
	epDist := ix.dist(q, sc, ep)
	s.stats.DistComps++
	w := s.startWalk(ep, epDist)
	p := &s.pol
	*p = layer0Policy{res: &s.res, ef: ef, allow: allow, lower: float32(math.Inf(1)), pat: &s.pat}
	collect := func(id engine.ID, d float32) {
		if allow == nil || allow.Allowed(id) {
			s.pat.collect(s.res.PushBounded(engine.Result{ID: id, Dist: d}, ef))
			p.lower = s.res.Top().Dist
		}
	}
	collect(ep, epDist)
	for _, id := range seeds[1:] {
		if w.Vis.Visit(id) {
			continue // a duplicate seed
		}
		d := ix.dist(q, sc, id)
		s.stats.DistComps++
		s.stats.Visited++
		w.Cand.Push(engine.Result{ID: id, Dist: d})
		collect(id, d)
	}
	p.setBound(w)
	sp := ix.space()
	beam.Run(w, &sp, q, sc, p)
	s.endWalk()
}

// startWalk resets the walk state for a layer-0 search from ep.
func (s *Searcher) startWalk(ep engine.ID, epDist float32) *beam.Walk {
	ix := s.ix
	w := &s.walk
	w.Vis = s.vis
	w.Vis.Reset(len(ix.keys))
	w.Cand.Reset()
	s.res.Reset()
	w.Links, w.LinkStride, w.Limit = ix.links0, ix.stride0, 0
	w.Vis.Visit(ep)
	s.stats.Visited++
	w.Cand.Push(engine.Result{ID: ep, Dist: epDist})
	return w
}

// endWalk adds the walk's counters to the search's.
func (s *Searcher) endWalk() {
	s.stats.Hops += s.walk.Hops
	s.stats.Visited += s.walk.Scored
	s.stats.DistComps += s.walk.Scored
}

// layer0Policy is hnswlib's per-neighbour rule (searchBaseLayerST).
type layer0Policy struct {
	res   *topk.MaxHeap
	ef    int
	allow engine.Filter
	lower float32 // W's furthest distance (+Inf while W is empty)
	// pat is the early exit (engine.Request.Patience; off when not armed).
	pat *patience
	// Trace only: the layer being recorded and the link slab Expand reads.
	lt     *LayerTrace
	links  []engine.ID
	stride int
}

func (p *layer0Policy) setBound(w *beam.Walk) {
	w.Bound = p.lower
	if p.allow != nil && p.res.Len() < p.ef {
		w.Bound = float32(math.Inf(1))
	}
}

// Expand is only called when tracing (the walk reads the link slab itself
// otherwise).
func (p *layer0Policy) Expand(id engine.ID) []engine.ID {
	o := int(id) * p.stride
	lst := p.links[o : o+p.stride : o+p.stride]
	p.lt.Expanded = append(p.lt.Expanded, id)
	return lst[1 : 1+lst[0]]
}

func (p *layer0Policy) Admit(w *beam.Walk, ids []engine.ID, dists []float32) {
	if p.lt != nil {
		p.lt.Visited = append(p.lt.Visited, ids...)
	}
	res, ef, allow, lower := p.res, p.ef, p.allow, p.lower
	dists = dists[:len(ids)]
	for i, nb := range ids {
		d := dists[i]
		if res.Len() < ef || d < lower {
			w.Cand.Push(engine.Result{ID: nb, Dist: d})
			if allow == nil || allow.Allowed(nb) {
				p.pat.collect(res.PushBounded(engine.Result{ID: nb, Dist: d}, ef))
				lower = res.Top().Dist
			}
		}
	}
	p.lower = lower
	p.setBound(w)
	// One expanded candidate closed (Lucene: nextVectorsBlock →
	// nextCandidate); a spent patience ends the walk at the next stop test.
	if p.pat.on && p.pat.next() {
		w.Bound = float32(math.Inf(-1))
	}
}
