package hnsw

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func TestFilter(t *testing.T) {
	const n, dim, nq, k = 2000, 16, 30, 10
	data := clustered(n+nq, dim, 8, 0.5, 5)
	base := *data
	base.N = n
	ix, err := New(Config{Dim: dim, EfConstruction: 64, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), &base); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		every int // allow ids divisible by every
		floor float64
	}{
		{"half", 2, 0.95},
		{"tenth", 10, 0.9},
		{"one percent", 100, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allow := engine.NewBitset(n)
			for i := 0; i < n; i += tc.every {
				allow.Set(engine.ID(i))
			}
			s := ix.NewSearcher()
			var sum float64
			for i := 0; i < nq; i++ {
				q := data.Row(n + i)
				res, err := s.Search(q, engine.Request{K: k, Breadth: 64, Filter: allow})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res {
					if !allow.Allowed(r.ID) {
						t.Fatalf("query %d returned disallowed id %d", i, r.ID)
					}
				}
				if want := min(k, allow.Count()); len(res) != want {
					t.Fatalf("query %d: %d results, want %d", i, len(res), want)
				}
				sum += recallOf(res, bruteForce(&base, q, k, engine.Cosine, allow))
			}
			if r := sum / nq; r < tc.floor {
				t.Fatalf("filtered recall %.3f < %.2f", r, tc.floor)
			}
		})
	}
	// Nothing allowed: no results, no error, the whole graph visited.
	s := ix.NewSearcher()
	res, err := s.Search(data.Row(n), engine.Request{K: k, Breadth: 10, Filter: engine.FilterFunc(func(engine.ID) bool { return false })})
	if err != nil || len(res) != 0 {
		t.Fatalf("empty allow-list: %v, %v", res, err)
	}
	if s.Stats().Visited != n {
		t.Fatalf("empty allow-list visited %d of %d nodes", s.Stats().Visited, n)
	}
}

