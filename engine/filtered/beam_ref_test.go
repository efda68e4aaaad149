package filtered

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/internal/cputime"
	"github.com/veclab/veclab/engine/internal/topk"
)

// refLayer0 is searchLayer0 as it was before it moved onto the shared
// loop (engine/internal/beam): one neighbour at a time, each scored with
// the collection's vec.Distance as it is met. It uses the caller's heaps
// (the old code used the search's) and returns W nearest first.
func refLayer0(s *search, g Graph, eps []engine.Result, o layerOpts, cand *topk.MinHeap, w *topk.MaxHeap) ([]engine.Result, bool) {
	cand.Reset()
	w.Reset()
	push := func(r engine.Result) {
		w.Push(r)
		if w.Len() > o.ef {
			ev := w.Pop()
			if o.discarded != nil {
				o.discarded.Push(ev)
			}
		}
	}
	scored := 0
	for _, e := range eps {
		cand.Push(e)
		if o.collect == nil || o.collect(e.ID) {
			push(e)
		}
	}
	for cand.Len() > 0 {
		c := cand.Pop()
		if w.Len() >= o.ef && c.Dist > w.Top().Dist {
			break
		}
		s.st.Hops++
		var next []engine.ID
		if o.expand != nil {
			next = o.expand(c.ID)
		} else {
			next = g.Neighbors(0, c.ID)
		}
		for _, n := range next {
			if !s.visit(n) {
				continue
			}
			d := s.distance(n)
			scored++
			if o.visitLimit > 0 && scored > o.visitLimit {
				return w.Sorted(nil), false
			}
			r := engine.Result{ID: n, Dist: d}
			if w.Len() < o.ef || d < w.Top().Dist {
				cand.Push(r)
				if o.collect == nil || o.collect(n) {
					push(r)
				}
			} else if o.discarded != nil {
				o.discarded.Push(r)
			}
		}
	}
	return w.Sorted(nil), true
}

// TestLayer0MatchesReference runs searchLayer0 and refLayer0 side by side
// on the test fixture, over every option the strategies use — collect
// (the in-graph walk), expand (a two-hop expansion returning visited
// nodes too, as ACORN's), the discarded heap of pgvector's iterative scan
// over three consecutive batches, a visit limit that is hit — with one and
// with several entry points: W, the discarded heap, the visited set, the
// statistics and the return value must agree bit for bit.
func TestLayer0MatchesReference(t *testing.T) {
	fx := getFixture(t)
	c := fx.coll
	g := c.graph
	cf, err := fx.store.CompileString(`bucket < 300`)
	if err != nil {
		t.Fatal(err)
	}
	type variant struct {
		name    string
		opts    func(s *search) layerOpts
		seeds   int
		batches int
	}
	variants := []variant{
		{"plain", func(s *search) layerOpts { return layerOpts{ef: 40} }, 1, 1},
		{"collect", func(s *search) layerOpts { return layerOpts{ef: 40, collect: s.allowed} }, 1, 1},
		{"expand", func(s *search) layerOpts {
			var buf []engine.ID
			return layerOpts{ef: 30, collect: s.allowed, expand: func(id engine.ID) []engine.ID {
				buf = buf[:0]
				for j, v := range g.Neighbors(0, id) {
					buf = append(buf, v)
					if j%4 == 0 {
						buf = append(buf, g.Neighbors(0, v)...)
					}
				}
				return buf
			}}
		}, 3, 1},
		{"limit", func(s *search) layerOpts { return layerOpts{ef: 200, collect: s.allowed, visitLimit: 150} }, 1, 1},
	}
	for _, v := range variants {
		for _, ef := range []int{10, 40} {
			v := v
			if v.name == "plain" {
				v.name, v.batches = fmt.Sprintf("iterative/ef=%d", ef), 3
				v.opts = func(s *search) layerOpts { return layerOpts{ef: ef} }
			}
			for qi := 0; qi < fx.queries.N; qi++ {
				q := fx.queries.Row(qi)
				name := fmt.Sprintf("%s/q%d", v.name, qi)
				run := func(ref bool) (out [][]engine.Result, oks []bool, disc []engine.Result, st Stats, seen []bool) {
					s := c.newSearch(q, cf, &st)
					defer c.putSearch(s)
					var discarded topk.MinHeap
					var eps []engine.Result
					for b := 0; b < v.batches; b++ {
						o := v.opts(s)
						if v.batches > 1 {
							o.discarded = &discarded
						}
						if b == 0 {
							ep := s.descend(g)
							s.visit(ep.ID)
							eps = []engine.Result{ep}
							for i := 1; i < v.seeds; i++ {
								id := engine.ID((qi*97 + i*389) % c.Len())
								if s.visit(id) {
									eps = append(eps, engine.Result{ID: id, Dist: s.distance(id)})
								}
							}
						} else {
							eps = eps[:0]
							for len(eps) < o.ef && discarded.Len() > 0 {
								eps = append(eps, discarded.Pop())
							}
						}
						var rs []engine.Result
						var ok bool
						if ref {
							rs, ok = refLayer0(s, g, eps, o, new(topk.MinHeap), new(topk.MaxHeap))
						} else {
							ok = s.searchLayer0(g, eps, o)
							rs = s.takeW()
						}
						out, oks = append(out, rs), append(oks, ok)
					}
					for discarded.Len() > 0 {
						disc = append(disc, discarded.Pop())
					}
					for id := 0; id < c.Len(); id++ {
						seen = append(seen, s.visited.Seen(engine.ID(id)))
					}
					return
				}
				gotW, gotOK, gotD, gotSt, gotSeen := run(false)
				refW, refOK, refD, refSt, refSeen := run(true)
				for b := range refW {
					if gotOK[b] != refOK[b] {
						t.Fatalf("%s batch %d: returned %v, reference %v", name, b, gotOK[b], refOK[b])
					}
					sameList(t, fmt.Sprintf("%s batch %d W", name, b), gotW[b], refW[b])
				}
				sameList(t, name+" discarded", gotD, refD)
				gotSt.Elapsed, refSt.Elapsed = 0, 0
				if gotSt != refSt {
					t.Fatalf("%s: stats %+v, reference %+v", name, gotSt, refSt)
				}
				for id := range refSeen {
					if gotSeen[id] != refSeen[id] {
						t.Fatalf("%s: node %d visited %v, reference %v", name, id, gotSeen[id], refSeen[id])
					}
				}
				if v.name == "limit" && qi == 0 && refOK[0] {
					t.Fatalf("%s: the visit limit was not hit: the variant tests nothing", name)
				}
			}
		}
	}
}

