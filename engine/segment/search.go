package segment

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/internal/cputime"
)

// Fetch names what a search returns beside distances (E17: where the ids
// come from, and what reading them costs).
type Fetch uint8

const (
	// IDsFromColumn reads each hit's key from the id column (doc values):
	// 8 bytes per hit, nothing decompressed.
	IDsFromColumn Fetch = iota
	// IDsFromStored reads each hit's key from its stored fields, as
	// Elasticsearch reads _id: the hit's whole compressed block is
	// decompressed.
	IDsFromStored
	// Source reads keys from the column and each hit's stored source.
	Source
	// Lazy returns keys from the column and loads sources on demand
	// (Collection.Source).
	Lazy
)

func (f Fetch) String() string {
	switch f {
	case IDsFromColumn:
		return "ids from column"
	case IDsFromStored:
		return "ids from stored fields"
	case Source:
		return "ids + source"
	case Lazy:
		return "lazy source"
	}
	return fmt.Sprintf("Fetch(%d)", f)
}

// Mode names how the segments of one search are visited.
type Mode uint8

const (
	// Sequential searches the segments one after the other on the caller's
	// goroutine (Lucene without an executor).
	Sequential Mode = iota
	// Concurrent spreads the segments over Config.SearchWorkers
	// goroutines (Lucene's IndexSearcher with an executor, one slice per
	// segment).
	Concurrent
)

// Options are one search's parameters.
type Options struct {
	K int // results wanted (≥ 1)
	// Ef is the per-segment beam, resolved by the caller (lab/profile's
	// Plan.Ef: a store's ef_search, EF_RUNTIME, hnsw_ef or
	// num_candidates after its rules). It must be 0 or at least the
	// candidates a segment gathers (K, or Rescore on a quantized
	// collection): the engine raises nothing. 0 is the engine's own
	// neutral default, the narrowest beam that holds them.
	Ef int
	// Mode is sequential or concurrent.
	Mode Mode
	// SharedBound shares one top-ef bound across the segments (Lucene
	// 9.10–10.2's default, MultiLeafKnnCollector): a segment's graph
	// search stops expanding candidates that cannot enter the global top
	// ef (see engine.Request.Bound).
	SharedBound bool
	// Optimistic collects as Lucene 10.3+ does (its default): each
	// segment is searched for its pro-rata share of ef, then the
	// segments whose every hit made the merged top are searched again,
	// seeded with their hits, for ef (see [Collection.Search]). It
	// excludes SharedBound.
	Optimistic bool
	// Patience ends each HNSW segment's layer-0 walk early, as
	// Elasticsearch 9.3+ does by default (index.dense_vector
	// .hnsw_enable_early_termination: every collector, both passes of
	// the optimistic collection and the filtered walks, wrapped in
	// AdaptiveHnswQueueSaturationCollector; see engine.Request
	// .Patience). It excludes SharedBound.
	Patience bool
	// Fetch is what comes back with each hit.
	Fetch Fetch
	// Rescore is k' on a quantized collection (Config.Encoding not
	// Float): each segment gathers k' candidates over the codes, the k'
	// nearest of them all are rescored with float32 vectors and the K
	// nearest returned. The caller resolves it (Elasticsearch's
	// rescore_vector k' = min(⌈k·oversample⌉, 10000) is lab/profile's
	// Plan.Rescore); the engine holds no store's default. 0 rescores
	// nothing (the codes' distances are returned); otherwise it must be
	// at least K. A Float collection has nothing to rescore and ignores it.
	Rescore int
	// RescoreEach rescores per segment instead (Qdrant's
	// postprocess_search_result, qdrant/qdrant v1.19.0
	// lib/segment/src/index/vector_index_search_common.rs, run by each
	// segment's search): every quantized segment rescores all k' of its
	// own candidates with its float32 vectors and keeps its K nearest,
	// and the segments' lists are merged by those exact distances.
	// Without it the k' nearest of all segments by their codes are
	// rescored (Elasticsearch's RescoreKnnVectorQuery).
	RescoreEach bool
	// Visit is the fraction of an IVF segment's lists a search probes
	// (DiskBBQ's visit_percentage / 100), at least one list (default
	// 0.05).
	Visit float64
	// Filter, when set, restricts the hits to the live documents whose
	// key it accepts. Each segment then builds its accepted set and is
	// searched as Lucene 10.3's AbstractKnnVectorQuery.getLeafResults
	// does (see [Collection.Search]): exactly when few documents match,
	// else through its graph (hnsw.Lucene) with the visit
	// limit the match count sets, falling back to an exact search of the
	// matches when the walk is cut short. HNSW and flat segments take a
	// filter; IVF segments do not.
	Filter func(key uint64) bool
	// FilteredSearchThreshold is Lucene's KnnSearchStrategy.Hnsw
	// threshold for filtered graph walks, a percentage (see
	// hnsw.Lucene): Elasticsearch's
	// index.dense_vector.hnsw_filter_heuristic "acorn" is 60 (the default
	// for indices created on 9.1+), "fanout" 0.
	FilteredSearchThreshold int
	// SegmentCPU times each segment's search on the CPU clock of the
	// thread that ran it (Stats.SegmentCPU). The time a segment took on
	// its thread does not count the time another job held the core, so
	// the figures say what searching the segments concurrently could
	// gain on idle cores even when the machine is busy: wall time there
	// measures the scheduler as much as the search. The searching
	// goroutines hold their OS threads while it is set. Linux only;
	// elsewhere Stats.SegmentCPU stays nil.
	SegmentCPU bool
}

