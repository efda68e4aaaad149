package filtered

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// fixture: 3,000 clustered unit vectors of 32 dims; metadata: category
// c0…c7 tied to the cluster, bucket 0…999 uniform (selectivity knob),
// year 2015…2025.
type fixture struct {
	vectors *vec.Matrix
	queries *vec.Matrix
	store   *filter.Store // indexed
	plain   *filter.Store // same metadata, no payload index
	coll    *Collection
	plainC  *Collection
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

func clustered(n, dim, c int, seed uint64) (*vec.Matrix, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, c)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
	}
	m := vec.NewMatrix(n, dim)
	cl := make([]int, n)
	for i := 0; i < n; i++ {
		cl[i] = rng.IntN(c)
		row := m.Row(i)
		for j := range row {
			row[j] = float32(centres[cl[i]][j] + 0.8*rng.NormFloat64())
		}
		if err := vec.Normalize(row); err != nil {
			panic(err)
		}
	}
	return m, cl
}

func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixOnce.Do(func() {
		const n, dim = 3000, 32
		vs, cl := clustered(n+20, dim, 16, 1)
		f := &fixture{vectors: &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: vs.Data[:n*dim]},
			queries: &vec.Matrix{N: 20, Dim: dim, Stride: dim, Data: vs.Data[n*dim:]}}
		rng := rand.New(rand.NewPCG(2, 2))
		docs := make([]filter.Doc, n)
		for i := range docs {
			docs[i] = filter.Doc{Key: fmt.Sprint(i), Meta: map[string]any{
				"category": fmt.Sprintf("c%d", cl[i]%8), "bucket": rng.IntN(1000), "year": 2015 + rng.IntN(11)}}
		}
		fields := []filter.Field{{Name: "category", Kind: filter.KindKeyword, Indexed: true}, {Name: "bucket", Kind: filter.KindInteger, Indexed: true}, {Name: "year", Kind: filter.KindInteger, Indexed: true}}
		if f.store, fixErr = filter.NewStore(filter.Schema{Fields: fields}); fixErr != nil {
			return
		}
		if f.plain, fixErr = filter.NewStore(filter.Schema{}); fixErr != nil {
			return
		}
		if _, fixErr = f.store.Add(docs...); fixErr != nil {
			return
		}
		if _, fixErr = f.plain.Add(docs...); fixErr != nil {
			return
		}
		g, err := hnsw.New(hnsw.Config{Dim: dim, M: 16, EfConstruction: 100, Workers: 1, Seed: 3})
		if err != nil {
			fixErr = err
			return
		}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(i)
		}
		if fixErr = g.AddBatch(keys, f.vectors); fixErr != nil {
			return
		}
		// MinSelectivity below the default 1/γ so that the tests walk the
		// graph at 10 % and 2 % too.
		ac, err := BuildACORN(f.vectors, engine.Cosine, ACORNConfig{M: 16, Gamma: 4, Seed: 4, MinSelectivity: 0.01})
		if err != nil {
			fixErr = err
			return
		}
		if f.coll, fixErr = New(f.vectors, f.store, Options{Graph: g, ACORN: ac}); fixErr != nil {
			return
		}
		f.plainC, fixErr = New(f.vectors, f.plain, Options{Graph: g, ACORN: ac})
		fix = f
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

