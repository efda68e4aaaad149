package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// Lucene, as an engine.Request's Params, asks for one segment's search as
// Lucene 10.3 runs it for a kNN query with a filter (apache/lucene 10.3,
// lucene/core/src/java/org/apache/lucene/codecs/lucene99/Lucene99HnswVectorsReader.java
// search, lucene/core/src/java/org/apache/lucene/util/hnsw/HnswGraphSearcher.java
// and FilteredHnswGraphSearcher.java): a TopKnnCollector of size K (the
// per-leaf k of the optimistic first pass, or the query's k,
// Elasticsearch's num_candidates) that stops once it has scored
// VisitLimit nodes, over the ids the request's Filter accepts. The
// request's Seeds are the layer-0 entry points (KnnSearchStrategy
// .Seeded: the optimistic collection's re-entry) instead of the upper
// layers' descent, and its Patience wraps the collector in
// Elasticsearch 9.3+'s adaptive early exit: both layer-0 searchers close
// each expanded candidate with it (KnnSearchStrategy.Patience
// .nextVectorsBlock); a walk it ends is complete as far as the query is
// concerned (no exact fallback: Lucene 10.4's
// HnswQueueSaturationCollector.topDocs, and EarlyTerminated stays the
// visit limit's). Breadth is not used (the collector's size is K) and a
// Bound is refused.
//
// The search sets Visited, EarlyTerminated and Path; a Lucene value is
// one search's, not to be shared by concurrent searches.
type Lucene struct {
	// Accepted is the cardinality of the request's Filter (Lucene's
	// filteredDocCount); unused without a Filter.
	Accepted int
	// VisitLimit is TopKnnCollector's visitedLimit: the search is early
	// terminated once it has scored this many nodes (0: no limit).
	// AbstractKnnVectorQuery passes the filter's cost + 1.
	VisitLimit int
	// FilteredSearchThreshold is KnnSearchStrategy.Hnsw's threshold, a
	// percentage: the ACORN-style FilteredHnswGraphSearcher runs when
	// fewer than this share of the graph passes the filter (Lucene's
	// default and Elasticsearch's acorn heuristic: 60; Elasticsearch's
	// fanout heuristic: 0, never).
	FilteredSearchThreshold int
	// Exact is AbstractKnnVectorQuery.exactSearch instead of the reader's
	// search: every id the Filter allows scored with the index's scorer
	// (the codes when it has them, as the quantized formats'
	// FloatVectorValues.scorer does), the K nearest kept (min(k,
	// accepted) in Lucene's HitQueue). Seeds, Patience and the visit
	// limit do not apply.
	Exact bool

	// Visited is TopKnnCollector's visited count (scored nodes).
	Visited int
	// EarlyTerminated reports that the visit limit stopped the search
	// (Lucene's TotalHits.Relation GREATER_THAN_OR_EQUAL_TO), after which
	// AbstractKnnVectorQuery falls back to an exact search.
	EarlyTerminated bool
	// Path is how the search went (LuceneExhaustive for Exact).
	Path LucenePath
}

// LucenePath is how a [Lucene] search searched.
type LucenePath uint8

const (
	// LuceneExhaustive scored every accepted id: the reader skips the
	// graph when ln(graph size)·k ≥ the accepted count.
	LuceneExhaustive LucenePath = iota
	// LuceneGraph is HnswGraphSearcher's walk: every neighbour scored,
	// only accepted ones collected.
	LuceneGraph
	// LuceneFilteredGraph is FilteredHnswGraphSearcher's walk: only
	// accepted neighbours scored, rejected ones explored for theirs.
	LuceneFilteredGraph
)

func (p LucenePath) String() string {
	switch p {
	case LuceneExhaustive:
		return "exhaustive"
	case LuceneGraph:
		return "hnsw"
	case LuceneFilteredGraph:
		return "filtered hnsw"
	}
	return fmt.Sprintf("LucenePath(%d)", uint8(p))
}

// expectedVisitedNodes is HnswGraphSearcher.expectedVisitedNodes:
// (int) (Math.log(graphSize) * k).
func expectedVisitedNodes(k, graphSize int) int {
	return int(math.Log(float64(graphSize)) * float64(k))
}