// Hit is one result.
type Hit struct {
	Key    uint64
	Dist   float32
	Source []byte // with Fetch == Source
	seg    *segment
	local  uint32
}

// Stats count one search's work.
type Stats struct {
	engine.SearchStats
	Segments     int   // segments searched
	Exact        int   // of which scanned exactly (Flat: Qdrant's plain segments)
	Rescored     int   // candidates rescored with float32 vectors (quantized segments)
	Decompressed int64 // stored-field bytes decompressed
	Blocks       int   // stored-field blocks decompressed
	ColumnBytes  int64 // id-column bytes read
	// With Options.Filter, how the segments were searched (a segment
	// re-entered by the optimistic collection counts once per pass):
	// Exhaustive by scoring every match in the reader (few matches for
	// the graph), FilteredWalk by the filtered graph searcher, Graph by
	// the plain graph walk, ExactFallback by AbstractKnnVectorQuery's
	// exact search (matches ≤ the leaf's k, or a walk cut short).
	Exhaustive, FilteredWalk, Graph, ExactFallback int
	// SegmentCPU is, with Options.SegmentCPU, the thread CPU time each
	// segment's search took (both passes of an optimistic collection),
	// one entry per searchable segment in search order; nil otherwise.
	SegmentCPU []time.Duration
}

type segResult struct {
	res []engine.Result
	st  engine.SearchStats
	err error
}

