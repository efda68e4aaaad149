package nested

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/cputime"
	"github.com/veclab/veclab/engine/internal/topk"
)

// refParents and refNaive are SearchParentsFilter's and SearchNaive's
// layer-0 walks as they were before they moved onto the shared loop
// (engine/internal/beam): one neighbour at a time, each scored with the
// index's vec.Distance as it is met, the parent set a map (refParentSet).
// visited is the caller's (the old code took it from the index's pool).
func refParents(x *Index, q []float32, k, ef int, allow engine.Filter, visited *topk.Visited) ([]Hit, engine.SearchStats) {
	qq, err := x.prepare(q, k)
	if err != nil {
		panic(err)
	}
	ef = max(ef, k)
	w := &walker{x: x, q: qq}
	visited.Reset(x.vectors.N)
	var cand topk.MinHeap
	set := &refParentSet{best: map[uint32]Hit{}}
	ok := func(id engine.ID) bool { return allow == nil || allow.Allowed(engine.ID(x.parents[id])) }
	ep := w.descend()
	visited.Visit(ep.ID)
	cand.Push(ep)
	if ok(ep.ID) {
		set.offer(x.parents[ep.ID], ep.ID, ep.Dist, ef)
	}
	for cand.Len() > 0 {
		c := cand.Pop()
		if wh, found := set.worst(); found && len(set.best) >= ef && c.Dist > wh.Dist {
			break
		}
		w.st.Hops++
		for _, n := range x.graph.Neighbors(0, c.ID) {
			if visited.Visit(n) {
				continue
			}
			w.st.Visited++
			d := w.d(n)
			wh, found := set.worst()
			if len(set.best) < ef || !found || d < wh.Dist {
				cand.Push(engine.Result{ID: n, Dist: d})
				if ok(n) {
					set.offer(x.parents[n], n, d, ef)
				}
			}
		}
	}
	out := make([]Hit, 0, len(set.best))
	for _, h := range set.best {
		out = append(out, h)
	}
	out = sortHits(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, w.st
}

func refNaive(x *Index, q []float32, k, ef int, visited *topk.Visited) ([]Hit, engine.SearchStats) {
	qq, err := x.prepare(q, k)
	if err != nil {
		panic(err)
	}
	ef = max(ef, k)
	w := &walker{x: x, q: qq}
	visited.Reset(x.vectors.N)
	var cand topk.MinHeap
	var res topk.MaxHeap
	ep := w.descend()
	visited.Visit(ep.ID)
	cand.Push(ep)
	res.Push(ep)
	for cand.Len() > 0 {
		c := cand.Pop()
		if res.Len() >= ef && c.Dist > res.Top().Dist {
			break
		}
		w.st.Hops++
		for _, n := range x.graph.Neighbors(0, c.ID) {
			if visited.Visit(n) {
				continue
			}
			w.st.Visited++
			d := w.d(n)
			if res.Len() < ef || d < res.Top().Dist {
				cand.Push(engine.Result{ID: n, Dist: d})
				res.PushBounded(engine.Result{ID: n, Dist: d}, ef)
			}
		}
	}
	passages := res.Sorted(nil)
	if len(passages) > k {
		passages = passages[:k]
	}
	seen := map[uint32]bool{}
	var out []Hit
	for _, p := range passages {
		par := x.parents[p.ID]
		if !seen[par] {
			seen[par] = true
			out = append(out, Hit{Parent: par, Passage: p.ID, Dist: p.Dist})
		}
	}
	return out, w.st
}

// refParentSet is the parent set as it was (a map) before the dense
// parentSet replaced it: the result set W keyed by parent: the best passage of at
// most ef parents, with the worst parent found through a max-heap with lazy
// deletion (an improved parent leaves a stale heap entry behind).
type refParentSet struct {
	best map[uint32]Hit
	heap topk.MaxHeap // ID = parent
}

func (p *refParentSet) worst() (Hit, bool) {
	for p.heap.Len() > 0 {
		t := p.heap.Top()
		if h, ok := p.best[uint32(t.ID)]; ok && h.Dist == t.Dist {
			return h, true
		}
		p.heap.Pop() // stale
	}
	return Hit{}, false
}

// offer adds passage id of parent par at distance d; it reports whether the
// set changed.
func (p *refParentSet) offer(par uint32, id engine.ID, d float32, ef int) bool {
	if h, ok := p.best[par]; ok {
		if d < h.Dist {
			p.best[par] = Hit{Parent: par, Passage: id, Dist: d}
			p.heap.Push(engine.Result{ID: engine.ID(par), Dist: d})
			return true
		}
		return false
	}
	if len(p.best) >= ef {
		w, _ := p.worst()
		if d >= w.Dist {
			return false
		}
		delete(p.best, w.Parent)
		p.heap.Pop()
	}
	p.best[par] = Hit{Parent: par, Passage: id, Dist: d}
	p.heap.Push(engine.Result{ID: engine.ID(par), Dist: d})
	return true
}

// TestWalksMatchReference holds SearchParentsFilter (no filter, half and a
// seventh of the parents) and SearchNaive to the reference walks on the
// test index: hits, distances bit for bit, and statistics.
func TestWalksMatchReference(t *testing.T) {
	x, qs := build(t)
	vis := topk.NewVisited(0)
	filters := map[string]engine.Filter{"none": nil,
		"half":    engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 }),
		"seventh": engine.FilterFunc(func(id engine.ID) bool { return id%7 == 1 })}
	for _, k := range []int{1, 10} {
		for _, ef := range []int{5, 40, 150} {
			for i := 0; i < qs.N; i++ {
				q := qs.Row(i)
				for fname, allow := range filters {
					name := fmt.Sprintf("parents/%s/k=%d/ef=%d/q%d", fname, k, ef, i)
					got, gst, err := x.SearchParentsFilter(q, k, ef, allow)
					if err != nil {
						t.Fatal(err)
					}
					want, wst := refParents(x, q, k, ef, allow, vis)
					sameHits(t, name, got, want, gst, wst)
				}
				got, gst, err := x.SearchNaive(q, k, ef)
				if err != nil {
					t.Fatal(err)
				}
				want, wst := refNaive(x, q, k, ef, vis)
				sameHits(t, fmt.Sprintf("naive/k=%d/ef=%d/q%d", k, ef, i), got, want, gst, wst)
			}
		}
	}
}