// lucene searches the index as Lucene99HnswVectorsReader.search does
// (Lucene 10.3): the graph is skipped for an exhaustive scan of the
// accepted ids when k ≥ the index size or when ln(size)·k ≥ the accepted
// count; otherwise the upper layers are descended (or the seeds taken)
// and layer 0 walked by HnswGraphSearcher, or by the ACORN-inspired
// FilteredHnswGraphSearcher when the accepted share is below the
// threshold. Scores come from the codes when the index has them (the
// quantized formats' scorer), else from the float32 vectors.
func (s *Searcher) lucene(q []float32, r engine.Request, p *Lucene) ([]engine.Result, error) {
	ix := s.ix
	p.Visited, p.EarlyTerminated, p.Path = 0, false, LuceneExhaustive
	s.stats = engine.SearchStats{}
	if r.Bound != nil {
		return nil, fmt.Errorf("hnsw: lucene search: a shared bound is not emulated: %w", engine.ErrInvalidArgument)
	}
	switch {
	case p.VisitLimit < 0:
		return nil, fmt.Errorf("hnsw: lucene search: %w", &engine.ArgError{Field: "VisitLimit", Value: p.VisitLimit, Want: "≥ 0 (0: no limit)"})
	case p.FilteredSearchThreshold < 0 || p.FilteredSearchThreshold > 100:
		return nil, fmt.Errorf("hnsw: lucene search: %w", &engine.ArgError{Field: "FilteredSearchThreshold", Value: p.FilteredSearchThreshold, Want: "a percentage in 0…100"})
	case p.Accepted < 0:
		return nil, fmt.Errorf("hnsw: lucene search: %w", &engine.ArgError{Field: "Accepted", Value: p.Accepted, Want: "≥ 0"})
	}
	var err error
	if s.q, err = ix.PrepareQuery(s.q, q); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	if n == 0 {
		return nil, fmt.Errorf("hnsw: lucene search: %w", engine.ErrEmpty)
	}
	accept := r.Filter
	if b, ok := accept.(*engine.Bitset); ok && b.Len() < n {
		return nil, fmt.Errorf("hnsw: lucene search: accept set of %d ids for %d nodes: %w", b.Len(), n, engine.ErrInvalidArgument)
	}
	var sc engine.QueryScorer
	if ix.codes != nil {
		if sc, err = ix.codes.NewQueryScorer(s.q); err != nil {
			return nil, fmt.Errorf("hnsw: lucene search: %w", err)
		}
	}
	if p.Exact {
		s.res.Reset()
		for id := engine.ID(0); int(id) < n; id++ {
			if accept != nil && !accept.Allowed(id) {
				continue
			}
			s.res.PushBounded(engine.Result{ID: id, Dist: ix.dist(s.q, sc, id)}, r.K)
			s.stats.DistComps++
		}
		p.Visited = s.stats.DistComps
		s.out = s.res.Sorted(s.out[:0])
		return s.out, nil
	}
	l := luceneSearch{ix: ix, s: s, q: s.q, sc: sc, accept: accept,
		c: luceneCollector{k: r.K, limit: p.VisitLimit}}
	l.c.pat.reset(r.Patience, r.K)
	l.c.res = &s.res
	s.res.Reset()
	accepted := n
	if accept != nil {
		accepted = min(p.Accepted, n)
	}
	doHnsw := r.K < n && expectedVisitedNodes(r.K, n) < accepted
	switch {
	case !doHnsw:
		p.Path = LuceneExhaustive
		for id := engine.ID(0); int(id) < n; id++ {
			if accept != nil && !accept.Allowed(id) {
				continue
			}
			if l.c.earlyTerminated() {
				break
			}
			l.c.visited++
			l.c.collect(engine.Result{ID: id, Dist: l.dist(id)})
		}
	default:
		filteredWalk := accept != nil && accepted > 0 && accepted < n &&
			float32(accepted)/float32(n)*100 < float32(p.FilteredSearchThreshold)
		var eps []engine.ID
		if len(r.Seeds) > 0 {
			for _, id := range r.Seeds {
				if int(id) < n {
					eps = append(eps, id)
				}
			}
		}
		p.Path = LuceneGraph
		if filteredWalk {
			p.Path = LuceneFilteredGraph
		}
		if len(eps) == 0 {
			ep, ok := l.findBestEntryPoint()
			if !ok {
				break // visit limit reached during the descent: no results
			}
			eps = []engine.ID{ep}
		}
		if filteredWalk {
			l.filteredLevel0(eps, accepted)
		} else {
			l.level0(eps)
		}
	}
	s.out = s.res.Sorted(s.out[:0])
	p.Visited, p.EarlyTerminated = l.c.visited, l.c.earlyTerminated()
	s.stats.DistComps = l.c.visited
	return s.out, nil
}

