package hnsw

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
	"github.com/veclab/veclab/engine/internal/cputime"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/topk"
)

// refSearcher runs Searcher.search as it was before layer 0 moved onto
// the shared loop (engine/internal/beam): its two base-layer loops,
// layer0 and layer0Bound, are copied here unchanged but for the receiver
// (and prefetchRows of the next link list spelt beam.PrefetchLinks, the
// same instruction), and with layer0Bound's exchange rule changed with
// the shared loop's to MultiLeafKnnCollector's (an exchange on a collect
// whose visited count is a multiple of 256, nothing offered at the end).
// TestSharedLoopMatchesReference holds the shared loop
// to it bit for bit and BenchmarkSharedLoopVsReference times the two in
// one process.
type refSearcher struct {
	ix    *Index
	vis   *topk.Visited
	cand  topk.MinHeap
	res   topk.MaxHeap
	q     []float32
	out   []engine.Result
	stats engine.SearchStats
	ids   []engine.ID
	dists []float32
	nc    topk.MaxHeap
	upd   []float32
	tr    *Trace // always nil
}

func newRefSearcher(ix *Index) *refSearcher {
	return &refSearcher{ix: ix, vis: topk.NewVisited(0),
		ids: make([]engine.ID, 0, ix.m0), dists: make([]float32, ix.m0)}
}

// prefetch and distBatch are Index.prefetch and Index.distBatch as they
// were (Index's now delegate to beam.Space, one call deeper).
func (s *refSearcher) prefetch(ids []engine.ID) {
	ix := s.ix
	if len(ids) == 0 || len(ix.data) == 0 {
		return
	}
	lines := min((ix.dim*4+63)/64, beam.MaxPrefetchLines)
	beam.PrefetchRows(&ix.data[0], (*uint32)(unsafe.Pointer(&ids[0])), len(ids), ix.dim*4, lines)
}

func (s *refSearcher) distBatch(q []float32, ids []engine.ID, out []float32) {
	ix := s.ix
	dim := ix.dim
	data := ix.data
	out = out[:len(ids)]
	row := func(id engine.ID) []float32 {
		o := int(id) * dim
		return data[o : o+dim : o+dim]
	}
	i := 0
	if ix.metric == engine.L2 {
		for ; i+4 <= len(ids); i += 4 {
			out[i], out[i+1], out[i+2], out[i+3] = f32.L2Sq4(q, row(ids[i]), row(ids[i+1]), row(ids[i+2]), row(ids[i+3]))
		}
		for ; i < len(ids); i++ {
			out[i] = f32.L2Sq(q, row(ids[i]))
		}
		return
	}
	for ; i+4 <= len(ids); i += 4 {
		out[i], out[i+1], out[i+2], out[i+3] = f32.Dot4(q, row(ids[i]), row(ids[i+1]), row(ids[i+2]), row(ids[i+3]))
	}
	for ; i < len(ids); i++ {
		out[i] = f32.Dot(q, row(ids[i]))
	}
	if ix.metric == engine.Dot {
		for j := range out {
			out[j] = -out[j]
		}
	} else {
		for j := range out {
			out[j] = 1 - out[j]
		}
	}
}