// Search returns the K nearest live documents over every searchable
// segment, with each segment searched at breadth Ef.
func (c *Collection) Search(q []float32, o Options) ([]Hit, Stats, error) {
	var st Stats
	if err := engine.CheckK(o.K); err != nil {
		return nil, st, fmt.Errorf("segment: search: %w", err)
	}
	if o.Ef < 0 {
		return nil, st, fmt.Errorf("segment: search: %w", &engine.ArgError{Field: "ef", Value: o.Ef, Want: "≥ 0"})
	}
	if err := engine.CheckVector(q, c.cfg.Dim, c.cfg.Metric); err != nil {
		return nil, st, fmt.Errorf("segment: search: %w", err)
	}
	c.mu.RLock()
	snap := c.snap
	c.mu.RUnlock()
	if len(snap) == 0 {
		return nil, st, fmt.Errorf("segment: search: %w", engine.ErrEmpty)
	}
	// A quantized collection gathers k' = Rescore candidates per segment
	// and rescores the best k' of all of them; the beam is the caller's,
	// at least the candidates gathered (0: exactly them).
	if o.Rescore < 0 || o.Rescore > 0 && o.Rescore < o.K {
		return nil, st, fmt.Errorf("segment: search: %w", &engine.ArgError{Field: "rescore", Value: o.Rescore, Want: fmt.Sprintf("0 or ≥ k (%d)", o.K)})
	}
	kk := o.K
	rescore := c.cfg.Encoding != Float && o.Rescore > 0
	if rescore {
		kk = o.Rescore
	}
	ef := o.Ef
	if ef == 0 {
		ef = kk
	}
	if ef < kk {
		return nil, st, fmt.Errorf("segment: search: %w", &engine.ArgError{Field: "ef", Value: ef,
			Want: fmt.Sprintf("0 or ≥ the %d candidates a segment gathers (k, or rescore on a quantized collection)", kk)})
	}
	visit := o.Visit
	if visit == 0 {
		visit = 0.05
	}
	if !(visit > 0 && visit <= 1) {
		return nil, st, fmt.Errorf("segment: search: %w", &engine.ArgError{Field: "visit", Value: o.Visit, Want: "in (0, 1] (0: 0.05)"})
	}
	if o.FilteredSearchThreshold < 0 || o.FilteredSearchThreshold > 100 {
		return nil, st, fmt.Errorf("segment: search: %w", &engine.ArgError{Field: "filtered search threshold", Value: o.FilteredSearchThreshold, Want: "a percentage in 0…100"})
	}
	if o.Filter != nil && o.SharedBound {
		return nil, st, fmt.Errorf("segment: search: a filter with the shared bound is not emulated: %w", engine.ErrInvalidArgument)
	}
	if o.SharedBound && o.Patience {
		return nil, st, fmt.Errorf("segment: search: patience with the shared bound is not emulated: %w", engine.ErrInvalidArgument)
	}
	if o.SharedBound && o.Optimistic {
		return nil, st, fmt.Errorf("segment: search: SharedBound and Optimistic are two collections, pick one: %w", engine.ErrInvalidArgument)
	}
	var bound *engine.Bound
	if o.SharedBound {
		bound = engine.NewBound(ef)
	}
	// Optimistic collection (Lucene 10.3+ AbstractKnnVectorQuery.rewrite;
	// see optimisticK): a first pass gives every segment its share of ef.
	var leafK []int
	if o.Optimistic && len(snap) > 1 {
		leafK = optimisticK(snap, ef)
	}
	out := make([]segResult, len(snap))
	var seeds [][]engine.ID // the re-entry pass: a segment's seeds, nil to skip it
	var paths []filterPaths // with a filter: how each segment was searched, per pass
	if o.Filter != nil {
		paths = make([]filterPaths, len(snap))
	}
	one := func(i int) {
		s := snap[i]
		if o.Filter != nil {
			// Lucene's perLeafTopK: the leaf's share of ef (ef itself
			// for one segment); the collector is that size on the first
			// pass and ef on the re-entry.
			perLeaf, size := ef, ef
			if leafK != nil {
				perLeaf = leafK[i]
				if seeds == nil {
					size = perLeaf
				}
			}
			var seed []engine.ID
			if seeds != nil {
				if seeds[i] == nil {
					return // tapped out: its first-pass hits stand
				}
				seed = seeds[i]
			}
			res, sst, err := s.filtered(q, o, size, perLeaf, ef, seed, &paths[i])
			if seeds != nil {
				sst.Add(out[i].st)
			}
			out[i] = segResult{res, sst, err}
			return
		}
		r := engine.Request{K: kk, Breadth: ef, Bound: bound, Patience: o.Patience}
		if leafK != nil && seeds == nil {
			r.K, r.Breadth = leafK[i], leafK[i]
		}
		if s.kind == IVF {
			r.Breadth = max(1, int(math.Ceil(visit*float64(s.lists))))
		}
		switch {
		case s.mutable:
			r.Filter = limit{s.n, s.live}
		case s.live != nil:
			r.Filter = s.live
		}
		if seeds != nil {
			if seeds[i] == nil {
				return // tapped out: its first-pass hits stand
			}
			r.K = ef // the re-entry collector is TopKnnCollector(k), k = ef
			r.Seeds = seeds[i]
			res, sst, err := s.index.Query(q, r)
			sst.Add(out[i].st) // both passes' work
			out[i] = segResult{res, sst, err}
			return
		}
		res, sst, err := s.index.Query(q, r)
		out[i] = segResult{res, sst, err}
	}
	if _, ok := cputime.Thread(); o.SegmentCPU && ok {
		st.SegmentCPU = make([]time.Duration, len(snap))
	}
	c.runSegments(snap, o, one, st.SegmentCPU)
	if leafK != nil {
		// Merge the first pass to kk (Elasticsearch's ESKnnFloatVectorQuery
		// .mergeLeafResults: TopDocs.merge(kParam), kParam the k it
		// returns, k' when rescoring) and re-enter every segment whose
		// worst hit is at least as near as the merged kk-th.
		if seeds = reentry(out, kk); seeds != nil {
			c.runSegments(snap, o, one, st.SegmentCPU)
		}
	}
	// Merge: ids into one space by encoding (segment position, local id).
	n := 0
	for _, r := range out {
		n += len(r.res)
	}
	all := make([]Hit, 0, n)
	for _, p := range paths {
		st.Exhaustive += p.exhaustive
		st.FilteredWalk += p.filteredWalk
		st.Graph += p.graph
		st.ExactFallback += p.exact
	}
	for i, r := range out {
		st.SearchStats.Add(r.st)
		if r.err != nil {
			return nil, st, fmt.Errorf("segment %d: search: %w", snap[i].id, r.err)
		}
		st.Segments++
		if snap[i].kind == Flat {
			st.Exact++
		}
		for _, h := range r.res {
			all = append(all, Hit{Dist: h.Dist, seg: snap[i], local: uint32(h.ID)})
		}
	}
	if rescore && o.RescoreEach {
		// Each segment's k' rescored, its K nearest kept, then merged.
		kept := all[:0:0]
		for lo := 0; lo < len(all); {
			hi := lo + 1
			for hi < len(all) && all[hi].seg == all[lo].seg {
				hi++
			}
			one := all[lo:hi]
			sortHits(one)
			var err error
			if one, err = c.rescore(one, q, len(one), &st); err != nil {
				return nil, st, err
			}
			kept = append(kept, one[:min(len(one), o.K)]...)
			lo = hi
		}
		all = kept
		rescore = false
	}
	sortHits(all)
	if rescore {
		var err error
		if all, err = c.rescore(all, q, kk, &st); err != nil {
			return nil, st, err
		}
	}
	if len(all) > o.K {
		all = all[:o.K]
	}
	if err := c.fetch(all, o.Fetch, &st); err != nil {
		return nil, st, err
	}
	return all, st, nil
}

