package filtered

import (
	"math"
	"sort"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
	"github.com/veclab/veclab/engine/internal/topk"
)

// search is the state of one query: the prepared query, the filter and the
// reusable heaps. It is built per Search call.
type search struct {
	c       *Collection
	q       []float32
	f       matcher // nil: no filter
	st      *Stats
	visited *topk.Visited
	local   *topk.Visited // ACORN: dedup within one neighbourhood (lazily made)
	// ACORN over a filter without payload indexes: the predicate's answer
	// per node for this query (checked: evaluated; passed: it matched), so
	// a node met again through another two-hop neighbourhood is not
	// decoded again. Lazily made.
	checked, passed *topk.Visited
	sc              engine.QueryScorer // quantized scorer (in-graph over codes), nil: float32
	w               topk.MaxHeap       // W: furthest kept result on top
	walk            beam.Walk          // the shared layer-0 loop's state (C: walk.Cand)
	pol             layerPolicy
}

// cand is C, the candidate heap of the layer-0 walk.
func (s *search) cand() *topk.MinHeap { return &s.walk.Cand }

// newSearch takes a search state from the collection's pool (visited sets
// are reset by bumping an epoch, heaps keep their storage).
func (c *Collection) newSearch(q []float32, f matcher, st *Stats) *search {
	s, _ := c.pool.Get().(*search)
	if s == nil {
		s = &search{c: c, visited: topk.NewVisited(c.vectors.N)}
	}
	s.visited.Reset(c.vectors.N)
	if s.checked != nil {
		s.checked.Reset(c.vectors.N)
		s.passed.Reset(c.vectors.N)
	}
	s.q, s.f, s.st = q, f, st
	return s
}

func (c *Collection) putSearch(s *search) {
	s.q, s.f, s.st, s.sc = nil, nil, nil, nil
	c.pool.Put(s)
}

func (s *search) distance(id engine.ID) float32 {
	s.st.DistComps++
	if s.sc != nil {
		return s.sc.Distance(id)
	}
	return s.c.dist(s.q, s.c.vectors.Row(int(id)))
}

// rescore recomputes the distances of the first n of rs (nearest first by
// quantized score) with the float32 vectors and returns the k nearest of
// them, as Elasticsearch rescores the k' = ⌈oversample·k⌉ best hits of a
// quantized field (RescoreKnnVectorQuery). n = 0 returns the first k
// unrescored. s.sc is cleared: every later distance is float32.
func (s *search) rescore(rs []engine.Result, n, k int) []engine.Result {
	s.sc = nil
	if n <= 0 {
		if len(rs) > k {
			rs = rs[:k]
		}
		return rs
	}
	n = max(n, k)
	if len(rs) > n {
		rs = rs[:n]
	}
	for i := range rs {
		s.st.Rescored++
		rs[i].Dist = s.distance(rs[i].ID)
	}
	rs = sortedByDistID(rs)
	if len(rs) > k {
		rs = rs[:k]
	}
	return rs
}

func (s *search) allowed(id engine.ID) bool {
	return s.f == nil || s.f.Allowed(id)
}

// allowedOnce is allowed with the answer remembered for the query: for a
// filter that reads stored payloads (no payload index), each node is
// decoded at most once however many neighbourhoods it appears in. With an
// indexed filter Allowed is a bit test and is asked directly.
func (s *search) allowedOnce(id engine.ID) bool {
	if s.f == nil || s.f.Indexed() {
		return s.allowed(id)
	}
	if s.checked == nil {
		s.checked, s.passed = topk.NewVisited(s.c.vectors.N), topk.NewVisited(s.c.vectors.N)
	}
	if s.checked.Visit(id) {
		return s.passed.Seen(id)
	}
	ok := s.f.Allowed(id)
	if ok {
		s.passed.Visit(id)
	}
	return ok
}

// visit marks id and reports whether it is new.
func (s *search) visit(id engine.ID) bool {
	if s.visited.Visit(id) {
		return false
	}
	s.st.Visited++
	return true
}

// exactOver scores ids and keeps the k nearest.
func (s *search) exactOver(ids []engine.ID, k int) []engine.Result {
	s.w.Reset()
	for _, id := range ids {
		s.w.PushBounded(engine.Result{ID: id, Dist: s.distance(id)}, k)
	}
	return sortedByDistID(s.w.Sorted(nil))
}

