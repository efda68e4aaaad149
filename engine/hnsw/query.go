package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
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

// layer0Bound is layer0 with the shared bound. Its expansion step is
// layer0's, written out again: factoring it into a method cost 3–9 % of
// BenchmarkSearch's throughput (ef 10…200), on the path every recall
// figure runs through.
func (s *Searcher) layer0Bound(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter, b *engine.Bound) {
	ix := s.ix
	s.vis.Reset(len(ix.keys))
	s.cand.Reset()
	s.res.Reset()
	s.nc.Reset()
	s.upd = s.upd[:0]
	m := max(1, int(math.Round((1-boundGreediness)*float64(ef))))
	st := &s.stats
	inf := float32(math.Inf(1))
	global := inf // the bound's value at the last exchange
	full := false // W has held ef results
	nextSync := 0 // visited count of the next exchange
	// bound is Lucene's minCompetitiveSimilarity in distances.
	bound := func() float32 {
		if !full {
			return inf
		}
		return min(s.res.Top().Dist, max(s.nc.Top().Dist, global))
	}
	collect := func(r engine.Result) {
		s.res.PushBounded(r, ef)
		s.nc.PushBounded(r, m)
		s.upd = append(s.upd, r.Dist)
		first := !full && s.res.Len() >= ef
		if first {
			full = true
		}
		if full && (first || st.Visited >= nextSync) {
			global = b.Offer(s.upd...)
			s.upd = s.upd[:0]
			nextSync = st.Visited + boundInterval + 1
		}
	}
	s.vis.Visit(ep)
	st.Visited++
	if allow == nil || allow.Allowed(ep) {
		collect(engine.Result{ID: ep, Dist: epDist})
	}
	lower := bound()
	s.cand.Push(engine.Result{ID: ep, Dist: epDist})
	links, stride := ix.links0, ix.stride0
	for s.cand.Len() > 0 {
		c := s.cand.Top()
		if c.Dist > lower {
			break
		}
		s.cand.Pop()
		st.Hops++
		o := int(c.ID) * stride
		lst := links[o : o+stride : o+stride]
		ids := s.ids[:0]
		for _, nb := range lst[1 : 1+lst[0]] {
			if !s.vis.Visit(nb) {
				ids = append(ids, nb)
			}
		}
		st.Visited += len(ids)
		st.DistComps += len(ids)
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
			if d < lower {
				s.cand.Push(engine.Result{ID: nb, Dist: d})
				if allow == nil || allow.Allowed(nb) {
					collect(engine.Result{ID: nb, Dist: d})
					lower = bound()
				}
			}
		}
	}
	if len(s.upd) > 0 {
		b.Offer(s.upd...)
		s.upd = s.upd[:0]
	}
}
