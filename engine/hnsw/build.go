package hnsw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/vec"
)

// Add inserts v under the caller key. On error nothing is inserted.
func (ix *Index) Add(key uint64, v []float32) error {
	return ix.add([]uint64{key}, func(int) []float32 { return v }, 1)
}

// AddBatch inserts row i of vs under keys[i], building with Config.Workers
// goroutines. The whole batch is validated first: if any row or key is bad
// nothing is inserted and the error names the rows. It consults
// engine.Context(): see AddBatchContext for what an interrupt leaves.
func (ix *Index) AddBatch(keys []uint64, vs *vec.Matrix) error {
	return ix.AddBatchContext(engine.Context(), keys, vs)
}

// AddBatchInPlace is AddBatch for an empty index that takes vs's storage
// as its vector slab instead of copying it, normalising the rows in place
// under Cosine: a build from rows the caller has gathered for it alone (a
// segment merge's) holds them once instead of twice while the graph is
// built. vs must be dense (Stride = Dim) and is the index's afterwards:
// the caller reads it only through the index.
func (ix *Index) AddBatchInPlace(keys []uint64, vs *vec.Matrix) error {
	if err := ix.checkShape(keys, vs); err != nil {
		return err
	}
	ix.mu.Lock()
	if n := len(ix.keys); n > 0 || vs.Stride != vs.Dim {
		ix.mu.Unlock()
		return fmt.Errorf("hnsw: AddBatchInPlace on an index of %d vectors with a matrix of stride %d for %d dimensions (want an empty index and a dense matrix): %w", n, vs.Stride, vs.Dim, engine.ErrInvalidArgument)
	}
	ix.data = vs.Data[: 0 : vs.N*vs.Dim]
	ix.mu.Unlock()
	err := ix.AddBatch(keys, vs)
	if err != nil {
		ix.mu.Lock()
		if len(ix.keys) == 0 {
			ix.data = nil // nothing added: the caller's storage is not kept
		}
		ix.mu.Unlock()
	}
	return err
}

// checkShape checks AddBatch's arguments before any row is looked at.
func (ix *Index) checkShape(keys []uint64, vs *vec.Matrix) error {
	if vs == nil {
		return fmt.Errorf("hnsw: AddBatch with a nil matrix: %w", engine.ErrInvalidArgument)
	}
	if len(keys) != vs.N {
		return fmt.Errorf("hnsw: AddBatch with %d keys for %d vectors: %w", len(keys), vs.N, engine.ErrInvalidArgument)
	}
	if vs.N > 0 && vs.Dim != ix.dim {
		return fmt.Errorf("hnsw: AddBatch matrix has %d dimensions, index has %d: %w", vs.Dim, ix.dim, engine.ErrDimension)
	}
	if vs.N > 0 && (vs.Stride < vs.Dim || len(vs.Data) < (vs.N-1)*vs.Stride+vs.Dim) {
		return fmt.Errorf("hnsw: AddBatch matrix of %d×%d with stride %d holds only %d floats: %w", vs.N, vs.Dim, vs.Stride, len(vs.Data), engine.ErrInvalidArgument)
	}
	return nil
}

func (ix *Index) add(keys []uint64, row func(int) []float32, workers int) error {
	n := len(keys)
	if n == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()

	// 1. Validate everything before touching the index.
	if err := ix.checkLocked(keys, row); err != nil {
		return err
	}

	// 2. Grow the storage: vectors, keys, levels, empty link lists.
	first := len(ix.keys)
	old := ix.snapshotLens()
	if room := n * ix.dim; cap(ix.data)-len(ix.data) >= room {
		// Reserved room (Reserve, AddBatchInPlace): every row is
		// copied over below, so it is not cleared first (in place, a
		// clear would erase the rows themselves).
		ix.data = ix.data[:len(ix.data)+room]
	} else {
		ix.data = append(ix.data, make([]float32, room)...)
	}
	for i := 0; i < n; i++ {
		dst := ix.data[(first+i)*ix.dim : (first+i+1)*ix.dim]
		copy(dst, row(i))
		if ix.metric == engine.Cosine {
			normalize(dst)
		}
	}
	ix.keys = append(ix.keys, keys...)
	ix.links0 = append(ix.links0, make([]engine.ID, n*ix.stride0)...)
	for i := 0; i < n; i++ {
		lv := ix.randomLevel()
		ix.levels = append(ix.levels, uint8(lv))
		off := uint32(0)
		if lv > 0 {
			if len(ix.upper)+lv*ix.strideU > math.MaxUint32 {
				ix.rollback(old)
				return fmt.Errorf("hnsw: upper layers exceed 2³² slots: %w", engine.ErrInvalidArgument)
			}
			off = uint32(len(ix.upper))
			ix.upper = append(ix.upper, make([]engine.ID, lv*ix.strideU)...)
		}
		ix.upperOff = append(ix.upperOff, off)
	}
	if ix.codes != nil {
		ix.codes.Reserve(first + n)
		for i := 0; i < n; i++ {
			id := engine.ID(first + i)
			if err := ix.codes.Set(id, ix.Vector(id)); err != nil {
				ix.rollback(old)
				return fmt.Errorf("hnsw: encoding row %d (key %d): %w", i, keys[i], err)
			}
		}
	}
	for i, k := range keys {
		ix.ids[k] = engine.ID(first + i)
	}

	// 3. Link the new nodes into the graph.
	workers = min(workers, n)
	if workers <= 1 || first+n < 2*workers {
		b := ix.newBuilder()
		for i := 0; i < n; i++ {
			b.insert(engine.ID(first + i))
		}
		return nil
	}
	// The first node of an empty index becomes the entry point before the
	// goroutines start, so every insert has somewhere to begin.
	next := atomic.Int64{}
	next.Store(int64(first))
	if first == 0 {
		ix.newBuilder().insert(0)
		next.Store(1)
	}
	ix.concurrent = true
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := ix.newBuilder()
			for {
				id := next.Add(1) - 1
				if id >= int64(first+n) {
					return
				}
				b.insert(engine.ID(id))
			}
		}()
	}
	wg.Wait()
	ix.concurrent = false
	return nil
}