// filterPaths counts how one segment's filtered searches went.
type filterPaths struct{ exhaustive, filteredWalk, graph, exact int }

// filtered searches segment s under o.Filter as Lucene 10.3's
// AbstractKnnVectorQuery.getLeafResults does (apache/lucene 10.3,
// lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java):
// the accepted set is the live documents the filter accepts and its
// cardinality the cost; no match gives no hits; cost ≤ perLeafTopK
// gives an exact search; otherwise the graph is searched with a
// collector of size k and the visit limit cost + 1, and a walk cut short
// by the limit, or one that found fewer than perLeafTopK hits, is
// replaced by an exact search. Lucene's exact search keeps
// min(ef, cost) hits: ef is the query's k (num_candidates), not the
// leaf's share.
func (s *segment) filtered(q []float32, o Options, k, perLeaf, ef int, seeds []engine.ID, p *filterPaths) ([]engine.Result, engine.SearchStats, error) {
	var st engine.SearchStats
	if s.kind == IVF {
		return nil, st, fmt.Errorf("filtered search over an IVF segment is not emulated: %w", engine.ErrInvalidArgument)
	}
	size := max(s.index.Len(), s.n)
	accept := engine.NewBitset(size)
	cost := 0
	for i := 0; i < s.n; i++ {
		id := engine.ID(i)
		if (s.live == nil || s.live.Allowed(id)) && o.Filter(s.keys[i]) {
			accept.Set(id)
			cost++
		}
	}
	if cost == 0 {
		return nil, st, nil
	}
	// A flat segment's query is exact already; a graph's exact search
	// and its walk are Lucene's (hnsw.Lucene).
	graph := s.kind == HNSW
	exact := func() ([]engine.Result, engine.SearchStats, error) {
		p.exact++
		r := engine.Request{K: min(ef, cost), Filter: accept}
		if graph {
			r.Params = &hnsw.Lucene{Exact: true, Accepted: cost}
		}
		res, est, err := s.index.Query(q, r)
		st.Add(est)
		return res, st, err
	}
	if cost <= perLeaf || !graph {
		return exact()
	}
	lp := &hnsw.Lucene{Accepted: cost, VisitLimit: cost + 1, FilteredSearchThreshold: o.FilteredSearchThreshold}
	res, lst, err := s.index.Query(q, engine.Request{K: k, Filter: accept, Seeds: seeds, Patience: o.Patience, Params: lp})
	st.Add(lst)
	if err != nil {
		return nil, st, err
	}
	switch lp.Path {
	case hnsw.LuceneExhaustive:
		p.exhaustive++
	case hnsw.LuceneFilteredGraph:
		p.filteredWalk++
	default:
		p.graph++
	}
	if lp.EarlyTerminated || len(res) < perLeaf {
		return exact()
	}
	return res, st, nil
}