// luceneCollector is TopKnnCollector in distances: the k nearest
// collected, the visited count and the visit limit.
type luceneCollector struct {
	k, limit, visited int
	res               *topk.MaxHeap
	pat               patience // the request's Patience (off unless armed)
}

func (c *luceneCollector) earlyTerminated() bool { return c.limit > 0 && c.visited >= c.limit }

// collect is insertWithOverflow: it reports whether r entered the top k.
func (c *luceneCollector) collect(r engine.Result) bool {
	in := c.res.PushBounded(r, c.k)
	c.pat.collect(in)
	return in
}

// nextCandidate closes one expanded candidate; true ends the walk.
func (c *luceneCollector) nextCandidate() bool { return c.pat.on && c.pat.next() }

// bound is minCompetitiveSimilarity as a distance: the k-th nearest
// collected once k are, else +Inf.
func (c *luceneCollector) bound() float32 {
	if c.res.Len() >= c.k {
		return c.res.Top().Dist
	}
	return float32(math.Inf(1))
}

type luceneSearch struct {
	ix     *Index
	s      *Searcher
	q      []float32
	sc     engine.QueryScorer
	accept engine.Filter
	c      luceneCollector
	cand   topk.MinHeap
}

func (l *luceneSearch) dist(id engine.ID) float32 { return l.ix.dist(l.q, l.sc, id) }

func (l *luceneSearch) allowed(id engine.ID) bool { return l.accept == nil || l.accept.Allowed(id) }

// findBestEntryPoint is HnswGraphSearcher.findBestEntryPoint: a greedy
// walk down to layer 1 whose scored nodes count as visited (one visited
// set for all layers); false when the visit limit stops it.
func (l *luceneSearch) findBestEntryPoint() (engine.ID, bool) {
	ix := l.ix
	cur := ix.entry
	if ix.maxLevel == 0 {
		return cur, true
	}
	vis := l.s.vis
	vis.Reset(len(ix.keys))
	curDist := l.dist(cur)
	l.c.visited++
	for level := ix.maxLevel; level >= 1; level-- {
		vis.Visit(cur)
		for better := true; better; {
			better = false
			lst := ix.list(level, cur)
			for _, nb := range lst[1 : 1+lst[0]] {
				if vis.Visit(nb) {
					continue
				}
				if l.c.earlyTerminated() {
					return 0, false
				}
				d := l.dist(nb)
				l.c.visited++
				if d < curDist {
					cur, curDist, better = nb, d, true
				}
			}
		}
	}
	return cur, !l.c.earlyTerminated()
}

// level0 is HnswGraphSearcher.searchLevel on layer 0: candidates are
// expanded while the nearest is within the collector's bound; every
// unvisited neighbour is scored, queued if within the bound and
// collected if accepted.
func (l *luceneSearch) level0(eps []engine.ID) {
	ix, vis := l.ix, l.s.vis
	vis.Reset(len(ix.keys))
	l.cand.Reset()
	for _, ep := range eps {
		if vis.Visit(ep) {
			continue
		}
		if l.c.earlyTerminated() {
			break
		}
		d := l.dist(ep)
		l.c.visited++
		l.cand.Push(engine.Result{ID: ep, Dist: d})
		if l.allowed(ep) {
			l.c.collect(engine.Result{ID: ep, Dist: d})
		}
	}
	bound := l.c.bound()
	for l.cand.Len() > 0 && !l.c.earlyTerminated() {
		if l.cand.Top().Dist > bound {
			break
		}
		top := l.cand.Pop()
		l.s.stats.Hops++
		lst := ix.list(0, top.ID)
		for _, nb := range lst[1 : 1+lst[0]] {
			if vis.Visit(nb) {
				continue
			}
			if l.c.earlyTerminated() {
				break
			}
			d := l.dist(nb)
			l.c.visited++
			if d < bound {
				l.cand.Push(engine.Result{ID: nb, Dist: d})
				if l.allowed(nb) && l.c.collect(engine.Result{ID: nb, Dist: d}) {
					bound = l.c.bound()
				}
			}
		}
		if l.c.nextCandidate() {
			return
		}
	}
}

