package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
)

// Lucene's constants for the shared bound (MultiLeafKnnCollector,
// Lucene 9.10+): a search not globally competitive still keeps its
// (1 − greediness)·k nearest local results competitive, and it exchanges
// its collected distances with the global queue every interval+1 visited
// nodes.
const (
	boundGreediness = 0.9
	boundInterval   = 0xff
)

// Query implements [engine.Index]: r.Breadth is ef (0: Config.EfSearch),
// r.Filter the allow-list and r.Bound, when set, a bound shared with the
// searches of other segments (see [Searcher.SearchBound]). It borrows a
// pooled Searcher and returns a fresh slice.
func (ix *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Check(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("hnsw: query: %w", err)
	}
	s := ix.searchers.Get().(*Searcher)
	defer ix.searchers.Put(s)
	res, err := s.search(q, r.K, r.Breadth, r.Filter, r.Bound)
	if err != nil {
		return nil, s.stats, err
	}
	return append([]engine.Result(nil), res...), s.stats, nil
}

// SearchBound is Search with a bound shared across the segments of one
// collection, as Lucene's MultiLeafKnnCollector shares a
// BlockingFloatHeap: once W holds ef results, a candidate is expanded
// (and a neighbour admitted) only if it is nearer than
//
//	min(W's furthest, max(the m-th nearest local result, the global bound))
//
// with m = max(1, round((1 − 0.9)·ef)); the searcher offers the distances
// it collected to b when W first fills and then every 256 visited nodes,
// and reads back the global ef-th distance. b should be sized ef
// (engine.NewBound(ef)). Unlike Lucene, the distances collected after the
// last exchange are offered when the search ends, so that a sequential
// search of several segments hands all of them on to the next.
func (s *Searcher) SearchBound(q []float32, k, ef int, allow engine.Filter, b *engine.Bound) ([]engine.Result, error) {
	return s.search(q, k, ef, allow, b)
}

// layer0Bound is layer0 with the shared bound, on the same shared loop
// (engine/internal/beam) with boundPolicy.
func (s *Searcher) layer0Bound(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter, b *engine.Bound) {
	ix := s.ix
	s.nc.Reset()
	s.upd = s.upd[:0]
	w := s.startWalk(ep, epDist)
	p := &s.bpol
	inf := float32(math.Inf(1))
	*p = boundPolicy{s: s, ef: ef, m: max(1, int(math.Round((1-boundGreediness)*float64(ef)))),
		allow: allow, b: b, global: inf, visited0: s.stats.Visited}
	if allow == nil || allow.Allowed(ep) {
		p.collect(w, engine.Result{ID: ep, Dist: epDist})
	}
	w.Bound = p.bound()
	sp := ix.space()
	beam.Run(w, &sp, q, sc, p)
	s.endWalk()
	if len(s.upd) > 0 {
		b.Offer(s.upd...)
		s.upd = s.upd[:0]
	}
}

// boundPolicy admits a neighbour only if it is nearer than the bound
// (Lucene's minCompetitiveSimilarity in distances) and exchanges the
// collected distances with the shared bound.
type boundPolicy struct {
	s        *Searcher
	ef, m    int
	allow    engine.Filter
	b        *engine.Bound
	global   float32 // the bound's value at the last exchange
	full     bool    // W has held ef results
	nextSync int     // visited count of the next exchange
	visited0 int     // Stats.Visited when the walk started
}

// bound is min(W's furthest, max(the m-th nearest local result, the
// global bound)) once W is full, else +Inf.
func (p *boundPolicy) bound() float32 {
	if !p.full {
		return float32(math.Inf(1))
	}
	return min(p.s.res.Top().Dist, max(p.s.nc.Top().Dist, p.global))
}

func (p *boundPolicy) collect(w *beam.Walk, r engine.Result) {
	s := p.s
	s.res.PushBounded(r, p.ef)
	s.nc.PushBounded(r, p.m)
	s.upd = append(s.upd, r.Dist)
	first := !p.full && s.res.Len() >= p.ef
	if first {
		p.full = true
	}
	if visited := p.visited0 + w.Scored; p.full && (first || visited >= p.nextSync) {
		p.global = p.b.Offer(s.upd...)
		s.upd = s.upd[:0]
		p.nextSync = visited + boundInterval + 1
	}
}

// Expand returns id's layer-0 links (unused while the walk reads the
// link slab itself, as it does here).
func (p *boundPolicy) Expand(id engine.ID) []engine.ID {
	lst := p.s.ix.list(0, id)
	return lst[1 : 1+lst[0]]
}

func (p *boundPolicy) Admit(w *beam.Walk, ids []engine.ID, dists []float32) {
	lower := w.Bound
	dists = dists[:len(ids)]
	for i, nb := range ids {
		d := dists[i]
		if d < lower {
			w.Cand.Push(engine.Result{ID: nb, Dist: d})
			if p.allow == nil || p.allow.Allowed(nb) {
				p.collect(w, engine.Result{ID: nb, Dist: d})
				lower = p.bound()
			}
		}
	}
	w.Bound = lower
}