// lambda is AbstractKnnVectorQuery.LAMBDA (apache/lucene 10.3+), the
// standard deviations of slack in a segment's pro-rata share.
const lambda = 16

// optimisticK returns each segment's first-pass k under Lucene 10.3+'s
// optimistic collection (apache/lucene
// lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java,
// perLeafTopKCalculation, in the 10.3 and 10.4 sources read; Elasticsearch
// 9.2+ ships it, docs/release-notes/index.md 9.2.0: "optimistic-with-
// checking KNN Query execution strategy in place of cross-thread global
// queue min-score checking"): with p the segment's share of the
// documents (maxDoc over the reader's maxDoc, deleted ones counted),
//
//	k_leaf = (int) max(1, k·p + 16·√(k·p·(1−p)))
//
// in Java's arithmetic: k·p and k·p·(1−p) in float32, the square root
// and the sum in float64, truncated. Lucene's k is ef here: Elasticsearch
// passes num_candidates as the Lucene query's k (ESKnnFloatVectorQuery).
// k_leaf may exceed k (k = 15, p = 0.1: 20).
func optimisticK(snap []*segment, k int) []int {
	total := 0
	for _, s := range snap {
		total += s.n
	}
	out := make([]int, len(snap))
	for i, s := range snap {
		p := float32(s.n) / float32(total)
		kp := float32(k) * p
		v := float64(kp) + lambda*math.Sqrt(float64(kp*(1-p)))
		out[i] = int(max(1, v))
	}
	return out
}