// exact is brute force over the matching set (the truth). The matching set
// comes from the payload indexes when the filter's fields have one, else
// from decoding every stored payload (counted).
func (s *search) exact(k int) []engine.Result {
	s.st.Path = Exact
	if s.f == nil {
		ids := make([]engine.ID, s.c.vectors.N)
		for i := range ids {
			ids[i] = engine.ID(i)
		}
		return s.exactOver(ids, k)
	}
	return s.exactOver(s.f.IDs(), k)
}

// sortedByDistID orders ties by id, as engine/flat does, so exact answers
// are deterministic.
func sortedByDistID(rs []engine.Result) []engine.Result {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Dist != rs[j].Dist {
			return rs[i].Dist < rs[j].Dist
		}
		return rs[i].ID < rs[j].ID
	})
	return rs
}

// descend is the greedy ef = 1 walk from the entry point down to layer 1
// (HNSW paper, Alg. 5), unfiltered.
func (s *search) descend(g Graph) engine.Result {
	ep := g.EntryPoint()
	cur := engine.Result{ID: ep, Dist: s.distance(ep)}
	for l := g.MaxLevel(); l >= 1; l-- {
		for changed := true; changed; {
			changed = false
			s.st.Hops++
			for _, n := range g.Neighbors(l, cur.ID) {
				if d := s.distance(n); d < cur.Dist {
					cur = engine.Result{ID: n, Dist: d}
					changed = true
				}
			}
		}
	}
	return cur
}

// layerOpts shape one layer-0 beam search (HNSW paper, Alg. 2).
type layerOpts struct {
	ef int
	// collect decides whether a scored node may enter W (nil: all).
	collect func(engine.ID) bool
	// expand returns the nodes to score from a popped node (nil: its layer-0
	// neighbours). Returned nodes may already be visited.
	expand func(engine.ID) []engine.ID
	// discarded, when set, receives every scored node that does not enter
	// W and every node evicted from W (pgvector's iterative scan).
	discarded *topk.MinHeap
	// visitLimit stops the search once more than this many nodes were
	// scored (Lucene's visit limit = filter cardinality); 0 = no limit.
	visitLimit int
}

// searchLayer0 runs the beam search on layer 0 of g from the entry points
// eps (already visited and scored), on the engine's shared beam loop
// (engine/internal/beam) with layerPolicy. It returns false when the visit
// limit was hit. W holds the result.
func (s *search) searchLayer0(g Graph, eps []engine.Result, o layerOpts) bool {
	s.cand().Reset()
	s.w.Reset()
	for _, e := range eps {
		s.cand().Push(e)
		if o.collect == nil || o.collect(e.ID) {
			s.pushW(e, o)
		}
	}
	p := &s.pol
	*p = layerPolicy{s: s, g: g, o: o}
	w := &s.walk
	w.Vis, w.Links, w.Limit = s.visited, nil, o.visitLimit
	p.setBound(w)
	sp := beam.Space{Data: s.c.vectors.Data, Dim: s.c.vectors.Dim, Stride: s.c.vectors.Stride, Metric: s.c.metric}
	ok := beam.Run(w, &sp, s.q, s.sc, p)
	s.st.Hops += w.Hops
	s.st.Visited += w.Scored
	s.st.DistComps += w.Scored
	p.s, p.g, p.o = nil, nil, layerOpts{}
	return ok
}

// layerPolicy is the filtered searches' layer-0 rule (HNSW paper, Alg. 2):
// a scored node that could enter W goes to C and, if collect allows it,
// to W; the walk stops at a candidate further than W's furthest once W
// holds ef results. Its scores are one row per kernel call, bit for bit
// what the collection's vec.Distance gives (exact search's distances).
type layerPolicy struct {
	s *search
	g Graph
	o layerOpts
}

func (p *layerPolicy) setBound(w *beam.Walk) {
	w.Bound = float32(math.Inf(1))
	if p.s.w.Len() >= p.o.ef {
		w.Bound = p.s.w.Top().Dist
	}
}

func (p *layerPolicy) Expand(id engine.ID) []engine.ID {
	if p.o.expand != nil {
		return p.o.expand(id)
	}
	return p.g.Neighbors(0, id)
}

