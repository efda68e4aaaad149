// Package nested searches documents that own several vectors (passages of
// one document, E25): it returns the k nearest parents, not the k nearest
// passages. The graph walk keeps at most one entry per parent in its result
// set while it runs, updating a parent when a closer passage turns up (the
// way Lucene's DiversifyingChildrenFloatKnnVectorQuery collects the best
// child per parent), so the beam of ef holds ef distinct parents. The naive
// alternative — the k nearest passages, deduplicated afterwards — returns
// fewer than k parents whenever a parent has several passages near the query.
//
// Both walks run the engine's shared layer-0 loop (engine/internal/beam)
// with this package's rule for the result set, scoring one row per kernel
// call (bit for bit the distances ExactParents computes).
//
// # Concurrency
//
// An Index is read-only after New; searches may run concurrently.
package nested

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/vec"
)

// Graph is the read-only HNSW view the search walks (*hnsw.Index implements it).
type Graph interface {
	Len() int
	MaxLevel() int
	EntryPoint() engine.ID
	Neighbors(level int, id engine.ID) []engine.ID
}

// Hit is one parent in a result: its id, its nearest passage and that
// passage's distance.
type Hit struct {
	Parent  uint32
	Passage engine.ID
	Dist    float32
}

// Index is a passage graph with each passage's parent.
type Index struct {
	vectors *vec.Matrix
	parents []uint32
	nParent int
	metric  engine.Metric
	dist    vec.DistFunc
	graph   Graph
	// walk states (visited sets, heaps) are reused across queries (a
	// visited set is reset by an epoch bump), so a search allocates no
	// per-collection memory in steady state.
	pool sync.Pool
}

// New binds passages (row i = passage i, normalised under Cosine), the
// parent of each passage and a graph over the passages.
func New(passages *vec.Matrix, parents []uint32, metric engine.Metric, g Graph) (*Index, error) {
	if passages == nil || g == nil {
		return nil, fmt.Errorf("nested: nested.New needs passages and a graph: %w", engine.ErrInvalidArgument)
	}
	if len(parents) != passages.N || g.Len() != passages.N {
		return nil, fmt.Errorf("nested: %d passages, %d parent ids, graph of %d: %w", passages.N, len(parents), g.Len(), engine.ErrInvalidArgument)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("nested: metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	np := 0
	for _, p := range parents {
		np = max(np, int(p)+1)
	}
	return &Index{vectors: passages, parents: parents, nParent: np, metric: metric, dist: vec.Distance(metric), graph: g}, nil
}

// state is one search's reusable walk state: the shared loop's, an empty
// visited set over the passages and the parent set.
type state struct {
	walk beam.Walk
	vis  *topk.Visited
	set  parentSet
}

func (x *Index) getState() *state {
	st, _ := x.pool.Get().(*state)
	if st == nil {
		return &state{vis: topk.NewVisited(x.vectors.N)}
	}
	st.vis.Reset(x.vectors.N)
	return st
}

func (x *Index) prepare(q []float32, k int) ([]float32, error) {
	if err := engine.CheckK(k); err != nil {
		return nil, err
	}
	if err := engine.CheckVector(q, x.vectors.Dim, x.metric); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	qq := append([]float32(nil), q...)
	if x.metric == engine.Cosine {
		if err := vec.Normalize(qq); err != nil {
			return nil, err
		}
	}
	return qq, nil
}

type walker struct {
	x  *Index
	q  []float32
	st engine.SearchStats
}

func (w *walker) d(id engine.ID) float32 {
	w.st.DistComps++
	return w.x.dist(w.q, w.x.vectors.Row(int(id)))
}

func (w *walker) descend() engine.Result {
	g := w.x.graph
	ep := g.EntryPoint()
	cur := engine.Result{ID: ep, Dist: w.d(ep)}
	for l := g.MaxLevel(); l >= 1; l-- {
		for changed := true; changed; {
			changed = false
			w.st.Hops++
			for _, n := range g.Neighbors(l, cur.ID) {
				if dd := w.d(n); dd < cur.Dist {
					cur, changed = engine.Result{ID: n, Dist: dd}, true
				}
			}
		}
	}
	return cur
}

// parentSet is the result set W keyed by parent: the best passage of at
// most ef parents, held in arrays indexed by parent id (valid where the
// mark equals the epoch, so a reset is an epoch bump), with the worst
// parent found through a max-heap with lazy deletion (an improved parent
// leaves a stale heap entry behind).
type parentSet struct {
	hit   []Hit    // by parent
	mark  []uint32 // by parent: epoch when held
	epoch uint32
	n     int      // parents held
	held  []uint32 // parents added this search (may repeat, or be gone)
	heap  topk.MaxHeap
}

// reset empties the set for parents 0…np−1.
func (p *parentSet) reset(np int) {
	if len(p.mark) < np {
		p.hit = make([]Hit, np)
		p.mark = make([]uint32, np)
		p.epoch = 0
	}
	p.epoch++
	if p.epoch == 0 {
		clear(p.mark)
		p.epoch = 1
	}
	p.n = 0
	p.held = p.held[:0]
	p.heap.Reset()
}

func (p *parentSet) worst() (Hit, bool) {
	for p.heap.Len() > 0 {
		t := p.heap.Top()
		if par := uint32(t.ID); p.mark[par] == p.epoch && p.hit[par].Dist == t.Dist {
			return p.hit[par], true
		}
		p.heap.Pop() // stale
	}
	return Hit{}, false
}

// offer adds passage id of parent par at distance d; it reports whether the
// set changed.
func (p *parentSet) offer(par uint32, id engine.ID, d float32, ef int) bool {
	if p.mark[par] == p.epoch {
		if d < p.hit[par].Dist {
			p.hit[par] = Hit{Parent: par, Passage: id, Dist: d}
			p.heap.Push(engine.Result{ID: engine.ID(par), Dist: d})
			return true
		}
		return false
	}
	if p.n >= ef {
		w, _ := p.worst()
		if d >= w.Dist {
			return false
		}
		p.mark[w.Parent] = 0
		p.n--
		p.heap.Pop()
	}
	p.mark[par] = p.epoch
	p.hit[par] = Hit{Parent: par, Passage: id, Dist: d}
	p.n++
	p.held = append(p.held, par)
	p.heap.Push(engine.Result{ID: engine.ID(par), Dist: d})
	return true
}

// hits appends the held parents' hits to dst, each once, in no order, and
// empties the set.
func (p *parentSet) hits(dst []Hit) []Hit {
	for _, par := range p.held {
		if p.mark[par] == p.epoch {
			dst = append(dst, p.hit[par])
			p.mark[par] = 0
		}
	}
	p.n = 0
	return dst
}

func sortHits(hs []Hit) []Hit {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Dist != hs[j].Dist {
			return hs[i].Dist < hs[j].Dist
		}
		return hs[i].Parent < hs[j].Parent
	})
	return hs
}

