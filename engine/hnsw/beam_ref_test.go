package hnsw

import (
	"fmt"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
)

// refSearch is Searcher.search as it was before layer 0 moved onto the
// shared loop (engine/internal/beam): the two base-layer loops written out
// in full, one neighbour batch at a time. TestSharedLoopMatchesReference
// holds the shared loop to it bit for bit.
func refSearch(ix *Index, q []float32, k, ef int, allow engine.Filter, b *engine.Bound) ([]engine.Result, engine.SearchStats) {
	var st engine.SearchStats
	q, err := ix.PrepareQuery(nil, q)
	if err != nil {
		panic(err)
	}
	ef = max(ef, k)
	ep, epDist := ix.greedyDescend(q, nil, &st, nil)
	vis := topk.NewVisited(len(ix.keys))
	var cand topk.MinHeap
	var res, nc topk.MaxHeap
	links, stride := ix.links0, ix.stride0
	// expand gathers and scores c's unvisited neighbours.
	dists := make([]float32, stride)
	expand := func(c engine.ID) ([]engine.ID, []float32) {
		st.Hops++
		o := int(c) * stride
		lst := links[o : o+stride : o+stride]
		var ids []engine.ID
		for _, nb := range lst[1 : 1+lst[0]] {
			if !vis.Visit(nb) {
				ids = append(ids, nb)
			}
		}
		st.Visited += len(ids)
		st.DistComps += len(ids)
		ix.distBatch(q, ids, dists)
		return ids, dists[:len(ids)]
	}
	vis.Visit(ep)
	st.Visited++
	cand.Push(engine.Result{ID: ep, Dist: epDist})
	if b == nil {
		lower := float32(math.Inf(1))
		if allow == nil || allow.Allowed(ep) {
			res.Push(engine.Result{ID: ep, Dist: epDist})
			lower = epDist
		}
		for cand.Len() > 0 {
			c := cand.Top()
			if c.Dist > lower && (allow == nil || res.Len() >= ef) {
				break
			}
			cand.Pop()
			ids, ds := expand(c.ID)
			for i, nb := range ids {
				d := ds[i]
				if res.Len() < ef || d < lower {
					cand.Push(engine.Result{ID: nb, Dist: d})
					if allow == nil || allow.Allowed(nb) {
						res.PushBounded(engine.Result{ID: nb, Dist: d}, ef)
						lower = res.Top().Dist
					}
				}
			}
		}
	} else {
		m := max(1, int(math.Round((1-boundGreediness)*float64(ef))))
		inf := float32(math.Inf(1))
		global, full, nextSync := inf, false, 0
		var upd []float32
		bound := func() float32 {
			if !full {
				return inf
			}
			return min(res.Top().Dist, max(nc.Top().Dist, global))
		}
		collect := func(r engine.Result) {
			res.PushBounded(r, ef)
			nc.PushBounded(r, m)
			upd = append(upd, r.Dist)
			first := !full && res.Len() >= ef
			if first {
				full = true
			}
			if full && (first || st.Visited >= nextSync) {
				global = b.Offer(upd...)
				upd = upd[:0]
				nextSync = st.Visited + boundInterval + 1
			}
		}
		if allow == nil || allow.Allowed(ep) {
			collect(engine.Result{ID: ep, Dist: epDist})
		}
		lower := bound()
		for cand.Len() > 0 {
			c := cand.Top()
			if c.Dist > lower {
				break
			}
			cand.Pop()
			ids, ds := expand(c.ID)
			for i, nb := range ids {
				d := ds[i]
				if d < lower {
					cand.Push(engine.Result{ID: nb, Dist: d})
					if allow == nil || allow.Allowed(nb) {
						collect(engine.Result{ID: nb, Dist: d})
						lower = bound()
					}
				}
			}
		}
		if len(upd) > 0 {
			b.Offer(upd...)
		}
	}
	out := res.Sorted(nil)
	if len(out) > k {
		out = out[:k]
	}
	return out, st
}

// TestSharedLoopMatchesReference runs Search and SearchBound (each bound
// shared by two consecutive queries, so that the second sees the first's
// distances) against refSearch on a fixed seed, over every metric, ef from
// 10 to 200, no filter and two allow-lists: results, distances (bit for
// bit), statistics and the bounds' final values must agree.
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
		s := ix.NewSearcher()
		for fname, allow := range filters {
			for _, ef := range []int{10, 40, 200} {
				name := fmt.Sprintf("%v/%s/ef=%d", metric, fname, ef)
				var gotB, refB *engine.Bound
				for i := 0; i < nq; i++ {
					q := data.Row(n + i)
					want, wst := refSearch(ix, q, k, ef, allow, nil)
					got, err := s.Search(q, k, ef, allow)
					if err != nil {
						t.Fatal(err)
					}
					sameResults(t, name+fmt.Sprintf("/q%d", i), got, want, s.Stats(), wst)
					if i%2 == 0 {
						gotB, refB = engine.NewBound(ef), engine.NewBound(ef)
					}
					want, wst = refSearch(ix, q, k, ef, allow, refB)
					got, err = s.SearchBound(q, k, ef, allow, gotB)
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