func truth(t testing.TB, c *Collection, q []float32, f *filter.Compiled, k int) []engine.Result {
	t.Helper()
	rs, _, err := c.Search(Request{Query: q, K: k, Filter: f, Strategy: Exact})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func recall(got, want []engine.Result) float64 {
	if len(want) == 0 {
		return 1
	}
	in := map[engine.ID]bool{}
	for _, r := range want {
		in[r.ID] = true
	}
	h := 0
	for _, r := range got {
		if in[r.ID] {
			h++
		}
	}
	return float64(h) / float64(len(want))
}

func TestExactIsBruteForce(t *testing.T) {
	fx := getFixture(t)
	f, err := fx.store.CompileString(`category == 'c3' && bucket < 500`)
	if err != nil {
		t.Fatal(err)
	}
	q := fx.queries.Row(0)
	got := truth(t, fx.coll, q, f, 10)
	// independent brute force
	type pair struct {
		id engine.ID
		d  float64
	}
	best := []pair{}
	for i := 0; i < fx.vectors.N; i++ {
		if !f.Allowed(engine.ID(i)) {
			continue
		}
		var dot float64
		for j, x := range fx.vectors.Row(i) {
			dot += float64(x) * float64(q[j])
		}
		best = append(best, pair{engine.ID(i), -dot})
	}
	for i := 0; i < 10; i++ { // selection of the 10 smallest
		m := i
		for j := i + 1; j < len(best); j++ {
			if best[j].d < best[m].d {
				m = j
			}
		}
		best[i], best[m] = best[m], best[i]
		if got[i].ID != best[i].id {
			t.Fatalf("rank %d: exact %d, brute force %d", i, got[i].ID, best[i].id)
		}
	}
}

// TestStrategies checks each strategy's defining property over 50 queries.
func TestStrategies(t *testing.T) {
	fx := getFixture(t)
	const k = 10
	filters := []struct {
		name string
		text string
	}{
		{"sel50", `bucket < 500`},
		{"sel10", `bucket < 100`},
		{"sel2", `bucket < 20`},
		{"category", `category == 'c3' && year >= 2022`},
	}
	for _, fl := range filters {
		for _, coll := range []struct {
			name string
			c    *Collection
			s    *filter.Store
		}{{"indexed", fx.coll, fx.store}, {"payload", fx.plainC, fx.plain}} {
			cf, err := coll.s.CompileString(fl.text)
			if err != nil {
				t.Fatal(err)
			}
			matching := len(cf.IDs())
			sel := float64(matching) / float64(fx.vectors.N)
			strats := []Strategy{PostFilter, IterativeRelaxed, IterativeStrict, InGraph, QdrantPlanner, RedisHybrid, ACORNGamma, ACORN1}
			if coll.name == "payload" { // slow: every check decodes msgpack
				strats = []Strategy{PostFilter, InGraph, QdrantPlanner}
			}
			for _, strat := range strats {
				t.Run(fmt.Sprintf("%s/%s/%s", fl.name, coll.name, strat), func(t *testing.T) {
					var rec, hits float64
					for qi := 0; qi < fx.queries.N; qi++ {
						q := fx.queries.Row(qi)
						want := truth(t, coll.c, q, cf, k)
						got, st, err := coll.c.Search(Request{Query: q, K: k, Filter: cf, Strategy: strat, Params: Params{Ef: 40, FullScanThreshold: qdrantThreshold(coll.c)}})
						if err != nil {
							t.Fatal(err)
						}
						for i, r := range got {
							if !cf.Allowed(r.ID) {
								t.Fatalf("query %d: result %d not allowed by the filter", qi, r.ID)
							}
							if strat != IterativeRelaxed && i > 0 && r.Dist < got[i-1].Dist {
								t.Fatalf("query %d: results out of order at %d", qi, i)
							}
						}
						if strat == PostFilter && len(got) > k {
							t.Fatalf("postfilter returned %d", len(got))
						}
						if coll.name == "indexed" && strat != QdrantPlanner && st.PayloadChecks != 0 {
							t.Fatalf("indexed filter decoded %d payloads", st.PayloadChecks)
						}
						if coll.name == "payload" && strat != PostFilter && st.PayloadChecks == 0 {
							t.Fatalf("unindexed filter decoded no payloads")
						}
						if st.DistComps == 0 || st.Elapsed <= 0 {
							t.Fatalf("stats not counted: %+v", st)
						}
						rec += recall(got, want)
						hits += float64(len(got))
					}
					rec /= float64(fx.queries.N)
					hits /= float64(fx.queries.N)
					switch strat {
					case PostFilter:
						// ef 40 nearest, then the filter: about 40·s hits.
						if hits > 40*sel*2.5+1 {
							t.Errorf("postfilter mean hits %.1f, want ≈ 40·%.3f", hits, sel)
						}
					case QdrantPlanner, RedisHybrid:
						if rec < 0.9 {
							t.Errorf("recall %.3f < 0.9", rec)
						}
					case IterativeRelaxed, IterativeStrict, InGraph, ACORNGamma, ACORN1:
						if hits < k-0.01 {
							t.Errorf("mean hits %.2f < %d", hits, k)
						}
					}
					if strat == InGraph || strat == ACORNGamma || strat == ACORN1 {
						// ef 40 on the category filter (correlated with the
						// clusters) leaves ACORN-γ in the wrong cluster for
						// some queries; ACORN's recall is asserted at ef 100.
						if rec < 0.85 && !(strat == ACORNGamma && fl.name == "category") {
							t.Errorf("recall %.3f < 0.85", rec)
						}
					}
					t.Logf("recall %.3f hits %.2f (selectivity %.3f)", rec, hits, sel)
				})
			}
		}
	}
}

func TestPlannerPaths(t *testing.T) {
	fx := getFixture(t)
	q := fx.queries.Row(1)
	cases := []struct {
		coll *Collection
		s    *filter.Store
		text string
		p    Params
		want Strategy
	}{
		// threshold 10,000 KB / 128 B = 80,000 vectors > 3,000: exact
		{fx.coll, fx.store, `bucket < 500`, Params{FullScanThreshold: qdrantThreshold(fx.coll)}, Exact},
		{fx.coll, fx.store, `bucket < 500`, Params{FullScanThreshold: 500}, QdrantGraph},
		{fx.coll, fx.store, `bucket < 100`, Params{FullScanThreshold: 500}, Exact},
		// no index: unknown cardinality → sampling decides
		{fx.plainC, fx.plain, `bucket < 500`, Params{FullScanThreshold: 500}, QdrantGraph},
		{fx.plainC, fx.plain, `bucket < 50`, Params{FullScanThreshold: 500}, Exact},
	}
	for i, c := range cases {
		cf, err := c.s.CompileString(c.text)
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := c.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: QdrantPlanner, Params: c.p})
		if err != nil {
			t.Fatal(err)
		}
		if st.Path != c.want {
			t.Errorf("case %d (%s, %v): path %v, want %v", i, c.text, c.p.FullScanThreshold, st.Path, c.want)
		}
	}
	// Redis: N = 3,000 ≤ 5,500 → always ad hoc unless forced.
	cf, _ := fx.store.CompileString(`bucket < 500`)
	_, st, _ := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: RedisHybrid})
	if st.Path != RedisAdHoc {
		t.Errorf("redis path %v, want ad hoc", st.Path)
	}
	got, st, _ := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: RedisHybrid, Params: Params{RedisPolicy: "batches"}})
	if st.Path != RedisBatches || st.Batches == 0 || len(got) != 10 {
		t.Errorf("forced batches: path %v batches %d hits %d", st.Path, st.Batches, len(got))
	}
}