// checkLocked validates a batch against the index (caller holds mu):
// every bad row or key is reported at once.
func (ix *Index) checkLocked(keys []uint64, row func(int) []float32) error {
	n := len(keys)
	var errs errList
	seen := make(map[uint64]int, n)
	for i, k := range keys {
		if err := engine.CheckVector(row(i), ix.dim, ix.metric); err != nil {
			errs.add(fmt.Errorf("hnsw: row %d (key %d): %w", i, k, err))
		}
		if _, dup := ix.ids[k]; dup {
			errs.add(fmt.Errorf("hnsw: row %d: key %d is already in the index: %w", i, k, engine.ErrDuplicateID))
		} else if j, dup := seen[k]; dup {
			errs.add(fmt.Errorf("hnsw: rows %d and %d both have key %d: %w", j, i, k, engine.ErrDuplicateID))
		}
		seen[k] = i
	}
	if uint64(len(ix.keys))+uint64(n) > math.MaxUint32 {
		errs.add(fmt.Errorf("hnsw: more than 2³²-1 vectors: %w", engine.ErrInvalidArgument))
	}
	return errs.Err()
}

// lens records what step 2 of add changes, so a failure can undo it.
type lens struct {
	data, keys, links0, levels, upperOff, upper int
	pcg                                         rand.PCG
	minstd                                      minstd
}

func (ix *Index) snapshotLens() lens {
	return lens{len(ix.data), len(ix.keys), len(ix.links0), len(ix.levels), len(ix.upperOff), len(ix.upper), *ix.pcg, ix.minstd}
}

// rollback undoes step 2 of add (before any key was mapped).
func (ix *Index) rollback(l lens) {
	ix.data = ix.data[:l.data]
	ix.keys = ix.keys[:l.keys]
	ix.links0 = ix.links0[:l.links0]
	ix.levels = ix.levels[:l.levels]
	ix.upperOff = ix.upperOff[:l.upperOff]
	ix.upper = ix.upper[:l.upper]
	*ix.pcg, ix.minstd = l.pcg, l.minstd // the level sequence continues as if nothing was drawn
}

// randomLevel draws ⌊−ln(U)·mL⌋ (paper §4, Alg. 1 line 4).
func (ix *Index) randomLevel() int {
	var u float64
	if ix.cfg.Levels == MinstdLevels {
		u = ix.minstd.canonical() // [0, 1), as hnswlib
	} else {
		u = 1 - ix.rng.Float64() // (0, 1]
	}
	l := -math.Log(u) * ix.cfg.LevelMult
	if !(l < MaxLevels-1) { // also u = 0 → +Inf
		return MaxLevels - 1
	}
	return int(l)
}

// minstd is libstdc++'s minstd_rand0: x ← 16807·x mod (2³¹−1), the
// std::default_random_engine hnswlib draws levels from.
type minstd struct{ x uint32 }

const minstdM = 1<<31 - 1

// seed mirrors linear_congruential_engine::seed: s mod m, and 1 if that is 0.
func (g *minstd) seed(s uint64) {
	g.x = uint32(s % minstdM)
	if g.x == 0 {
		g.x = 1
	}
}

func (g *minstd) next() uint32 {
	g.x = uint32(uint64(g.x) * 16807 % minstdM)
	return g.x
}