// nextDown is Math.nextUp on a similarity, as a distance: the largest
// float32 below d (the filtered searcher admits only what beats the
// bound by more than one ulp).
func nextDown(d float32) float32 {
	if math.IsInf(float64(d), 1) {
		return d
	}
	return math.Nextafter32(d, float32(math.Inf(-1)))
}

// filteredLevel0 is FilteredHnswGraphSearcher.searchLevel (Lucene 10.2+,
// inspired by ACORN-1, arXiv:2403.04871): of a popped candidate's
// unvisited neighbours only the accepted are scored; when more than 10 %
// were rejected and too few accepted were found, the rejected ones'
// neighbours are explored for accepted ids too, up to a budget set by
// the filter's selectivity and the graph's M.
func (l *luceneSearch) filteredLevel0(eps []engine.ID, accepted int) {
	ix, vis := l.ix, l.s.vis
	n := len(ix.keys)
	maxConn := ix.m // HnswGraph.maxConn(): M (layer 0 holds up to 2·M)
	filterRatio := float32(accepted) / float32(n)
	mult := int(math.Round(math.Min(float64(1/filterRatio), float64(maxConn)/2.0)))
	minToScore := int(math.Round(math.Min(math.Max(0, 1.0/float64(filterRatio)-2.0*float64(maxConn)), float64(maxConn))))
	const lambda = 0.10 // EXPANDED_EXPLORATION_LAMBDA
	capacity := maxConn * 2 * mult
	vis.Reset(n)
	l.cand.Reset()
	for _, ep := range eps {
		if vis.Visit(ep) {
			continue
		}
		if l.c.earlyTerminated() {
			return
		}
		d := l.dist(ep)
		l.c.visited++
		l.cand.Push(engine.Result{ID: ep, Dist: d})
		if l.allowed(ep) {
			l.c.collect(engine.Result{ID: ep, Dist: d})
		}
	}
	toScore := make([]engine.ID, 0, capacity)
	toExplore := make([]engine.ID, 0, capacity)
	bound := nextDown(l.c.bound())
	for l.cand.Len() > 0 && !l.c.earlyTerminated() {
		if bound < l.cand.Top().Dist {
			break
		}
		top := l.cand.Pop()
		l.s.stats.Hops++
		lst := ix.list(0, top.ID)
		nbs := lst[1 : 1+lst[0]]
		neighborCount := len(nbs)
		if neighborCount == 0 {
			// Java: 0/0 is NaN, maxToScoreCount 0, nothing scored; the
			// candidate still closes (nextVectorsBlock).
			if l.c.nextCandidate() {
				return
			}
			continue
		}
		toScore, toExplore = toScore[:0], toExplore[:0]
		explored := 0 // toExplore's poll position
		for _, nb := range nbs {
			if len(toScore) == capacity {
				break
			}
			if vis.Visit(nb) {
				continue
			}
			if l.allowed(nb) {
				toScore = append(toScore, nb)
			} else {
				toExplore = append(toExplore, nb)
			}
		}
		filteredAmount := float32(len(toExplore)) / float32(neighborCount)
		maxToScore := int(float32(neighborCount) * min(float32(mult), 1/(1-filteredAmount)))
		maxAdditional := capacity - 1
		total := len(toScore) + len(toExplore)
		if len(toScore) < maxToScore && filteredAmount > lambda {
			for explored < len(toExplore) {
				friend := toExplore[explored]
				explored++
				if !(total < maxAdditional && len(toScore) < maxToScore) {
					break
				}
				fl := ix.list(0, friend)
				for _, fof := range fl[1 : 1+fl[0]] {
					if len(toScore) >= maxToScore {
						break
					}
					if vis.Visit(fof) {
						continue
					}
					total++
					if l.allowed(fof) {
						toScore = append(toScore, fof)
					} else if total < maxAdditional && len(toScore) < minToScore && len(toExplore) < capacity {
						toExplore = append(toExplore, fof)
					}
				}
			}
		}
		for _, id := range toScore {
			d := l.dist(id)
			l.c.visited++
			if d < bound {
				l.cand.Push(engine.Result{ID: id, Dist: d})
				if l.c.collect(engine.Result{ID: id, Dist: d}) {
					bound = nextDown(l.c.bound())
				}
			}
		}
		if l.c.nextCandidate() {
			return
		}
	}
}