func TestPreferAdHocSearch(t *testing.T) {
	cases := []struct {
		n, subset, k, dim, m int
		want                 bool
	}{
		{5000, 4000, 10, 384, 16, true},       // ≤ 5,500
		{30000, 1328, 10, 384, 16, true},      // ≤ 30,000, r ≤ 0.17: the article's case
		{30000, 15000, 10, 384, 16, true},     // r > 0.17, k ≤ 12, d > 55, M > 10
		{30000, 15000, 10, 384, 8, false},     // … M ≤ 10
		{30000, 15000, 10, 32, 16, false},     // … d ≤ 55
		{100000, 5000, 10, 384, 16, true},     // > 30,000, r < 0.07, ≤ 750,000
		{100000, 50000, 10, 64, 16, false},    // r ≥ 0.07, d ≤ 75
		{100000, 10000, 10, 384, 16, false},   // r ≤ 0.21, M ≤ 57, size > 75,000
		{1000000, 20000, 10, 384, 16, true},   // > 750,000, k > 7, r ≤ 0.03
		{1000000, 50000, 5, 384, 16, false},   // > 750,000, k ≤ 7
		{1000000, 500000, 20, 384, 16, false}, // k > 12, M > 10, size > 300,000, r > 0.17
	}
	for i, c := range cases {
		if got := preferAdHocSearch(c.n, c.subset, c.k, c.dim, c.m); got != c.want {
			t.Errorf("case %d %+v: got %v", i, c, got)
		}
	}
}

