// Package indextest is the conformance suite every veclab index passes: it
// builds the index under test on seeded clustered data for each metric and
// checks it against exact search (engine/flat) — a recall floor, sorted and
// well-formed results, allow-list filters, the bad-input errors of package
// engine, an empty index, a save/load round trip when the index supports
// one, and, for an engine.Index adapted with [Contract], the shared bound
// of engine.Request: pruned against where the index says it supports it
// ([Options].Bound), ignored otherwise. It is used from tests only (it
// imports testing), in the spirit of testing/fstest.TestFS.
//
//	func TestConformance(t *testing.T) {
//		indextest.Run(t, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
//			… build an index over vs, row i under dense id i …
//		})
//	}
package indextest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

// Searchable is the small, non-generic view of an index the suite needs.
// Result ids must be row numbers of the matrix the index was built from.
type Searchable interface {
	Len() int
	// Search returns up to k results, nearest first, allowed by allow (nil:
	// all). Its breadth (ef, probes…) is the adapter's choice.
	Search(q []float32, k int, allow engine.Filter) ([]engine.Result, error)
}

// Reloadable is implemented by indexes that persist: Reload saves the index
// and returns the loaded copy.
type Reloadable interface {
	Reload() (Searchable, error)
}

// BuildFunc builds the index under test over vs (row i is dense id i).
// vs may have zero rows: the index must then report engine.ErrEmpty.
type BuildFunc func(t *testing.T, dim int, metric engine.Metric, vs *vec.Matrix) Searchable

// Options tune the suite.
type Options struct {
	// MinRecall is the recall@10 floor, unfiltered and with a 10 % filter.
	// Default 0.9.
	MinRecall float64
	// ApproxDistances skips checking result distances against exact ones
	// (for indexes that return quantized distances).
	ApproxDistances bool
	// N, Dim and Queries size the data; defaults 1500, 24, 30.
	N, Dim, Queries int
	// Bound says the index prunes against engine.Request.Bound (hnsw):
	// for an index adapted with Contract and a breadth ef, a search with a
	// bound pre-filled by the query's exact ef nearest distances must
	// compute fewer distances than one without and keep recall@10 at
	// MinRecall. Without it, an index under Contract must ignore a bound:
	// the same results with it as without.
	Bound bool
}

// Run runs the suite with default options.
func Run(t *testing.T, build BuildFunc) { RunWith(t, Options{}, build) }

// RunWith runs the suite.
func RunWith(t *testing.T, o Options, build BuildFunc) {
	if o.MinRecall == 0 {
		o.MinRecall = 0.9
	}
	if o.N == 0 {
		o.N = 1500
	}
	if o.Dim == 0 {
		o.Dim = 24
	}
	if o.Queries == 0 {
		o.Queries = 30
	}
	metrics := []engine.Metric{engine.Cosine, engine.Dot, engine.L2}
	if testenv.ShrinkUnderRace(t, "one metric: the metric picks a distance function, not a goroutine, and the concurrent-search check runs on it") {
		metrics = metrics[1:2] // Dot: no normalisation, the plainest path
	}
	for _, m := range metrics {
		t.Run(m.String(), func(t *testing.T) { runMetric(t, o, m, build) })
	}
	t.Run("empty", func(t *testing.T) {
		ix := build(t, o.Dim, engine.L2, vec.NewMatrix(0, o.Dim))
		q := make([]float32, o.Dim)
		q[0] = 1
		if _, err := ix.Search(q, 5, nil); !errors.Is(err, engine.ErrEmpty) {
			t.Fatalf("search of an empty index: got %v, want engine.ErrEmpty", err)
		}
	})
}

// Clustered returns n vectors of dim components around c Gaussian centres
// (not normalised, so Dot and L2 differ from Cosine), seeded.
func Clustered(n, dim, c int, seed uint64) *vec.Matrix {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	centres := make([]float64, c*dim)
	for i := range centres {
		centres[i] = r.NormFloat64()
	}
	m := vec.NewMatrix(n, dim)
	for i := 0; i < n; i++ {
		ci := r.IntN(c)
		scale := 0.5 + r.Float64()
		row := m.Row(i)
		for j := range row {
			row[j] = float32(scale * (centres[ci*dim+j] + 0.6*r.NormFloat64()))
		}
	}
	return m
}