// reentry returns the seeds of Lucene's second pass, or nil when there is
// none: the first pass's hits merged to kk must be non-empty and come
// from more than one segment's search (perLeafResults.size() > 1); a
// segment is re-entered, seeded with all its first-pass hits, when it
// has hits and its worst is no further than the merged kk-th
// (AbstractKnnVectorQuery.rewrite: perLeaf.scoreDocs[last].score ≥
// minTopKScore); the others keep their first-pass hits. The re-entry's
// hits replace the segment's first-pass hits.
func reentry(out []segResult, kk int) [][]engine.ID {
	var ds []float32
	for _, r := range out {
		if r.err != nil {
			return nil
		}
		for _, h := range r.res {
			ds = append(ds, h.Dist)
		}
	}
	if len(ds) == 0 || len(out) < 2 {
		return nil
	}
	slices.Sort(ds)
	worst := ds[min(kk, len(ds))-1] // the merged top-kk's last
	seeds := make([][]engine.ID, len(out))
	some := false
	for i, r := range out {
		if n := len(r.res); n > 0 && r.res[n-1].Dist <= worst {
			ids := make([]engine.ID, n)
			for j, h := range r.res {
				ids[j] = h.ID
			}
			seeds[i], some = ids, true
		}
	}
	if !some {
		return nil
	}
	return seeds
}

// runSegments calls one for every segment of snap, on the caller's
// goroutine or spread over the search workers (o.Mode). With cpu (one
// entry per segment) it adds each call's thread CPU time to its entry;
// each entry is written by the one worker that ran that segment.
func (c *Collection) runSegments(snap []*segment, o Options, one func(int), cpu []time.Duration) {
	if cpu != nil {
		inner := one
		one = func(i int) {
			t0, ok0 := cputime.Thread()
			inner(i)
			if t1, ok1 := cputime.Thread(); ok0 && ok1 {
				cpu[i] += t1 - t0
			}
		}
	}
	// hold pins a worker to its OS thread while segments are timed, so
	// that the thread clock read before and after a segment is one
	// thread's.
	hold := func() func() {
		if cpu == nil {
			return func() {}
		}
		runtime.LockOSThread()
		return runtime.UnlockOSThread
	}
	if o.Mode == Concurrent && len(snap) > 1 && c.cfg.SearchWorkers > 1 {
		// Workers take the next segment from a shared counter, and the
		// caller is one of them: no hand-off through a channel, whose
		// every send parks a goroutine behind a busy one (measured: 1.24×
		// with a feeding channel, against 2.2× for two clients).
		var next atomic.Int64
		run := func() {
			defer hold()()
			for i := int(next.Add(1) - 1); i < len(snap); i = int(next.Add(1) - 1) {
				one(i)
			}
		}
		var wg sync.WaitGroup
		for w := 1; w < min(c.cfg.SearchWorkers, len(snap)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run()
			}()
		}
		run()
		wg.Wait()
	} else {
		defer hold()()
		for i := range snap {
			one(i)
		}
	}
}

// rescore replaces the codes' distances of the best kk hits with float32
// distances and sorts them again (RescoreKnnVectorQuery in
// Elasticsearch: the top k' by quantized score, rescored exactly).
func (c *Collection) rescore(all []Hit, q []float32, kk int, st *Stats) ([]Hit, error) {
	if len(all) > kk {
		all = all[:kk]
	}
	var prep []float32
	for i := range all {
		h := &all[i]
		if h.seg.codes == nil {
			continue // a float segment's distance is exact already
		}
		g := h.seg.graph
		if g == nil {
			return nil, fmt.Errorf("segment %d: rescore: a quantized segment without a graph", h.seg.id)
		}
		if prep == nil {
			var err error
			if prep, err = g.PrepareQuery(nil, q); err != nil {
				return nil, fmt.Errorf("segment %d: rescore: %w", h.seg.id, err)
			}
		}
		h.Dist = g.QueryDistance(prep, engine.ID(h.local))
		st.DistComps++
		st.Rescored++
	}
	sortHits(all)
	return all, nil
}

// sortHits orders hits nearest first, ties by segment id then local id,
// so that the merge of the per-segment lists is deterministic.
func sortHits(hs []Hit) {
	slices.SortFunc(hs, func(a, b Hit) int {
		switch {
		case a.Dist < b.Dist:
			return -1
		case a.Dist > b.Dist:
			return 1
		case a.seg.id != b.seg.id:
			return cmp.Compare(a.seg.id, b.seg.id)
		}
		return cmp.Compare(a.local, b.local)
	})
}