func (p *layerPolicy) Admit(w *beam.Walk, ids []engine.ID, dists []float32) {
	s, o := p.s, &p.o
	dists = dists[:len(ids)]
	for i, n := range ids {
		r := engine.Result{ID: n, Dist: dists[i]}
		if s.w.Len() < o.ef || r.Dist < s.w.Top().Dist {
			w.Cand.Push(r)
			if o.collect == nil || o.collect(n) {
				s.pushW(r, *o)
			}
		} else if o.discarded != nil {
			o.discarded.Push(r)
		}
	}
	p.setBound(w)
}

func (s *search) pushW(r engine.Result, o layerOpts) {
	s.w.Push(r)
	if s.w.Len() > o.ef {
		ev := s.w.Pop()
		if o.discarded != nil {
			o.discarded.Push(ev)
		}
	}
}

// takeW empties W into a slice, nearest first.
func (s *search) takeW() []engine.Result { return s.w.Sorted(nil) }

// firstAllowed keeps the first k results the filter allows.
func (s *search) firstAllowed(rs []engine.Result, k int) []engine.Result {
	out := rs[:0:0]
	for _, r := range rs {
		if len(out) == k {
			break
		}
		if s.allowed(r.ID) {
			out = append(out, r)
		}
	}
	return out
}

// postFilter is pgvector with hnsw.iterative_scan = off: the index returns
// the ef_search nearest elements of one layer-0 search (the SQL LIMIT is not
// passed to the index) and the executor drops the rows the WHERE clause
// rejects, so about ef·selectivity rows survive (README "Filtering").
func (s *search) postFilter(k, ef int) []engine.Result {
	g := s.c.graph
	ep := s.descend(g)
	s.visit(ep.ID)
	s.searchLayer0(g, []engine.Result{ep}, layerOpts{ef: ef})
	return s.firstAllowed(s.takeW(), k)
}

// inGraph is hnswlib's isIdAllowed / Lucene's accept-bits search:
// non-matching nodes are scored and expanded (the graph stays connected)
// but never enter W. As in Lucene (AbstractKnnVectorQuery): when the
// matching set is no larger than k, or the walk scores more nodes than the
// filter's cardinality, exact search over the matching set is cheaper and
// is used instead.
//
// With a quantized scorer (s.sc, a collection WithCodes) every score of the
// walk and of the exact fallback is a code score, as in Lucene over a
// bbq_hnsw or int8_hnsw field; Elasticsearch asks Lucene for k' =
// ⌈oversample·k⌉ hits (rescore > 0), then rescores them with the float32
// vectors and keeps k (rescore_vector in Elasticsearch 9.1's dense_vector
// docs; Lucene's per-leaf choice in apache/lucene 10.3
// lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java).
func (s *search) inGraph(k, ef, rescore int) []engine.Result {
	if s.sc == nil {
		rescore = 0 // float32 scores need no rescoring
	}
	want := k // hits asked of Lucene
	if rescore > 0 {
		want = max(rescore, k)
	}
	ef = max(ef, want)
	if s.f == nil {
		return s.rescore(s.unfiltered(want, ef), rescore, k)
	}
	// The matching set's size: an indexed filter knows it exactly (its
	// bitmap's cardinality), so its ids are listed only if exact search
	// runs; otherwise listing them is how the size is known.
	var ids []engine.ID
	n := 0
	if est := s.f.Estimate(); s.f.Indexed() && est.Exact() {
		n = est.Min
	} else {
		ids = s.f.IDs()
		n = len(ids)
	}
	exact := func() []engine.Result {
		s.st.Path = Exact
		if ids == nil {
			ids = s.f.IDs()
		}
		return s.rescore(s.exactOver(ids, want), rescore, k)
	}
	if n <= want {
		return exact()
	}
	g := s.c.graph
	ep := s.descend(g)
	s.visit(ep.ID)
	if !s.searchLayer0(g, []engine.Result{ep}, layerOpts{ef: ef, collect: s.allowed, visitLimit: n + 1}) {
		return exact()
	}
	rs := s.takeW()
	return s.rescore(rs, rescore, k)
}

func (s *search) unfiltered(k, ef int) []engine.Result {
	g := s.c.graph
	ep := s.descend(g)
	s.visit(ep.ID)
	s.searchLayer0(g, []engine.Result{ep}, layerOpts{ef: ef})
	rs := s.takeW()
	if len(rs) > k {
		rs = rs[:k]
	}
	return rs
}