// search is Searcher.search on the float32 path.
func (s *refSearcher) search(q []float32, k, ef int, allow engine.Filter, b *engine.Bound) ([]engine.Result, engine.SearchStats) {
	ix := s.ix
	s.stats = engine.SearchStats{}
	var err error
	if s.q, err = ix.PrepareQuery(s.q, q); err != nil {
		panic(err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ef = max(ef, k)
	ep, epDist := ix.greedyDescend(s.q, nil, &s.stats, nil)
	if b != nil {
		s.layer0Bound(s.q, nil, ep, epDist, ef, allow, b)
	} else {
		s.layer0(s.q, nil, ep, epDist, ef, allow)
	}
	s.out = s.res.Sorted(s.out[:0])
	if len(s.out) > k {
		s.out = s.out[:k]
	}
	return s.out, s.stats
}

func (s *refSearcher) layer0(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter) {
	ix := s.ix
	s.vis.Reset(len(ix.keys))
	s.cand.Reset()
	s.res.Reset()
	st := &s.stats
	s.vis.Visit(ep)
	st.Visited++
	lower := float32(math.Inf(1))
	if allow == nil || allow.Allowed(ep) {
		s.res.Push(engine.Result{ID: ep, Dist: epDist})
		lower = epDist
	}
	s.cand.Push(engine.Result{ID: ep, Dist: epDist})
	var lt *LayerTrace
	if s.tr != nil {
		s.tr.Layers = append(s.tr.Layers, LayerTrace{Level: 0, Visited: []engine.ID{ep}})
		lt = &s.tr.Layers[len(s.tr.Layers)-1]
	}
	links, stride := ix.links0, ix.stride0
	for s.cand.Len() > 0 {
		c := s.cand.Top()
		if c.Dist > lower && (allow == nil || s.res.Len() >= ef) {
			break
		}
		s.cand.Pop()
		st.Hops++
		o := int(c.ID) * stride
		lst := links[o : o+stride : o+stride]
		// Mark and gather the unvisited neighbours, score them in one
		// batch, then apply hnswlib's per-neighbour rule in list order
		// (the outcome is the same as scoring one at a time).
		ids := s.ids[:0]
		for _, nb := range lst[1 : 1+lst[0]] {
			if !s.vis.Visit(nb) {
				ids = append(ids, nb)
			}
		}
		st.Visited += len(ids)
		st.DistComps += len(ids)
		if lt != nil {
			lt.Expanded = append(lt.Expanded, c.ID)
			lt.Visited = append(lt.Visited, ids...)
		}
		dists := s.dists[:len(ids)]
		if sc != nil {
			for i, nb := range ids {
				dists[i] = sc.Distance(nb)
			}
		} else {
			s.prefetch(ids)
			s.distBatch(q, ids, dists)
		}
		for i, nb := range ids {
			d := dists[i]
			if s.res.Len() < ef || d < lower {
				s.cand.Push(engine.Result{ID: nb, Dist: d})
				if allow == nil || allow.Allowed(nb) {
					s.res.PushBounded(engine.Result{ID: nb, Dist: d}, ef)
					lower = s.res.Top().Dist
				}
			}
		}
		if s.cand.Len() > 0 {
			// Start loading the link list of the node expanded next.
			beam.PrefetchLinks(links, stride, s.cand.Top().ID)
		}
	}
}

func (s *refSearcher) layer0Bound(q []float32, sc engine.QueryScorer, ep engine.ID, epDist float32, ef int, allow engine.Filter, b *engine.Bound) {
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
	// Lucene's visited count: the descent's scored nodes, the entry
	// scored again, then each layer-0 node as it is scored.
	visited := st.DistComps + 1
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
		if full && (first || visited&boundInterval == 0) && len(s.upd) > 0 {
			global = b.Offer(s.upd...)
			s.upd = s.upd[:0]
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
			s.prefetch(ids)
			s.distBatch(q, ids, dists)
		}
		for i, nb := range ids {
			d := dists[i]
			visited++
			if d < lower {
				s.cand.Push(engine.Result{ID: nb, Dist: d})
				if allow == nil || allow.Allowed(nb) {
					collect(engine.Result{ID: nb, Dist: d})
					lower = bound()
				}
			}
		}
	}
	s.upd = s.upd[:0]
}

// TestSharedLoopMatchesReference runs Search without and with a shared bound (each bound
// shared by two consecutive queries, so that the second sees the first's
// distances) against refSearcher on a fixed seed, over every metric, ef
// from 10 to 200, no filter and two allow-lists: results, distances (bit
// for bit), statistics and the bounds' final values must agree.
func TestSharedLoopMatchesReference(t *testing.T) {
	const n, dim, nq, k = 1500, 24, 20, 10
	data := clustered(n+nq, dim, 8, 0.6, 31)
	base := *data
	base.N = n
	filters := map[string]engine.Filter{"none": nil,
		"half":  engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 }),
		"tenth": engine.FilterFunc(func(id engine.ID) bool { return id%10 == 3 })}
	for _, metric := range []engine.Metric{engine.Cosine, engine.L2, engine.Dot} {
		ix, err := New(Config{Dim: dim, Metric: metric, EfConstruction: 64, Workers: 1, Seed: 32})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.AddBatch(seqKeys(n), &base); err != nil {
			t.Fatal(err)
		}
		s, ref := ix.NewSearcher(), newRefSearcher(ix)
		for fname, allow := range filters {
			for _, ef := range []int{10, 40, 200} {
				name := fmt.Sprintf("%v/%s/ef=%d", metric, fname, ef)
				var gotB, refB *engine.Bound
				for i := 0; i < nq; i++ {
					q := data.Row(n + i)
					want, wst := ref.search(q, k, ef, allow, nil)
					got, err := s.Search(q, engine.Request{K: k, Breadth: ef, Filter: allow})
					if err != nil {
						t.Fatal(err)
					}
					sameResults(t, name+fmt.Sprintf("/q%d", i), got, want, s.Stats(), wst)
					if i%2 == 0 {
						gotB, refB = engine.NewBound(ef), engine.NewBound(ef)
					}
					want, wst = ref.search(q, k, ef, allow, refB)
					got, err = s.Search(q, engine.Request{K: k, Breadth: ef, Filter: allow, Bound: gotB})
					if err != nil {
						t.Fatal(err)
					}
					sameResults(t, name+fmt.Sprintf("/bound/q%d", i), got, want, s.Stats(), wst)
					if g, w := gotB.Value(), refB.Value(); math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("%s/bound/q%d: bound %v, reference %v", name, i, g, w)
					}
				}
			}
		}
	}
}