func TestIterativeLimits(t *testing.T) {
	fx := getFixture(t)
	cf, _ := fx.store.CompileString(`bucket < 2`) // 0.2 %: the scan has to go far
	q := fx.queries.Row(2)
	_, st, err := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: IterativeRelaxed, Params: Params{MaxScanTuples: 200}})
	if err != nil {
		t.Fatal(err)
	}
	full, stFull, _ := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: IterativeRelaxed})
	if st.Visited >= stFull.Visited {
		t.Errorf("max_scan_tuples 200 visited %d, default %d", st.Visited, stFull.Visited)
	}
	if len(full) == 0 {
		t.Error("iterative scan found nothing at 0.2 %")
	}
	// memory cap: 1 KB of work_mem stops exploring after the first batch
	_, stMem, _ := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: IterativeRelaxed, Params: Params{WorkMemKB: 1}})
	if stMem.Batches != 1 {
		t.Errorf("work_mem 1 KB ran %d batches", stMem.Batches)
	}
	// strict order never emits decreasing distances
	got, _, _ := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: IterativeStrict})
	for i := 1; i < len(got); i++ {
		if got[i].Dist < got[i-1].Dist {
			t.Fatal("strict order out of order")
		}
	}
}

func TestBadInput(t *testing.T) {
	fx := getFixture(t)
	q := fx.queries.Row(0)
	cf, _ := fx.store.CompileString(`bucket < 500`)
	none, _ := fx.store.CompileString(`bucket > 5000`)
	few, _ := fx.store.CompileString(`bucket == 7`)
	other, _ := filter.NewStore(filter.Schema{})
	other.Add(filter.Doc{Meta: map[string]any{"bucket": 1}})
	wrongLen, _ := other.CompileString(`bucket == 1`)
	nan := append([]float32(nil), q...)
	nan[3] = float32(math.NaN())
	errCases := []struct {
		name string
		r    Request
		want error
	}{
		{"k0", Request{Query: q, K: 0, Filter: cf}, engine.ErrInvalidArgument},
		{"dim", Request{Query: q[:5], K: 10, Filter: cf}, engine.ErrDimension},
		{"nan", Request{Query: nan, K: 10, Filter: cf}, engine.ErrInvalidVector},
		{"zero", Request{Query: make([]float32, 32), K: 10}, engine.ErrZeroVector},
		{"store", Request{Query: q, K: 10, Filter: wrongLen}, engine.ErrInvalidArgument},
		{"strategy", Request{Query: q, K: 10, Strategy: QdrantGraph}, engine.ErrInvalidArgument},
		{"params", Request{Query: q, K: 10, Params: Params{RedisPolicy: "adhoc_bf", RedisBatchSize: 5}}, engine.ErrInvalidArgument},
	}
	for _, c := range errCases {
		if _, _, err := fx.coll.Search(c.r); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	for s := Exact; s <= ACORN1; s++ {
		var p Params
		if s == QdrantPlanner { // Qdrant's default threshold, 10,000 KB of vectors: small sets are scanned exactly
			p.FullScanThreshold = qdrantThreshold(fx.coll)
		}
		got, _, err := fx.coll.Search(Request{Query: q, K: 10, Filter: none, Strategy: s, Params: p})
		if err != nil || len(got) != 0 {
			t.Errorf("%v, filter matching nothing: %d results, err %v", s, len(got), err)
		}
		n := len(few.IDs())
		got, _, err = fx.coll.Search(Request{Query: q, K: n + 5, Filter: few, Strategy: s, Params: p})
		if err != nil || len(got) > n {
			t.Errorf("%v, k > matching set (%d): %d results, err %v", s, n, len(got), err)
		}
		if s == Exact || s == QdrantPlanner || s == RedisHybrid || s == InGraph {
			if len(got) != n {
				t.Errorf("%v: %d of the %d matching documents", s, len(got), n)
			}
		}
	}
	// The engine holds no store's default: Qdrant's planner without its
	// threshold is refused, by Search and by a plan.
	if _, _, err := fx.coll.Search(Request{Query: q, K: 10, Filter: few, Strategy: QdrantPlanner}); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "FullScanThreshold") {
		t.Errorf("qdrant without full_scan_threshold: %v, want engine.ErrInvalidArgument naming FullScanThreshold", err)
	}
	if _, err := fx.coll.WithPlan(Plan{Strategy: QdrantPlanner}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("qdrant plan without full_scan_threshold: %v, want engine.ErrInvalidArgument", err)
	}
	if _, err := ParseStrategy("nope"); err == nil {
		t.Error("unknown strategy parsed")
	}
	for _, name := range Strategies() {
		if s, err := ParseStrategy(name); err != nil || s.String() != name {
			t.Errorf("round trip %q: %v %v", name, s, err)
		}
	}
	if _, err := New(fx.vectors, other, Options{}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("metadata count mismatch: %v", err)
	}
	if _, err := BuildACORN(fx.vectors, engine.Cosine, ACORNConfig{M: 1}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("ACORN M=1: %v", err)
	}
}

