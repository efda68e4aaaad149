package filtered

import (
	"math"
	"math/rand/v2"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// qdrant is Qdrant's per-segment dispatch for a filtered search
// (lib/segment/src/index/hnsw_index/hnsw/read_view/dispatch.rs):
//   - estimate the filter's cardinality (query_estimator.rs; exact with a
//     payload index, "unknown" {0, N/2, N} without);
//   - max < full_scan_threshold → plain search: score the matching set
//     (from the payload index, or by reading every payload without one);
//   - min > threshold → filtered graph search;
//   - otherwise sample random points (sample_estimation.rs) until an
//     Agresti–Coull interval (z = 2) scaled to N lies entirely on one side of
//     the threshold, or 1,000 samples; then compare the point estimate.
func (s *search) qdrant(k, ef int, p Params) []engine.Result {
	n := s.c.vectors.N
	thr := p.FullScanThreshold
	if s.c.graph == nil { // plain segment: no HNSW graph yet (dispatch.rs)
		return s.exact(k)
	}
	if s.f == nil {
		if n < thr {
			return s.exact(k)
		}
		s.st.Path = QdrantGraph
		return s.unfiltered(k, max(ef, k))
	}
	est := s.f.Estimate()
	useGraph := false
	switch {
	case est.Max < thr:
	case est.Min > thr:
		useGraph = true
	default:
		useGraph = s.sampleAbove(thr, p.SampleSeed)
	}
	if !useGraph {
		return s.exact(k)
	}
	s.st.Path = QdrantGraph
	return s.qdrantGraph(k, max(ef, k))
}

// sampleAbove reports whether the filter's cardinality is judged above thr
// by checking random points (Agresti–Coull interval with z = 2).
func (s *search) sampleAbove(thr int, seed uint64) bool {
	n := s.c.vectors.N
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	const z = 2.0
	hits, tries := 0, 0
	for tries < 1000 {
		tries++
		if s.f.Allowed(engine.ID(rng.IntN(n))) {
			hits++
		}
		nt := float64(tries) + z*z
		pt := (float64(hits) + z*z/2) / nt
		half := z * math.Sqrt(pt*(1-pt)/nt)
		lo, hi := (pt-half)*float64(n), (pt+half)*float64(n)
		if lo > float64(thr) {
			return true
		}
		if hi < float64(thr) {
			return false
		}
	}
	return float64(hits)/float64(tries)*float64(n) > float64(thr)
}

// qdrantGraph is Qdrant's filtered HNSW traversal (graph_layers.rs,
// point_scorer.rs): on every layer a neighbour that fails the filter is
// dropped before it is scored and is never expanded. Without a payload
// index every check reads the neighbour's stored payload (counted).
// Connectivity under a selective filter therefore depends on the graph;
// Qdrant adds payload-block edges for that ([BuildPayloadLinks],
// [Collection.WithPayloadLinks]: the walk then follows the merged graph).
func (s *search) qdrantGraph(k, ef int) []engine.Result {
	g := s.c.graph
	// Entry: Qdrant picks an entry point that passes the filter; walk the
	// entry point's upper-layer neighbourhood for one, else scan ids.
	ep := g.EntryPoint()
	if !s.allowed(ep) {
		found := false
		for l := g.MaxLevel(); l >= 1 && !found; l-- {
			for _, nb := range g.Neighbors(l, ep) {
				if s.allowed(nb) {
					ep, found = nb, true
					break
				}
			}
		}
		for id := 0; !found && id < s.c.vectors.N; id++ {
			if s.allowed(engine.ID(id)) {
				ep, found = engine.ID(id), true
			}
		}
		if !found {
			return nil
		}
	}
	cur := engine.Result{ID: ep, Dist: s.distance(ep)}
	top := g.MaxLevel()
	for l := top; l >= 1; l-- {
		for changed := true; changed; {
			changed = false
			s.st.Hops++
			for _, nb := range g.Neighbors(l, cur.ID) {
				if !s.allowed(nb) {
					continue
				}
				if d := s.distance(nb); d < cur.Dist {
					cur = engine.Result{ID: nb, Dist: d}
					changed = true
				}
			}
		}
	}
	s.visit(cur.ID)
	buf := make([]engine.ID, 0, 64)
	s.searchLayer0(g, []engine.Result{cur}, layerOpts{ef: ef, expand: func(id engine.ID) []engine.ID {
		buf = buf[:0]
		for _, nb := range g.Neighbors(0, id) {
			if !s.visited.Seen(nb) && s.allowed(nb) {
				buf = append(buf, nb)
			}
		}
		return buf
	}})
	rs := s.takeW()
	if len(rs) > k {
		rs = rs[:k]
	}
	return rs
}

// preferAdHocSearch is VecSim's decision tree for HNSW hybrid queries
// (RedisAI/VectorSimilarity src/VecSim/algorithms/hnsw/hnsw.h, a 20-leaf
// sklearn tree; restated): true → ADHOC_BF, false → BATCHES.
func preferAdHocSearch(indexSize, subset, k, dim, m int) bool {
	subset = min(subset, indexSize)
	r := 0.0
	if indexSize > 0 {
		r = float64(subset) / float64(indexSize)
	}
	if indexSize <= 30000 {
		if indexSize <= 5500 {
			return true
		}
		if r <= 0.17 {
			return true
		}
		if k <= 12 {
			if dim <= 55 {
				return false
			}
			return m > 10
		}
		return true
	}
	if r < 0.07 {
		if indexSize <= 750000 {
			return true
		}
		if k <= 7 {
			return false
		}
		return r <= 0.03
	}
	if dim <= 75 {
		return false
	}
	if k <= 12 {
		if r <= 0.21 {
			if m <= 57 {
				return indexSize <= 75000
			}
			return true
		}
		return false
	}
	if m <= 10 {
		return r <= 0.17
	}
	if indexSize <= 300000 {
		return true
	}
	return r <= 0.17
}

// redis is RediSearch's hybrid iterator (src/hybrid_reader.c). The child
// (filter) iterator's estimate feeds preferAdHocSearch; ADHOC_BF scores the
// matching set exactly; BATCHES pulls batches of n_left·(N/estimate)+1
// nearest vectors from an HNSW batch iterator (beam max(EF_RUNTIME, batch))
// and keeps the matching ones in a top-k heap until k are found or the
// iterator is exhausted. Unless the user forced BATCHES, after every batch
// the estimate is revised to the average of the old one and
// (new matches / n_left)·N (capped by the child's upper bound), and the tree
// is asked again: a switch to ad hoc (BATCHES_TO_ADHOC_BF) throws the
// batch results away and restarts brute force.
func (s *search) redis(k, efRuntime int, p Params) []engine.Result {
	n := s.c.vectors.N
	dim := s.c.vectors.Dim
	if s.f == nil {
		return s.unfiltered(k, max(efRuntime, k))
	}
	est := min(s.f.Estimate().Max, n) // the child's NumEstimated is an upper bound
	adhoc := false
	switch p.RedisPolicy {
	case "adhoc_bf":
		adhoc = true
	case "batches":
	default:
		adhoc = preferAdHocSearch(n, est, k, dim, p.RedisM)
	}
	if adhoc || est == 0 {
		s.st.Path = RedisAdHoc
		if est == 0 {
			return nil
		}
		return s.exactOver(s.f.IDs(), k)
	}
	s.st.Path = RedisBatches
	upper := est
	sc := &scan{s: s}
	var heap topk.MaxHeap
	seen := make(map[engine.ID]bool)
	pending := []engine.Result{} // batch-iterator results not yet returned
	for heap.Len() < k {
		nLeft := k - heap.Len()
		bs := p.RedisBatchSize
		if bs == 0 {
			bs = int(float64(nLeft)*(float64(n)/float64(max(est, 1)))) + 1
		}
		// Next bs results of the batch iterator.
		for len(pending) < bs {
			b := sc.batch(max(efRuntime, bs))
			if b == nil {
				break
			}
			pending = append(pending, b...)
		}
		if len(pending) == 0 {
			break
		}
		take := min(bs, len(pending))
		batch := pending[:take]
		pending = pending[take:]
		s.st.Batches++
		before := heap.Len()
		for _, r := range batch {
			s.st.Tuples++
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			if s.allowed(r.ID) {
				heap.PushBounded(r, k)
			}
		}
		if heap.Len() >= k {
			break
		}
		if p.RedisPolicy == "batches" && p.RedisBatchSize > 0 {
			continue
		}
		cur := int(float64(heap.Len()-before) / float64(nLeft) * float64(n))
		est = min((est+cur)/2, upper)
		if p.RedisPolicy == "" && preferAdHocSearch(n, est, k, dim, p.RedisM) {
			s.st.Path = RedisToAdHoc
			return s.exactOver(s.f.IDs(), k)
		}
	}
	return sortedByDistID(heap.Sorted(nil))
}