// canonical mirrors std::generate_canonical<double, 53> over minstd_rand0
// (libstdc++ bits/random.tcc): two draws, each minus min() = 1, combined
// in base r = 2³¹−2, divided by r²; a result of 1 becomes the largest
// double below 1.
func (g *minstd) canonical() float64 {
	const r = float64(minstdM - 1)
	sum := float64(g.next()-1) + float64(g.next()-1)*r
	u := sum / (r * r)
	if u >= 1 {
		u = math.Nextafter(1, 0)
	}
	return u
}

// builder holds one inserting goroutine's buffers.
type builder struct {
	ix     *Index
	vis    *topk.Visited
	cand   topk.MinHeap
	res    topk.MaxHeap
	found  []engine.Result // W, nearest first
	sel    []engine.Result
	pool   []engine.Result
	prune  []engine.Result
	prune2 []engine.Result
	nbuf   []engine.ID
	ids    []engine.ID // unvisited neighbours of the node being expanded
	dists  []float32
	base   engine.ID // the node being inserted
	q      []float32 // its vector
}

func (ix *Index) newBuilder() *builder {
	return &builder{ix: ix, vis: topk.NewVisited(len(ix.keys)), nbuf: make([]engine.ID, 0, ix.m0+1),
		ids: make([]engine.ID, 0, ix.m0), dists: make([]float32, ix.m0)}
}

// dist is the distance of node id to the node being inserted.
func (b *builder) dist(id engine.ID) float32 {
	if b.ix.codes != nil {
		return b.ix.codes.Pair(b.base, id)
	}
	return b.ix.QueryDistance(b.q, id)
}

// neighbors copies node id's links on level into b.nbuf, under the node's
// lock when inserts run concurrently (distances are computed after it is
// released).
func (b *builder) neighbors(level int, id engine.ID) []engine.ID {
	ix := b.ix
	if ix.concurrent {
		mu := &ix.locks[id%lockStripes]
		mu.Lock()
		l := ix.list(level, id)
		b.nbuf = append(b.nbuf[:0], l[1:1+l[0]]...)
		mu.Unlock()
		return b.nbuf
	}
	l := ix.list(level, id)
	return l[1 : 1+l[0]]
}

// insert links node id (its vector, level and empty lists are in place):
// Malkov & Yashunin Alg. 1, with hnswlib's choices (hnswalg.h addPoint):
// the entry of each layer is the nearest neighbour selected on the layer
// above, and an insert that raises the top layer holds the entry lock.
func (b *builder) insert(id engine.ID) {
	ix := b.ix
	b.base, b.q = id, ix.Vector(id)
	level := int(ix.levels[id])

	ix.epMu.Lock()
	ep, top := ix.entry, ix.maxLevel
	if top < 0 {
		ix.entry, ix.maxLevel = id, level
		ix.epMu.Unlock()
		return
	}
	raise := level > top
	if !raise {
		ix.epMu.Unlock()
	}

	cur, curDist := ep, b.dist(ep)
	for l := top; l > level; l-- {
		cur, curDist = b.greedy(l, cur, curDist)
	}
	for l := min(level, top); l >= 0; l-- {
		b.searchLayer(l, cur, curDist, ix.cfg.efConstruction())
		degree := ix.m
		if l == 0 {
			degree = ix.cfg.NewNodeDegreeL0
		}
		sel := b.selectNeighbors(b.found, degree, &b.sel)
		if len(sel) == 0 {
			continue
		}
		// The new node's own list: nobody else writes it, but searches
		// of concurrent inserts may read it.
		ix.lockNode(id)
		lst := ix.list(l, id)
		for i, r := range sel {
			lst[1+i] = r.ID
		}
		lst[0] = engine.ID(len(sel))
		ix.unlockNode(id)
		for _, r := range sel {
			b.link(l, r.ID, id, r.Dist)
		}
		cur, curDist = sel[0].ID, sel[0].Dist
	}
	if raise {
		ix.entry, ix.maxLevel = id, level
		ix.epMu.Unlock()
	}
}

func (ix *Index) lockNode(id engine.ID) {
	if ix.concurrent {
		ix.locks[id%lockStripes].Lock()
	}
}

func (ix *Index) unlockNode(id engine.ID) {
	if ix.concurrent {
		ix.locks[id%lockStripes].Unlock()
	}
}

// greedy walks layer l from cur to a local minimum (ef = 1).
func (b *builder) greedy(l int, cur engine.ID, curDist float32) (engine.ID, float32) {
	for changed := true; changed; {
		changed = false
		for _, nb := range b.neighbors(l, cur) {
			if d := b.dist(nb); d < curDist {
				cur, curDist, changed = nb, d, true
			}
		}
	}
	return cur, curDist
}