// SearchParents returns the k nearest parents, deduplicating during the
// walk: the beam holds max(ef, k) distinct parents.
func (x *Index) SearchParents(q []float32, k, ef int) ([]Hit, engine.SearchStats, error) {
	return x.SearchParentsFilter(q, k, ef, nil)
}

// SearchParentsFilter is SearchParents restricted to the parents allow
// accepts (nil: all), filtered in the graph as hnswlib does: passages of
// refused parents are still walked through (their neighbours expanded) but
// never enter the result set, so the beam holds max(ef, k) distinct
// allowed parents.
func (x *Index) SearchParentsFilter(q []float32, k, ef int, allow engine.Filter) ([]Hit, engine.SearchStats, error) {
	qq, err := x.prepare(q, k)
	if err != nil {
		return nil, engine.SearchStats{}, err
	}
	if x.vectors.N == 0 {
		return nil, engine.SearchStats{}, nil
	}
	ef = max(ef, k)
	w := &walker{x: x, q: qq}
	st := x.getState()
	defer x.pool.Put(st)
	set := &st.set
	set.reset(x.nParent)
	p := &parentPolicy{g: x.graph, parents: x.parents, set: set, ef: ef, allow: allow}
	ep := w.descend()
	w.start(st, ep)
	if p.ok(ep.ID) {
		set.offer(x.parents[ep.ID], ep.ID, ep.Dist, ef)
	}
	p.setBound(&st.walk)
	w.run(st, p)
	out := sortHits(set.hits(make([]Hit, 0, set.n)))
	if len(out) > k {
		out = out[:k]
	}
	return out, w.st, nil
}

// start puts the layer-0 entry on the walk's candidate heap.
func (w *walker) start(st *state, ep engine.Result) {
	st.walk.Vis = st.vis
	st.walk.Cand.Reset()
	st.vis.Visit(ep.ID)
	st.walk.Cand.Push(ep)
}

// run is the layer-0 walk: the engine's shared beam loop
// (engine/internal/beam), scoring one row per kernel call (bit for bit
// what the index's vec.Distance gives, as ExactParents scores).
func (w *walker) run(st *state, p beam.Policy) {
	sp := beam.Space{Data: w.x.vectors.Data, Dim: w.x.vectors.Dim, Stride: w.x.vectors.Stride, Metric: w.x.metric}
	beam.Run(&st.walk, &sp, w.q, nil, p)
	w.st.Hops += st.walk.Hops
	w.st.Visited += st.walk.Scored
	w.st.DistComps += st.walk.Scored
}

