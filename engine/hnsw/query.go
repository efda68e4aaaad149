package hnsw

import (
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
)

// Lucene's constants for the shared bound (MultiLeafKnnCollector's
// DEFAULT_GREEDINESS and DEFAULT_INTERVAL; apache/lucene
// lucene/core/src/java/org/apache/lucene/search/knn/MultiLeafKnnCollector.java,
// read at commit 23dfed0442e1, the same since Lucene 9.10): a search not
// globally competitive still keeps its (1 − greediness)·k nearest local
// results competitive, and it exchanges with the global queue when a
// collect finds its visited count a multiple of interval+1.
const (
	boundGreediness = 0.9
	boundInterval   = 0xff
)

// Query implements [engine.Index]: it borrows a pooled Searcher, runs
// [Searcher.Search] with r and returns a fresh slice and the counters.
func (ix *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	s := ix.searchers.Get().(*Searcher)
	defer ix.searchers.Put(s)
	res, err := s.Search(q, r)
	if err != nil {
		return nil, s.stats, err
	}
	return append([]engine.Result(nil), res...), s.stats, nil
}

// The shared bound (engine.Request.Bound) is Lucene 9.10–10.2's
// MultiLeafKnnCollector sharing a BlockingFloatHeap of size k: once W
// holds ef results, a candidate is expanded (and a neighbour admitted)
// only if it is nearer than
//
//	min(W's furthest, max(the m-th nearest local result, the global bound))
//
// with m = max(1, round((1 − 0.9)·ef)). Like MultiLeafKnnCollector.collect,
// the searcher keeps the distances it collected since its last exchange
// and offers them to the bound (reading back the global ef-th distance)
// when W first fills, and afterwards only on a collect that finds the
// segment's visited count (scored nodes, the upper layers' included, as
// TopKnnCollector.visitedCount) a multiple of 256. What was collected
// after the last exchange is never offered: a later segment sees only
// the exchanged distances. The bound should be sized ef
// (engine.NewBound(ef)).

// layer0Bound is layer0 with the shared bound, on the same shared loop
// (engine/internal/beam) with boundPolicy.
func (s *Searcher) layer0Bound(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter, b *engine.Bound) {
	ix := s.ix
	s.nc.Reset()
	s.upd = s.upd[:0]
	// Lucene's visited count before layer 0: the upper layers' scored
	// nodes (the descent's distance computations) and the layer-0 entry,
	// which searchLevel scores again.
	visited0 := s.stats.DistComps + 1
	w := s.startWalk(ep, epDist)
	p := &s.bpol
	inf := float32(math.Inf(1))
	*p = boundPolicy{s: s, ef: ef, m: max(1, int(math.Round((1-boundGreediness)*float64(ef)))),
		allow: allow, b: b, global: inf, visited0: visited0}
	if allow == nil || allow.Allowed(ep) {
		p.collect(engine.Result{ID: ep, Dist: epDist}, visited0)
	}
	w.Bound = p.bound()
	sp := ix.space()
	beam.Run(w, &sp, q, sc, p)
	s.endWalk()
	s.upd = s.upd[:0] // MultiLeafKnnCollector keeps its unexchanged updates
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
	visited0 int     // Lucene's visited count when the layer-0 walk started
}

// bound is min(W's furthest, max(the m-th nearest local result, the
// global bound)) once W is full, else +Inf.
func (p *boundPolicy) bound() float32 {
	if !p.full {
		return float32(math.Inf(1))
	}
	return min(p.s.res.Top().Dist, max(p.s.nc.Top().Dist, p.global))
}

func (p *boundPolicy) collect(r engine.Result, visited int) {
	s := p.s
	s.res.PushBounded(r, p.ef)
	s.nc.PushBounded(r, p.m)
	s.upd = append(s.upd, r.Dist)
	first := !p.full && s.res.Len() >= p.ef
	if first {
		p.full = true
	}
	if p.full && (first || visited&boundInterval == 0) && len(s.upd) > 0 {
		p.global = p.b.Offer(s.upd...)
		s.upd = s.upd[:0]
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
	// The walk counted the batch already; Lucene counts each node as it
	// scores it, so the i-th of the batch is visit base+i+1.
	base := p.visited0 + w.Scored - len(ids)
	for i, nb := range ids {
		d := dists[i]
		if d < lower {
			w.Cand.Push(engine.Result{ID: nb, Dist: d})
			if p.allow == nil || p.allow.Allowed(nb) {
				p.collect(engine.Result{ID: nb, Dist: d}, base+i+1)
				lower = p.bound()
			}
		}
	}
	w.Bound = lower
}