// searchLayer is SEARCH-LAYER (Alg. 2) from one entry with beam ef; it
// leaves W in b.found, nearest first.
func (b *builder) searchLayer(l int, ep engine.ID, epDist float32, ef int) {
	ix := b.ix
	b.vis.Reset(len(ix.keys))
	b.cand.Reset()
	b.res.Reset()
	b.vis.Visit(ep)
	b.vis.Visit(b.base)
	b.cand.Push(engine.Result{ID: ep, Dist: epDist})
	b.res.Push(engine.Result{ID: ep, Dist: epDist})
	lower := epDist
	for b.cand.Len() > 0 {
		c := b.cand.Top()
		if c.Dist > lower && b.res.Len() >= ef {
			break
		}
		b.cand.Pop()
		ids := b.ids[:0]
		for _, nb := range b.neighbors(l, c.ID) {
			if !b.vis.Visit(nb) {
				ids = append(ids, nb)
			}
		}
		dists := b.dists[:len(ids)]
		if ix.codes != nil {
			for i, nb := range ids {
				dists[i] = ix.codes.Pair(b.base, nb)
			}
		} else {
			sp := ix.space()
			sp.Prefetch(ids)
			sp.Score(b.q, ids, dists)
		}
		for i, nb := range ids {
			d := dists[i]
			if b.res.Len() < ef || d < lower {
				b.cand.Push(engine.Result{ID: nb, Dist: d})
				b.res.PushBounded(engine.Result{ID: nb, Dist: d}, ef)
				lower = b.res.Top().Dist
			}
		}
	}
	b.found = b.res.Sorted(b.found[:0])
}

// selectNeighbors picks at most m of cands (nearest first) into *dst:
// Alg. 4 without extendCandidates (hnswlib getNeighborsByHeuristic2: fewer
// than m candidates are all kept; a candidate is dropped when it is
// strictly closer to a kept neighbour than to the base), optionally
// refilled from the pruned ones (keepPrunedConnections), or Alg. 3.
func (b *builder) selectNeighbors(cands []engine.Result, m int, dst *[]engine.Result) []engine.Result {
	out := (*dst)[:0]
	if len(cands) < m || b.ix.cfg.Selection == Simple {
		out = append(out, cands[:min(m, len(cands))]...)
		*dst = out
		return out
	}
	keep := b.ix.cfg.KeepPruned
	b.prune = b.prune[:0]
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		for _, r := range out {
			if b.ix.PairDistance(r.ID, c.ID) < c.Dist {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		} else if keep {
			b.prune = append(b.prune, c)
		}
	}
	if keep {
		for _, p := range b.prune {
			if len(out) >= m {
				break
			}
			out = append(out, p)
		}
	}
	*dst = out
	return out
}

// link adds the reverse link n → id on layer l (d = distance between them);
// a full list is re-selected over its links plus id with the cap as the
// budget (hnswlib mutuallyConnectNewElement). The node's lock is held
// throughout, as in hnswlib.
func (b *builder) link(l int, n, id engine.ID, d float32) {
	ix := b.ix
	capacity := ix.m
	if l == 0 {
		capacity = ix.m0
	}
	ix.lockNode(n)
	defer ix.unlockNode(n)
	lst := ix.list(l, n)
	cnt := int(lst[0])
	for _, x := range lst[1 : 1+cnt] {
		if x == id {
			return
		}
	}
	if cnt < capacity {
		lst[1+cnt] = id
		lst[0]++
		return
	}
	pool := append(b.pool[:0], engine.Result{ID: id, Dist: d})
	cur := lst[1 : 1+cnt]
	if ix.codes == nil {
		if cap(b.dists) < cnt {
			b.dists = make([]float32, cnt)
		}
		dists := b.dists[:cnt]
		sp := ix.space()
		sp.Score(ix.Vector(n), cur, dists)
		for i, x := range cur {
			pool = append(pool, engine.Result{ID: x, Dist: dists[i]})
		}
	} else {
		for _, x := range cur {
			pool = append(pool, engine.Result{ID: x, Dist: ix.codes.Pair(n, x)})
		}
	}
	sortResults(pool)
	b.pool = pool
	sel := b.selectNeighbors(pool, capacity, &b.prune2)
	for i, r := range sel {
		lst[1+i] = r.ID
	}
	clear(lst[1+len(sel):]) // unused slots are zero in memory and on disk
	lst[0] = engine.ID(len(sel))
}

// sortResults sorts by (Dist, ID) with an insertion sort (lists are short).
func sortResults(rs []engine.Result) {
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		j := i
		for ; j > 0 && (rs[j-1].Dist > r.Dist || rs[j-1].Dist == r.Dist && rs[j-1].ID > r.ID); j-- {
			rs[j] = rs[j-1]
		}
		rs[j] = r
	}
}