func (c *Collection) fetch(hs []Hit, f Fetch, st *Stats) error {
	if f == IDsFromColumn || f == Lazy {
		// The id column: one 8-byte load per hit, nothing to sort or
		// decompress (and nothing allocated, so a search that only wants
		// ids puts no pressure on the collector).
		for i := range hs {
			hs[i].Key = hs[i].seg.keys[hs[i].local]
		}
		st.ColumnBytes += 8 * int64(len(hs))
		return nil
	}
	readers := map[*segment]*blockReader{}
	rd := func(s *segment) *blockReader {
		r := readers[s]
		if r == nil {
			r = s.stored.reader()
			readers[s] = r
		}
		return r
	}
	// Fetch in (segment, id) order, as Elasticsearch's fetch phase sorts
	// the hits by doc id, so that hits sharing a stored-fields block share
	// its decompression.
	order := make([]int, len(hs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(hs[a].seg.id, hs[b].seg.id); c != 0 {
			return c
		}
		return cmp.Compare(hs[a].local, hs[b].local)
	})
	for _, i := range order {
		h := &hs[i]
		switch f {
		case IDsFromColumn, Lazy:
			h.Key = h.seg.keys[h.local]
			st.ColumnBytes += 8
		case IDsFromStored, Source:
			if h.seg.mutable {
				// The head's fields are still in RAM, uncompressed.
				h.Key = h.seg.keys[h.local]
				if f == Source {
					h.Source = append([]byte(nil), h.seg.srcs[h.local]...)
				}
				continue
			}
			key, body, err := rd(h.seg).record(h.local)
			if err != nil {
				return fmt.Errorf("segment %d: fetch: %w", h.seg.id, err)
			}
			h.Key = key
			if f == Source {
				h.Source = append([]byte(nil), body...)
			}
		default:
			return fmt.Errorf("segment: unknown fetch %d: %w", f, engine.ErrInvalidArgument)
		}
	}
	for _, r := range readers {
		st.Decompressed += r.Decompressed
		st.Blocks += r.Blocks
	}
	return nil
}

// Source loads a hit's stored source (for hits of a Lazy search) and
// reports the bytes decompressed to read it.
func (c *Collection) Source(h Hit) ([]byte, int64, error) {
	if h.seg == nil {
		return nil, 0, fmt.Errorf("segment: hit has no segment (not from Search): %w", engine.ErrInvalidArgument)
	}
	if h.seg.mutable {
		return append([]byte(nil), h.seg.srcs[h.local]...), 0, nil
	}
	r := h.seg.stored.reader()
	_, body, err := r.record(h.local)
	if err != nil {
		return nil, r.Decompressed, fmt.Errorf("segment %d: source: %w", h.seg.id, err)
	}
	return append([]byte(nil), body...), r.Decompressed, nil
}

// Get returns the vector and source of the live document key.
func (c *Collection) Get(key uint64) ([]float32, []byte, error) {
	c.mu.RLock()
	l, ok := c.where[key]
	var s *segment
	for _, x := range c.snap {
		if x.id == l.seg {
			s = x
		}
	}
	c.mu.RUnlock()
	if !ok || s == nil {
		return nil, nil, fmt.Errorf("segment: key %d is not searchable: %w", key, engine.ErrNotFound)
	}
	if s.mutable {
		if int(l.local) >= s.n {
			return nil, nil, fmt.Errorf("segment: key %d is not searchable yet: %w", key, engine.ErrNotFound)
		}
		return append([]float32(nil), s.vecs.Row(int(l.local))...), append([]byte(nil), s.srcs[l.local]...), nil
	}
	_, body, err := s.stored.reader().record(l.local)
	if err != nil {
		return nil, nil, fmt.Errorf("segment %d: get: %w", s.id, err)
	}
	return append([]float32(nil), s.vecs.Row(int(l.local))...), append([]byte(nil), body...), nil
}