// parentPolicy keeps the best passage of at most ef allowed parents: a
// passage enters C while fewer than ef parents are held or it is nearer
// than the worst parent, and its parent's entry is updated if allowed;
// the walk stops at a candidate further than the worst of ef parents.
type parentPolicy struct {
	g       Graph
	parents []uint32
	set     *parentSet
	ef      int
	allow   engine.Filter
}

func (p *parentPolicy) ok(id engine.ID) bool {
	return p.allow == nil || p.allow.Allowed(engine.ID(p.parents[id]))
}

func (p *parentPolicy) setBound(w *beam.Walk) {
	w.Bound = float32(math.Inf(1))
	if wh, found := p.set.worst(); found && p.set.n >= p.ef {
		w.Bound = wh.Dist
	}
}

func (p *parentPolicy) Expand(id engine.ID) []engine.ID { return p.g.Neighbors(0, id) }

func (p *parentPolicy) Admit(w *beam.Walk, ids []engine.ID, dists []float32) {
	set, ef := p.set, p.ef
	dists = dists[:len(ids)]
	for i, n := range ids {
		d := dists[i]
		wh, found := set.worst()
		if set.n < ef || !found || d < wh.Dist {
			w.Cand.Push(engine.Result{ID: n, Dist: d})
			if p.ok(n) {
				set.offer(p.parents[n], n, d, ef)
			}
		}
	}
	p.setBound(w)
}

// naivePolicy is the ordinary HNSW rule over passages (W: the ef nearest).
type naivePolicy struct {
	g   Graph
	res topk.MaxHeap
	ef  int
}

func (p *naivePolicy) setBound(w *beam.Walk) {
	w.Bound = float32(math.Inf(1))
	if p.res.Len() >= p.ef {
		w.Bound = p.res.Top().Dist
	}
}

func (p *naivePolicy) Expand(id engine.ID) []engine.ID { return p.g.Neighbors(0, id) }

func (p *naivePolicy) Admit(w *beam.Walk, ids []engine.ID, dists []float32) {
	dists = dists[:len(ids)]
	for i, n := range ids {
		d := dists[i]
		if p.res.Len() < p.ef || d < p.res.Top().Dist {
			w.Cand.Push(engine.Result{ID: n, Dist: d})
			p.res.PushBounded(engine.Result{ID: n, Dist: d}, p.ef)
		}
	}
	p.setBound(w)
}

// SearchNaive is the naive plan: the k nearest passages from an ordinary
// beam search of width max(ef, k), then one hit per parent. It returns
// fewer than k parents when parents have several passages near the query.
func (x *Index) SearchNaive(q []float32, k, ef int) ([]Hit, engine.SearchStats, error) {
	qq, err := x.prepare(q, k)
	if err != nil {
		return nil, engine.SearchStats{}, err
	}
	if x.vectors.N == 0 {
		return nil, engine.SearchStats{}, nil
	}
	ef = max(ef, k)
	w := &walker{x: x, q: qq}
	st := x.getState()
	defer x.pool.Put(st)
	p := &naivePolicy{g: x.graph, ef: ef}
	ep := w.descend()
	w.start(st, ep)
	p.res.Push(ep)
	p.setBound(&st.walk)
	w.run(st, p)
	passages := p.res.Sorted(nil)
	if len(passages) > k {
		passages = passages[:k]
	}
	seen := map[uint32]bool{}
	var out []Hit
	for _, pa := range passages {
		par := x.parents[pa.ID]
		if !seen[par] {
			seen[par] = true
			out = append(out, Hit{Parent: par, Passage: pa.ID, Dist: pa.Dist})
		}
	}
	return out, w.st, nil
}

// ExactParents is the truth: every passage scored, the best per parent, the
// k nearest parents.
func (x *Index) ExactParents(q []float32, k int) ([]Hit, error) {
	qq, err := x.prepare(q, k)
	if err != nil {
		return nil, err
	}
	best := map[uint32]Hit{}
	for i := 0; i < x.vectors.N; i++ {
		d := x.dist(qq, x.vectors.Row(i))
		p := x.parents[i]
		if h, ok := best[p]; !ok || d < h.Dist {
			best[p] = Hit{Parent: p, Passage: engine.ID(i), Dist: d}
		}
	}
	out := make([]Hit, 0, len(best))
	for _, h := range best {
		out = append(out, h)
	}
	out = sortHits(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}