func sameResults(t *testing.T, name string, got, want []engine.Result, gst, wst engine.SearchStats) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, reference %d", name, len(got), len(want))
	}
	for j := range got {
		if got[j].ID != want[j].ID || math.Float32bits(got[j].Dist) != math.Float32bits(want[j].Dist) {
			t.Fatalf("%s: result %d is %v, reference %v", name, j, got[j], want[j])
		}
	}
	if gst != wst {
		t.Fatalf("%s: stats %+v, reference %+v", name, gst, wst)
	}
}

// BenchmarkSharedLoopVsReference times Searcher (the shared loop) and
// refSearcher (the loops it replaced) in one process on the
// BenchmarkSearch fixture (efConstruction 64): each iteration runs the
// same 10 queries through one then the other (the order alternating), and
// the CPU time of the pinned thread is summed per side, so both see the
// same machine at millisecond granularity, which a loaded shared machine
// needs. It reports each side's queries per CPU second and their ratio
// (shared/reference: > 1 is faster).
func BenchmarkSharedLoopVsReference(b *testing.B) {
	half := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
	for _, v := range []string{"plain", "filter50", "bound"} {
		for _, ef := range []int{10, 40, 100, 200} {
			b.Run(fmt.Sprintf("%s/ef=%d", v, ef), func(b *testing.B) {
				ix := benchIndex(b, 64)
				s, ref := ix.NewSearcher(), newRefSearcher(ix)
				var allow engine.Filter
				if v == "filter50" {
					allow = half
				}
				shared := func(q []float32) {
					if v == "bound" {
						s.Search(q, engine.Request{K: benchK, Breadth: ef, Bound: engine.NewBound(ef)})
					} else {
						s.Search(q, engine.Request{K: benchK, Breadth: ef, Filter: allow})
					}
				}
				old := func(q []float32) {
					var bd *engine.Bound
					if v == "bound" {
						bd = engine.NewBound(ef)
					}
					ref.search(q, benchK, ef, allow, bd)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if _, ok := cputime.Thread(); !ok {
					b.Skip("no thread CPU clock on this system")
				}
				const block = 10
				var tShared, tRef time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lo := (i * block) % benchQ
					side := func(f func([]float32)) time.Duration {
						t0, _ := cputime.Thread()
						for j := lo; j < lo+block; j++ {
							f(bench.q.Row(j % benchQ))
						}
						t1, _ := cputime.Thread()
						return t1 - t0
					}
					if i%2 == 0 {
						tShared += side(shared)
						tRef += side(old)
					} else {
						tRef += side(old)
						tShared += side(shared)
					}
				}
				b.StopTimer()
				n := float64(b.N * block)
				b.ReportMetric(n/tShared.Seconds(), "sharedCPUQPS")
				b.ReportMetric(n/tRef.Seconds(), "refCPUQPS")
				b.ReportMetric(tRef.Seconds()/tShared.Seconds(), "ratio")
			})
		}
	}
}