func TestSearchResults(t *testing.T) {
	ix := smallIndex(t, 300, 8, Config{M: 8, EfConstruction: 50, Workers: 1})
	s := ix.NewSearcher()
	q := clustered(1, 8, 1, 0.5, 77).Row(0)
	res, err := s.Search(q, engine.Request{K: 10, Breadth: 50})
	if err != nil {
		t.Fatal(err)
	}
	prep, _ := ix.PrepareQuery(nil, q)
	for i, r := range res {
		if i > 0 && res[i-1].Dist > r.Dist {
			t.Fatal("results not sorted by distance")
		}
		if d := ix.QueryDistance(prep, r.ID); math.Abs(float64(d-r.Dist)) > 1e-5 {
			t.Fatalf("result %d distance %v, recomputed %v", i, r.Dist, d)
		}
	}
	st := s.Stats()
	if st.DistComps == 0 || st.Hops == 0 || st.Visited == 0 || st.Visited > 300 {
		t.Fatalf("stats %+v", st)
	}
	// The descent and a layer-0 walk seeded with its end compose into
	// the same search.
	res = slices.Clone(res)
	sc, err := s.Scorer(q)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := ix.GreedyDescend(sc, nil)
	w, err := s.Search(q, engine.Request{K: len(res), Breadth: 50, Seeds: []engine.ID{ep}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res {
		if w[i] != res[i] {
			t.Fatalf("seeded layer-0 result %d = %v, Search gave %v", i, w[i], res[i])
		}
	}
	// Graph views.
	if ix.Level(ix.EntryPoint()) != ix.MaxLevel() {
		t.Fatal("entry point is not on the top layer")
	}
	for id := engine.ID(0); id < 300; id++ {
		for l := 0; l <= ix.Level(id); l++ {
			nb := ix.Neighbors(l, id)
			if len(nb) == 0 || len(nb) > ix.M0() || (l > 0 && len(nb) > ix.M()) {
				if !(len(nb) == 0 && l > 0) { // a lone node on a high layer has no links
					t.Fatalf("node %d layer %d has %d links", id, l, len(nb))
				}
			}
		}
	}
}

func TestSearchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	ix := smallIndex(t, 500, 16, Config{EfConstruction: 40, Workers: 1})
	s := ix.NewSearcher()
	q := clustered(1, 16, 1, 0.5, 8).Row(0)
	allow := engine.NewBitset(500)
	for i := 0; i < 500; i += 3 {
		allow.Set(engine.ID(i))
	}
	s.Search(q, engine.Request{K: 10, Breadth: 64, Filter: allow}) // warm up
	for _, a := range []engine.Filter{nil, allow} {
		if n := testing.AllocsPerRun(100, func() { s.Search(q, engine.Request{K: 10, Breadth: 64, Filter: a}) }); n != 0 {
			t.Fatalf("Search allocates %v times per query", n)
		}
	}
}

func TestConcurrentSearch(t *testing.T) {
	ix := smallIndex(t, 800, 16, Config{EfConstruction: 40, Workers: 2})
	qs := clustered(40, 16, 4, 0.5, 9)
	want := make([][]engine.Result, qs.N)
	for i := range want {
		want[i], _, _ = ix.Query(qs.Row(i), engine.Request{K: 5, Breadth: 40})
	}
	run := func(check func(i int, got []engine.Result) string) []string {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var bad []string
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := ix.NewSearcher()
				for rep := 0; rep < 3; rep++ {
					for i := 0; i < qs.N; i++ {
						got, err := s.Search(qs.Row(i), engine.Request{K: 5, Breadth: 40})
						msg := ""
						if err != nil {
							msg = err.Error()
						} else {
							msg = check(i, got)
						}
						if msg != "" {
							mu.Lock()
							bad = append(bad, msg)
							mu.Unlock()
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		return bad
	}
	// Phase 1: concurrent searches of a fixed index agree with serial ones.
	if bad := run(func(i int, got []engine.Result) string {
		for j := range got {
			if got[j] != want[i][j] {
				return "concurrent search disagrees with the serial one"
			}
		}
		return ""
	}); len(bad) > 0 {
		t.Fatal(bad[0])
	}
	// Phase 2: searches racing an AddBatch see a consistent graph.
	extra := clustered(100, 16, 4, 0.5, 10)
	keys := make([]uint64, 100)
	for i := range keys {
		keys[i] = uint64(10000 + i)
	}
	done := make(chan error)
	go func() { done <- ix.AddBatch(keys, extra) }()
	bad := run(func(i int, got []engine.Result) string {
		if len(got) != 5 {
			return "short result while inserting"
		}
		for j := 1; j < len(got); j++ {
			if got[j-1].Dist > got[j].Dist {
				return "unsorted result while inserting"
			}
		}
		return ""
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatal(bad[0])
	}
	if ix.Len() != 900 {
		t.Fatalf("Len = %d", ix.Len())
	}
}

// roundedCodes is a test CodeStore whose "codes" are the vectors rounded to
// one decimal: its distances differ from the float32 ones, so results prove
// which were used.
type roundedCodes struct {
	dim    int
	metric engine.Metric
	rows   [][]float32
	pairs  int
	scored int
	mu     sync.Mutex
}

func (c *roundedCodes) Reserve(n int) {
	for len(c.rows) < n {
		c.rows = append(c.rows, nil)
	}
}

func round1(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(math.Round(float64(x)*10) / 10)
	}
	return out
}

func (c *roundedCodes) Set(id engine.ID, v []float32) error { c.rows[id] = round1(v); return nil }
func (c *roundedCodes) Len() int                            { return len(c.rows) }
func (c *roundedCodes) BytesPerVector() float64             { return float64(4 * c.dim) }
func (c *roundedCodes) Pair(a, b engine.ID) float32 {
	c.mu.Lock()
	c.pairs++
	c.mu.Unlock()
	return vec.Distance(c.metric)(c.rows[a], c.rows[b])
}

type roundedScorer struct {
	c *roundedCodes
	q []float32
}

func (s roundedScorer) Distance(id engine.ID) float32 {
	s.c.scored++
	return vec.Distance(s.c.metric)(s.q, s.c.rows[id])
}

func (c *roundedCodes) NewQueryScorer(q []float32) (engine.QueryScorer, error) {
	return roundedScorer{c, round1(q)}, nil
}

func TestQuantizedTraversal(t *testing.T) {
	const n, dim = 600, 16
	codes := &roundedCodes{dim: dim, metric: engine.L2}
	ix, err := New(Config{Dim: dim, Metric: engine.L2, EfConstruction: 40, Workers: 1, Codes: codes})
	if err != nil {
		t.Fatal(err)
	}
	data := clustered(n+1, dim, 4, 0.5, 12)
	base := *data
	base.N = n
	if err := ix.AddBatch(seqKeys(n), &base); err != nil {
		t.Fatal(err)
	}
	if codes.pairs == 0 || codes.Len() != n {
		t.Fatalf("build did not use the codes (%d pair distances, %d codes)", codes.pairs, codes.Len())
	}
	q := data.Row(n)
	res, _, err := ix.Query(q, engine.Request{K: 5, Breadth: 40})
	if err != nil {
		t.Fatal(err)
	}
	if codes.scored == 0 {
		t.Fatal("search did not use the query scorer")
	}
	sc, _ := codes.NewQueryScorer(q)
	prep, _ := ix.PrepareQuery(nil, q)
	differs := false
	for _, r := range res {
		if r.Dist != sc.Distance(r.ID) {
			t.Fatalf("result distance %v is not the codes' %v", r.Dist, sc.Distance(r.ID))
		}
		if r.Dist != ix.QueryDistance(prep, r.ID) {
			differs = true
		}
	}
	if !differs {
		t.Fatal("code distances equal float distances: the test cannot tell them apart")
	}
	// The float slab is kept for rescoring.
	if ix.Vectors().N != n || ix.Vector(3)[0] != base.Row(3)[0] {
		t.Fatal("float32 vectors not kept")
	}
	// AttachCodes on a float index switches traversal to the codes.
	plain := smallIndex(t, 200, dim, Config{Metric: engine.L2, Workers: 1})
	c2 := &roundedCodes{dim: dim, metric: engine.L2}
	if err := plain.AttachCodes(c2); err != nil || c2.Len() != 200 {
		t.Fatalf("AttachCodes: %v", err)
	}
	if _, _, err := plain.Query(q, engine.Request{K: 3, Breadth: 20}); err != nil || c2.scored == 0 {
		t.Fatalf("search after AttachCodes did not use the codes: %v", err)
	}
}