func sameHits(t *testing.T, name string, got, want []Hit, gst, wst engine.SearchStats) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, reference %d", name, len(got), len(want))
	}
	for j := range got {
		g, w := got[j], want[j]
		if g.Parent != w.Parent || g.Passage != w.Passage || math.Float32bits(g.Dist) != math.Float32bits(w.Dist) {
			t.Fatalf("%s: hit %d is %+v, reference %+v", name, j, g, w)
		}
	}
	if gst != wst {
		t.Fatalf("%s: stats %+v, reference %+v", name, gst, wst)
	}
}

// BenchmarkWalksVsReference times the walks (shared loop, dense parent
// set) against the reference walks they replaced, in one process on the
// BenchmarkSearchParents fixture: each iteration runs the same 10 queries
// through one then the other (the order alternating) and sums the CPU time
// of the pinned thread per side, so both see the same machine. It reports
// each side's queries per CPU second and their ratio (new/reference: > 1
// is faster).
func BenchmarkWalksVsReference(b *testing.B) {
	half := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
	for _, v := range []string{"parents", "parents-filter50", "naive"} {
		for _, ef := range []int{40, 100} {
			b.Run(fmt.Sprintf("%s/ef=%d", v, ef), func(b *testing.B) {
				benchFixture(b)
				x, qs := bench.x, bench.queries
				vis := topk.NewVisited(0)
				var allow engine.Filter
				if v == "parents-filter50" {
					allow = half
				}
				cur := func(q []float32) {
					if v == "naive" {
						x.SearchNaive(q, 10, ef)
					} else {
						x.SearchParentsFilter(q, 10, ef, allow)
					}
				}
				ref := func(q []float32) {
					if v == "naive" {
						refNaive(x, q, 10, ef, vis)
					} else {
						refParents(x, q, 10, ef, allow, vis)
					}
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if _, ok := cputime.Thread(); !ok {
					b.Skip("no thread CPU clock on this system")
				}
				const block = 10
				var tCur, tRef time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lo := (i * block) % qs.N
					side := func(f func([]float32)) time.Duration {
						t0, _ := cputime.Thread()
						for j := lo; j < lo+block; j++ {
							f(qs.Row(j % qs.N))
						}
						t1, _ := cputime.Thread()
						return t1 - t0
					}
					if i%2 == 0 {
						tCur += side(cur)
						tRef += side(ref)
					} else {
						tRef += side(ref)
						tCur += side(cur)
					}
				}
				b.StopTimer()
				n := float64(b.N * block)
				b.ReportMetric(n/tCur.Seconds(), "newCPUQPS")
				b.ReportMetric(n/tRef.Seconds(), "refCPUQPS")
				b.ReportMetric(tRef.Seconds()/tCur.Seconds(), "ratio")
			})
		}
	}
}