func TestACORNGraph(t *testing.T) {
	fx := getFixture(t)
	a := fx.coll.acorn
	cfg := a.Config()
	if cfg.M != 16 || cfg.Gamma != 4 || cfg.MBeta != 32 {
		t.Fatalf("config %v", cfg)
	}
	deg := a.MeanDegree()
	if deg <= float64(cfg.M) || deg > float64(cfg.M*cfg.Gamma) {
		t.Fatalf("mean layer-0 degree %.1f outside (M, M·γ]", deg)
	}
	for id := 0; id < a.Len(); id++ {
		ds := a.dists[id][0]
		for i := 1; i < len(ds); i++ {
			if ds[i] < ds[i-1] {
				t.Fatalf("node %d list not sorted", id)
			}
		}
		for _, n := range a.Neighbors(0, engine.ID(id)) {
			if int(n) == id {
				t.Fatalf("node %d links to itself", id)
			}
		}
	}
	// Deterministic: same seed, same graph.
	b, err := BuildACORN(fx.vectors, engine.Cosine, ACORNConfig{M: 16, Gamma: 4, Seed: 4, MinSelectivity: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for id := 0; id < a.Len(); id++ {
		x, y := a.Neighbors(0, engine.ID(id)), b.Neighbors(0, engine.ID(id))
		if len(x) != len(y) {
			t.Fatalf("node %d: rebuild differs", id)
		}
		for i := range x {
			if x[i] != y[i] {
				t.Fatalf("node %d: rebuild differs", id)
			}
		}
	}
}

// TestACORNNeighbourhood runs the three readings of ACORN's filtered
// neighbourhood (the authors' code, the paper's fixed set, the lab's
// new-only) on the same graphs: each returns k allowed, ordered hits at a
// recall floor, and new-only, which looks further for unvisited members,
// computes at least as many distances as the authors'. (The fixture is
// too small to separate their recall; `veclab bench filter -acorn-nbhd
// paper,new-only` at 30,000 × 384 does: ACORN-γ at 50 %, ef 40, 0.769 /
// 0.886 / 0.980.)
func TestACORNNeighbourhood(t *testing.T) {
	fx := getFixture(t)
	const k = 10
	modes := []ACORNNeighbourhood{ACORNAuthors, ACORNPaper, ACORNNewOnly}
	cases := []struct {
		name   string
		text   string
		strat  Strategy
		ef     int
		minRec [3]float64 // by mode
	}{
		{"gamma/sel50", `bucket < 500`, ACORNGamma, 40, [3]float64{0.93, 0.93, 0.93}},
		{"gamma/sel10", `bucket < 100`, ACORNGamma, 40, [3]float64{0.93, 0.93, 0.93}},
		{"acorn1/sel50", `bucket < 500`, ACORN1, 40, [3]float64{0.93, 0.93, 0.93}},
		{"acorn1/sel10", `bucket < 100`, ACORN1, 40, [3]float64{0.93, 0.93, 0.93}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cf, err := fx.store.CompileString(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			var rec [3]float64
			var dc [3]int
			for qi := 0; qi < fx.queries.N; qi++ {
				q := fx.queries.Row(qi)
				want := truth(t, fx.coll, q, cf, k)
				for v, mode := range modes {
					got, st, err := fx.coll.Search(Request{Query: q, K: k, Filter: cf, Strategy: tc.strat, Params: Params{Ef: tc.ef, ACORNNeighbourhood: mode}})
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != k {
						t.Fatalf("query %d %v: %d hits", qi, mode, len(got))
					}
					for i, r := range got {
						if !cf.Allowed(r.ID) || i > 0 && r.Dist < got[i-1].Dist {
							t.Fatalf("query %d %v: hit %d not allowed or out of order", qi, mode, i)
						}
					}
					rec[v] += recall(got, want)
					dc[v] += st.DistComps
				}
			}
			for v, mode := range modes {
				rec[v] /= float64(fx.queries.N)
				if rec[v] < tc.minRec[v] {
					t.Errorf("%v neighbourhood recall %.3f < %.2f", mode, rec[v], tc.minRec[v])
				}
			}
			// New-only looks further for new nodes: at least as many distances.
			if dc[2] < dc[0] {
				t.Errorf("new-only computed %d distances, the authors' %d", dc[2], dc[0])
			}
			t.Logf("recall authors %.3f paper %.3f new-only %.3f; distances %d / %d / %d", rec[0], rec[1], rec[2], dc[0], dc[1], dc[2])
		})
	}
	for _, name := range []string{"authors", "paper", "new-only"} {
		n, err := ParseACORNNeighbourhood(name)
		if err != nil || n.String() != name {
			t.Errorf("ParseACORNNeighbourhood(%q) = %v, %v", name, n, err)
		}
	}
	if _, err := ParseACORNNeighbourhood("fixed"); err == nil {
		t.Error("ParseACORNNeighbourhood(fixed) accepted")
	}
	if err := (Params{ACORNNeighbourhood: 7}).Validate(); err == nil {
		t.Error("Params with ACORN neighbourhood 7 validated")
	}
}

// TestACORNMinSelectivity: below s_min (default 1/γ) ACORN-γ pre-filters —
// exact search over the matching set, recall 1 — and walks its graph above.
func TestACORNMinSelectivity(t *testing.T) {
	fx := getFixture(t)
	if got := (ACORNConfig{Gamma: 4}).WithDefaults().MinSelectivity; got != 0.25 {
		t.Fatalf("default min selectivity at γ 4: %v, want 1/γ", got)
	}
	ac, err := BuildACORN(fx.vectors, engine.Cosine, ACORNConfig{M: 16, Gamma: 4, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(fx.vectors, fx.store, Options{ACORN: ac})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		path Strategy
	}{
		{`bucket < 500`, ACORNGamma},
		{`bucket < 300`, ACORNGamma},
		{`bucket < 200`, Exact},
		{`bucket < 20`, Exact},
	} {
		cf, err := fx.store.CompileString(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		q := fx.queries.Row(0)
		got, st, err := c.Search(Request{Query: q, K: 10, Filter: cf, Strategy: ACORNGamma})
		if err != nil {
			t.Fatal(err)
		}
		if st.Path != tc.path {
			t.Errorf("%s: path %v, want %v", tc.text, st.Path, tc.path)
		}
		if tc.path == Exact {
			if r := recall(got, truth(t, c, q, cf, 10)); r != 1 {
				t.Errorf("%s: pre-filter recall %v", tc.text, r)
			}
		}
	}
}

// TestACORNPredicateAgnostic: ACORN over a filter with no payload index asks
// the stored payloads, each node at most once per query however many
// two-hop neighbourhoods it is met in, and finds what it finds with the
// index.
func TestACORNPredicateAgnostic(t *testing.T) {
	fx := getFixture(t)
	const k = 10
	for _, tc := range []struct {
		text      string
		strat     Strategy
		ef        int
		minRecall float64
	}{
		{`bucket < 100`, ACORN1, 40, 0.9},
		{`bucket < 100`, ACORNGamma, 40, 0.9},
		{`bucket < 20`, ACORN1, 100, 0.8},
		{`bucket < 20`, ACORNGamma, 100, 0.8},
	} {
		t.Run(fmt.Sprintf("%s/%s/ef%d", tc.text, tc.strat, tc.ef), func(t *testing.T) {
			cf, err := fx.plain.CompileString(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			icf, err := fx.store.CompileString(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			var rec, checks float64
			for qi := 0; qi < fx.queries.N; qi++ {
				q := fx.queries.Row(qi)
				want := truth(t, fx.coll, q, icf, k)
				p := Params{Ef: tc.ef}
				got, st, err := fx.plainC.Search(Request{Query: q, K: k, Filter: cf, Strategy: tc.strat, Params: p})
				if err != nil {
					t.Fatal(err)
				}
				if st.Path != tc.strat {
					t.Fatalf("path %v, want %v (no index: no selectivity estimate, no pre-filtering)", st.Path, tc.strat)
				}
				if st.PayloadChecks == 0 || st.PayloadChecks > fx.vectors.N {
					t.Fatalf("query %d: %d payload checks, want 1…%d (each node once)", qi, st.PayloadChecks, fx.vectors.N)
				}
				for _, r := range got {
					if !icf.Allowed(r.ID) {
						t.Fatalf("query %d: result %d does not match", qi, r.ID)
					}
				}
				rec += recall(got, want)
				checks += float64(st.PayloadChecks)
			}
			rec /= float64(fx.queries.N)
			checks /= float64(fx.queries.N)
			t.Logf("recall %.3f, %.0f payload checks per query of %d documents", rec, checks, fx.vectors.N)
			if rec < tc.minRecall {
				t.Errorf("recall %.3f < %.2f", rec, tc.minRecall)
			}
		})
	}
}

// TestProbeEntries: the predicate-agnostic refill visits every id at most
// once (its stride is coprime with N) and returns only matching, newly
// visited nodes.
func TestProbeEntries(t *testing.T) {
	fx := getFixture(t)
	cf, err := fx.plain.CompileString(`bucket < 20`)
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	s := fx.plainC.newSearch(fx.queries.Row(0), cf, &st)
	defer fx.plainC.putSearch(s)
	for _, want := range []int{1, 7, 1000} {
		before := len(cf.IDs())
		eps := s.probeEntries(nil, want)
		if want <= before && len(eps) != min(want, before) {
			t.Errorf("want %d: found %d of %d matching", want, len(eps), before)
		}
		seen := map[engine.ID]bool{}
		for _, e := range eps {
			if !cf.Allowed(e.ID) || seen[e.ID] || !s.visited.Seen(e.ID) {
				t.Fatalf("want %d: entry %d matching %v, repeated %v, visited %v", want, e.ID, cf.Allowed(e.ID), seen[e.ID], s.visited.Seen(e.ID))
			}
			seen[e.ID] = true
		}
	}
	if got := gcd(12, 18); got != 6 {
		t.Errorf("gcd(12, 18) = %d", got)
	}
}

// qdrantThreshold is Qdrant's default full_scan_threshold, 10,000 KB of
// float32 vectors, in vectors of c's dimension (lab/profile's rule; the
// engine holds no store's default).
func qdrantThreshold(c *Collection) int { return 10000 * 1024 / (4 * c.Dim()) }