func runMetric(t *testing.T, o Options, m engine.Metric, build BuildFunc) {
	const k = 10
	all := Clustered(o.N+o.Queries, o.Dim, 12, uint64(17+m))
	base := &vec.Matrix{N: o.N, Dim: o.Dim, Stride: o.Dim, Data: all.Data[:o.N*o.Dim]}
	queries := &vec.Matrix{N: o.Queries, Dim: o.Dim, Stride: o.Dim, Data: all.Data[o.N*o.Dim:]}
	exact, err := flat.New(base, flat.Config{Metric: m})
	if err != nil {
		t.Fatal(err)
	}
	ix := build(t, o.Dim, m, base)
	if ix.Len() != o.N {
		t.Fatalf("Len() = %d after building %d vectors", ix.Len(), o.N)
	}
	allow := engine.NewBitset(o.N)
	for i := 0; i < o.N; i += 10 {
		allow.Set(engine.ID(i))
	}
	check := func(t *testing.T, ix Searchable, allow engine.Filter) float64 {
		var sum float64
		for i := 0; i < o.Queries; i++ {
			q := queries.Row(i)
			got, err := ix.Search(q, k, allow)
			if err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
			want, _, err := exact.Search(q, k, allow)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("query %d: %d results, want %d", i, len(got), len(want))
			}
			if msg := wellFormed(got, o.N, allow); msg != "" {
				t.Fatalf("query %d: %s", i, msg)
			}
			if !o.ApproxDistances {
				for j, r := range got {
					ex, _, _ := exact.SearchIDs(q, 1, []engine.ID{r.ID})
					if len(ex) != 1 || math.Abs(float64(ex[0].Dist-r.Dist)) > 1e-3*math.Max(1, math.Abs(float64(r.Dist))) {
						t.Fatalf("query %d result %d: id %d distance %v, exact %v", i, j, r.ID, r.Dist, ex)
					}
				}
			}
			sum += recall(got, want)
		}
		return sum / float64(o.Queries)
	}
	t.Run("recall", func(t *testing.T) {
		r := check(t, ix, nil)
		t.Logf("recall@%d = %.3f", k, r)
		if r < o.MinRecall {
			t.Fatalf("recall@%d = %.3f, floor %.2f", k, r, o.MinRecall)
		}
	})
	t.Run("filter", func(t *testing.T) {
		r := check(t, ix, allow)
		t.Logf("recall@%d with a 10%% allow-list = %.3f", k, r)
		if r < o.MinRecall {
			t.Fatalf("recall@%d with a 10%% allow-list = %.3f, floor %.2f", k, r, o.MinRecall)
		}
		none := engine.FilterFunc(func(engine.ID) bool { return false })
		got, err := ix.Search(queries.Row(0), k, none)
		if err != nil || len(got) != 0 {
			t.Fatalf("allow-nothing filter: %d results, %v", len(got), err)
		}
	})
	if c, ok := ix.(contract); ok {
		// One validation for every index (engine.Request.Validate), and
		// index-specific Params of a type the index does not know refused.
		t.Run("request", func(t *testing.T) {
			type unknown struct{}
			for _, r := range []engine.Request{{K: 0}, {K: k, Breadth: -1}, {K: k, Params: unknown{}}} {
				if _, _, err := c.ix.Query(queries.Row(0), r); !errors.Is(err, engine.ErrInvalidArgument) {
					t.Errorf("request %+v: err %v, want engine.ErrInvalidArgument", r, err)
				}
			}
		})
		t.Run("bound", func(t *testing.T) { checkBound(t, o, c, exact, queries, k) })
		// engine.Index promises Query is safe for concurrent use with
		// itself: four goroutines answer as one does (and -race watches).
		t.Run("concurrent", func(t *testing.T) {
			want := make([]string, 2*o.Queries)
			ask := func(i int) string {
				var f engine.Filter
				if i%2 == 1 {
					f = allow
				}
				res, _, err := c.ix.Query(queries.Row(i/2), engine.Request{K: k, Breadth: c.breadth, Filter: f})
				return fmt.Sprint(res, err)
			}
			for i := range want {
				want[i] = ask(i)
			}
			var wg sync.WaitGroup
			errs := make(chan string, 4)
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range want {
						j := (i + g*7) % len(want)
						if got := ask(j); got != want[j] {
							errs <- fmt.Sprintf("query %d from goroutine %d: %s, alone %s", j, g, got, want[j])
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
	t.Run("bad input", func(t *testing.T) {
		q := queries.Row(0)
		nan := append([]float32(nil), q...)
		nan[1] = float32(math.NaN())
		inf := append([]float32(nil), q...)
		inf[0] = float32(math.Inf(-1))
		cases := []struct {
			name string
			q    []float32
			k    int
			want error
		}{
			{"short query", q[:o.Dim-1], k, engine.ErrDimension},
			{"long query", append(append([]float32(nil), q...), 1), k, engine.ErrDimension},
			{"NaN", nan, k, engine.ErrInvalidVector},
			{"Inf", inf, k, engine.ErrInvalidVector},
			{"k = 0", q, 0, engine.ErrInvalidArgument},
			{"k < 0", q, -3, engine.ErrInvalidArgument},
		}
		if m == engine.Cosine {
			cases = append(cases, struct {
				name string
				q    []float32
				k    int
				want error
			}{"zero query", make([]float32, o.Dim), k, engine.ErrZeroVector})
		}
		for _, c := range cases {
			if _, err := ix.Search(c.q, c.k, nil); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
		}
		if ix.Len() != o.N {
			t.Fatal("bad queries changed the index")
		}
	})
	if rl, ok := ix.(Reloadable); ok {
		t.Run("reload", func(t *testing.T) {
			ld, err := rl.Reload()
			if err != nil {
				t.Fatal(err)
			}
			if ld.Len() != ix.Len() {
				t.Fatalf("reloaded Len %d, want %d", ld.Len(), ix.Len())
			}
			for i := 0; i < o.Queries; i++ {
				a, err1 := ix.Search(queries.Row(i), k, nil)
				b, err2 := ld.Search(queries.Row(i), k, nil)
				if err1 != nil || err2 != nil || fmt.Sprint(a) != fmt.Sprint(b) {
					t.Fatalf("query %d: reloaded index answers %v (%v), original %v (%v)", i, b, err2, a, err1)
				}
			}
		})
	}
}

func wellFormed(rs []engine.Result, n int, allow engine.Filter) string {
	seen := map[engine.ID]bool{}
	for i, r := range rs {
		if int(r.ID) >= n {
			return fmt.Sprintf("result %d: id %d out of range", i, r.ID)
		}
		if seen[r.ID] {
			return fmt.Sprintf("result %d: id %d twice", i, r.ID)
		}
		seen[r.ID] = true
		if allow != nil && !allow.Allowed(r.ID) {
			return fmt.Sprintf("result %d: id %d not allowed", i, r.ID)
		}
		if i > 0 && rs[i-1].Dist > r.Dist {
			return fmt.Sprintf("results not sorted at %d", i)
		}
		if math.IsNaN(float64(r.Dist)) {
			return fmt.Sprintf("result %d: NaN distance", i)
		}
	}
	return ""
}

func recall(got, want []engine.Result) float64 {
	if len(want) == 0 {
		return 1
	}
	set := map[engine.ID]bool{}
	for _, r := range want {
		set[r.ID] = true
	}
	hit := 0
	for _, r := range got {
		if set[r.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// Contract adapts any [engine.Index] to the suite: searches go through
// Query with the given breadth (0: the index's default), so the suite
// checks the one contract every index satisfies.
func Contract(ix engine.Index, breadth int) Searchable { return contract{ix, breadth} }

type contract struct {
	ix      engine.Index
	breadth int
}

func (c contract) Len() int { return c.ix.Len() }
func (c contract) Search(q []float32, k int, allow engine.Filter) ([]engine.Result, error) {
	res, _, err := c.ix.Query(q, engine.Request{K: k, Breadth: c.breadth, Filter: allow})
	return res, err
}

// checkBound searches every query with and without a bound holding the
// exact ef nearest distances (what the other segments of a collection
// would have offered at best): an index that prunes against it must save
// distance computations without losing recall; one that does not must
// answer the same.
func checkBound(t *testing.T, o Options, c contract, exact *flat.Index, queries *vec.Matrix, k int) {
	msg, log := boundCheck(o, c, exact, queries, k)
	if log != "" {
		t.Log(log)
	}
	if msg != "" {
		t.Fatal(msg)
	}
}

// boundCheck is checkBound's work: it returns what failed ("" if
// nothing) and what to log.
func boundCheck(o Options, c contract, exact *flat.Index, queries *vec.Matrix, k int) (msg, log string) {
	ef := c.breadth
	if ef == 0 {
		if o.Bound {
			return "Options.Bound needs Contract with a breadth (the bound is sized ef)", ""
		}
		ef = k
	}
	var plain, bounded int
	var rec float64
	for i := 0; i < queries.N; i++ {
		q := queries.Row(i)
		want, _, err := exact.Search(q, max(ef, k), nil)
		if err != nil {
			return err.Error(), ""
		}
		b := engine.NewBound(ef)
		for _, r := range want[:min(ef, len(want))] {
			b.Offer(r.Dist)
		}
		r1, s1, err1 := c.ix.Query(q, engine.Request{K: k, Breadth: c.breadth})
		r2, s2, err2 := c.ix.Query(q, engine.Request{K: k, Breadth: c.breadth, Bound: b})
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("query %d: %v / with a bound: %v", i, err1, err2), ""
		}
		if msg := wellFormed(r2, exact.Len(), nil); msg != "" {
			return fmt.Sprintf("query %d with a bound: %s", i, msg), ""
		}
		if !o.Bound && fmt.Sprint(r1) != fmt.Sprint(r2) {
			return fmt.Sprintf("query %d: an index that ignores the bound answers %v with it, %v without", i, r2, r1), ""
		}
		plain += s1.DistComps
		bounded += s2.DistComps
		rec += recall(r2, want[:min(k, len(want))])
	}
	rec /= float64(queries.N)
	if !o.Bound {
		return "", ""
	}
	log = fmt.Sprintf("distance computations per query: %.1f without a bound, %.1f with the exact top-%d (recall@%d %.3f)",
		float64(plain)/float64(queries.N), float64(bounded)/float64(queries.N), ef, k, rec)
	if bounded >= plain {
		return fmt.Sprintf("a bound of the exact top-%d saved nothing: %d distance computations, %d without", ef, bounded, plain), log
	}
	if rec < o.MinRecall {
		return fmt.Sprintf("recall@%d with the bound %.3f, floor %.2f", k, rec, o.MinRecall), log
	}
	return "", log
}