func sameList(t *testing.T, name string, got, want []engine.Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, reference %d", name, len(got), len(want))
	}
	for j := range got {
		if got[j].ID != want[j].ID || math.Float32bits(got[j].Dist) != math.Float32bits(want[j].Dist) {
			t.Fatalf("%s: result %d is %v, reference %v", name, j, got[j], want[j])
		}
	}
}

// BenchmarkLayer0VsReference times searchLayer0 (the shared loop) against
// refLayer0 (the loop it replaced) in one process on the BenchmarkWalk
// fixture, after the same greedy descent: unfiltered (the post-filter,
// iterative and unfiltered walks) and collecting only a 50 % filter's
// matches (the in-graph walk). Each iteration runs the same 10 queries
// through one then the other (the order alternating) and sums the CPU time
// of the pinned thread per side, so both see the same machine. It reports
// each side's queries per CPU second and their ratio (new/reference: > 1
// is faster).
func BenchmarkLayer0VsReference(b *testing.B) {
	for _, v := range []string{"plain", "collect50"} {
		for _, ef := range []int{40, 100} {
			b.Run(fmt.Sprintf("%s/ef=%d", v, ef), func(b *testing.B) {
				walkFixture(b)
				c, qs := walkBench.coll, walkBench.queries
				var cf *filter.Compiled
				if v == "collect50" {
					var err error
					if cf, err = walkBench.store.CompileString(`bucket < 500`); err != nil {
						b.Fatal(err)
					}
				}
				var cand topk.MinHeap
				var w topk.MaxHeap
				one := func(q []float32, ref bool) {
					var st Stats
					s := c.newSearch(q, cf, &st)
					o := layerOpts{ef: ef}
					if cf != nil {
						o.collect = s.allowed
					}
					ep := s.descend(c.graph)
					s.visit(ep.ID)
					eps := []engine.Result{ep}
					if ref {
						refLayer0(s, c.graph, eps, o, &cand, &w)
					} else {
						s.searchLayer0(c.graph, eps, o)
						s.takeW()
					}
					c.putSearch(s)
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
					side := func(ref bool) time.Duration {
						t0, _ := cputime.Thread()
						for j := lo; j < lo+block; j++ {
							one(qs.Row(j%qs.N), ref)
						}
						t1, _ := cputime.Thread()
						return t1 - t0
					}
					if i%2 == 0 {
						tCur += side(false)
						tRef += side(true)
					} else {
						tRef += side(true)
						tCur += side(false)
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
