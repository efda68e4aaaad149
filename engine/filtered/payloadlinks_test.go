package filtered

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// linksFixture: 4,000 clustered unit vectors of 32 dims (16 clusters) and
// 40 queries; metadata: tag t00…t24 uniform and independent of the vectors
// (4 % each, 160 points), category c0…c7 tied to the cluster, bucket
// 0…999 uniform (integer), parity even/odd (2,000 each: above the
// percolation bound), rare (integer, on 20 documents: a small block), all
// indexed, and note (not indexed). The main graph
// is M = 8 so that a 4 % filter leaves it badly disconnected.
type linksFixture struct {
	vectors, queries *vec.Matrix
	meta             *filter.Store
	graph            *hnsw.Index
	coll             *Collection
}

const linksThreshold = 100 // full_scan_threshold in vectors for the tests

var (
	linksOnce sync.Once
	linksFix  *linksFixture
	linksErr  error
)

func getLinksFixture(t testing.TB) *linksFixture {
	t.Helper()
	linksOnce.Do(func() {
		const n, nq, dim = 4000, 40, 32
		vs, cl := clustered(n+nq, dim, 16, 11)
		f := &linksFixture{vectors: &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: vs.Data[:n*dim]},
			queries: &vec.Matrix{N: nq, Dim: dim, Stride: dim, Data: vs.Data[n*dim:]}}
		rng := rand.New(rand.NewPCG(5, 5))
		docs := make([]filter.Doc, n)
		for i := range docs {
			docs[i] = filter.Doc{Meta: map[string]any{
				"tag": fmt.Sprintf("t%02d", rng.IntN(25)), "category": fmt.Sprintf("c%d", cl[i]%8), "bucket": rng.IntN(1000),
				"parity": []string{"even", "odd"}[i%2], "note": "x"}}
			if i%200 == 0 {
				docs[i].Meta["rare"] = i
			}
		}
		if f.meta, linksErr = filter.NewStore(filter.Schema{Fields: []filter.Field{
			{Name: "tag", Kind: filter.KindKeyword, Indexed: true},
			{Name: "category", Kind: filter.KindKeyword, Indexed: true},
			{Name: "bucket", Kind: filter.KindInteger, Indexed: true},
			{Name: "parity", Kind: filter.KindKeyword, Indexed: true},
			{Name: "rare", Kind: filter.KindInteger, Indexed: true}}}); linksErr != nil {
			return
		}
		if _, linksErr = f.meta.Add(docs...); linksErr != nil {
			return
		}
		if f.graph, linksErr = hnsw.New(hnsw.Config{Dim: dim, M: 8, EfConstruction: 64, Workers: 1, Seed: 3}); linksErr != nil {
			return
		}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(i)
		}
		if linksErr = f.graph.AddBatch(keys, f.vectors); linksErr != nil {
			return
		}
		f.coll, linksErr = New(f.graph.Vectors(), f.meta, Options{Graph: f.graph, M: 8})
		linksFix = f
	})
	if linksErr != nil {
		t.Fatal(linksErr)
	}
	return linksFix
}

// qdrantRecall runs the Qdrant strategy on every fixture query and returns
// the mean recall@10, distance computations and paths taken.
func qdrantRecall(t testing.TB, c *Collection, queries *vec.Matrix, text string, ef int) (rec, dists float64, paths map[Strategy]int) {
	t.Helper()
	cf, err := c.Meta().CompileString(text)
	if err != nil {
		t.Fatal(err)
	}
	paths = map[Strategy]int{}
	for i := 0; i < queries.N; i++ {
		q := queries.Row(i)
		got, st, err := c.Search(Request{Query: q, K: 10, Filter: cf, Strategy: QdrantPlanner,
			Params: Params{Ef: ef, FullScanThreshold: linksThreshold}})
		if err != nil {
			t.Fatal(err)
		}
		rec += recall(got, truth(t, c, q, cf, 10))
		dists += float64(st.DistComps)
		paths[st.Path]++
	}
	return rec / float64(queries.N), dists / float64(queries.N), paths
}

// TestPayloadLinksRecall: a selective block (4 %, above the threshold) of
// a field independent of the vectors leaves the Qdrant traversal (which
// drops non-matching neighbours) almost without a connected path; the
// block links restore it. Measured on this fixture at ef 40 (without →
// with): tag 0.010 → 1.000, bucket < 40 0.022 → 0.997, category == 'c2' &&
// bucket < 300 0.675 → 0.977. The bounds leave room below those figures.
func TestPayloadLinksRecall(t *testing.T) {
	fx := getLinksFixture(t)
	with, rep, err := fx.coll.WithPayloadLinks(PayloadLinksConfig{Threshold: linksThreshold, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	for _, tc := range []struct {
		filter        string
		minWith, gain float64 // recall with links ≥ minWith and ≥ without + gain
	}{
		{"tag == 't03'", 0.9, 0.6},
		{"tag == 't17'", 0.9, 0.6},
		{"bucket < 40", 0.9, 0.6},
		{"category == 'c2' && bucket < 300", 0.9, 0.15},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			r0, d0, p0 := qdrantRecall(t, fx.coll, fx.queries, tc.filter, 40)
			r1, d1, p1 := qdrantRecall(t, with, fx.queries, tc.filter, 40)
			t.Logf("without links recall %.3f dists %.0f %v; with %.3f dists %.0f %v", r0, d0, p0, r1, d1, p1)
			if p0[QdrantGraph] != fx.queries.N || p1[QdrantGraph] != fx.queries.N {
				t.Fatalf("planner paths %v / %v: want the filtered graph on every query (cardinality > threshold %d)", p0, p1, linksThreshold)
			}
			if r1 < tc.minWith || r1 < r0+tc.gain {
				t.Errorf("recall@10 with links %.3f, without %.3f: want ≥ %.2f and ≥ without + %.2f", r1, r0, tc.minWith, tc.gain)
			}
		})
	}
}

// TestPayloadLinksGraph checks the overlay: upper layers and entry are the
// main graph's; every layer-0 list starts with the main list, holds no
// duplicate, no self-link and no id out of range; the extra links counted
// in the report are the lists' growth.
func TestPayloadLinksGraph(t *testing.T) {
	fx := getLinksFixture(t)
	pg, err := BuildPayloadLinks(fx.vectors, engine.Cosine, fx.meta, fx.graph, PayloadLinksConfig{Threshold: linksThreshold, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Len() != fx.graph.Len() || pg.MaxLevel() != fx.graph.MaxLevel() || pg.EntryPoint() != fx.graph.EntryPoint() || pg.Base() != Graph(fx.graph) {
		t.Fatal("overlay does not keep the main graph's size, top level, entry point or base")
	}
	grown := 0
	for id := 0; id < pg.Len(); id++ {
		main, merged := fx.graph.Neighbors(0, engine.ID(id)), pg.Neighbors(0, engine.ID(id))
		if len(merged) < len(main) || !reflect.DeepEqual(merged[:len(main)], main) {
			t.Fatalf("node %d: merged list %v does not start with the main list %v", id, merged, main)
		}
		seen := map[engine.ID]bool{}
		for _, nb := range merged {
			if nb == engine.ID(id) || int(nb) >= pg.Len() || seen[nb] {
				t.Fatalf("node %d: bad link %d in %v", id, nb, merged)
			}
			seen[nb] = true
		}
		grown += len(merged) - len(main)
		for l := 1; l <= fx.graph.Level(engine.ID(id)); l++ {
			if !reflect.DeepEqual(pg.Neighbors(l, engine.ID(id)), fx.graph.Neighbors(l, engine.ID(id))) {
				t.Fatalf("node %d layer %d differs from the main graph", id, l)
			}
		}
	}
	rep := pg.Report()
	if grown != rep.ExtraLinks || grown == 0 {
		t.Errorf("lists grew by %d links, report says %d", grown, rep.ExtraLinks)
	}
	sum := 0
	for _, b := range rep.Blocks {
		sum += b.ExtraLinks
	}
	if sum != rep.ExtraLinks {
		t.Errorf("blocks add up to %d links, total %d", sum, rep.ExtraLinks)
	}
	if want := 4 * float64(rep.ExtraLinks) / float64(rep.N); rep.BytesPerVector() != want {
		t.Errorf("bytes/vector %v, want %v", rep.BytesPerVector(), want)
	}
}

// links returns every merged layer-0 list (for comparisons).
func links(g *PayloadGraph) [][]engine.ID {
	out := make([][]engine.ID, g.Len())
	for id := range out {
		out[id] = append([]engine.ID(nil), g.Neighbors(0, engine.ID(id))...)
	}
	return out
}

// TestPayloadLinksDeterministic: the same seed gives the same links
// whatever the number of workers; another seed other links (a small beam,
// so that the block graphs' levels matter: with ef_construct above a
// block's size every insert sees the whole block and the levels do not
// change layer 0).
func TestPayloadLinksDeterministic(t *testing.T) {
	fx := getLinksFixture(t)
	build := func(seed uint64, workers int) *PayloadGraph {
		pg, err := BuildPayloadLinks(fx.vectors, engine.Cosine, fx.meta, fx.graph,
			PayloadLinksConfig{Fields: []string{"tag", "bucket"}, Threshold: linksThreshold, Seed: seed, Workers: workers, EfConstruction: 8})
		if err != nil {
			t.Fatal(err)
		}
		return pg
	}
	a, b, c, d := build(7, 1), build(7, 1), build(7, 4), build(8, 1)
	for _, tc := range []struct {
		name string
		x    *PayloadGraph
		same bool
	}{{"same seed", b, true}, {"same seed, 4 workers", c, true}, {"other seed", d, false}} {
		if got := reflect.DeepEqual(links(a), links(tc.x)); got != tc.same {
			t.Errorf("%s: links equal = %v, want %v", tc.name, got, tc.same)
		}
		ra, rx := a.Report(), tc.x.Report()
		if tc.same && (ra.ExtraLinks != rx.ExtraLinks || !reflect.DeepEqual(ra.Blocks, rx.Blocks)) {
			t.Errorf("%s: reports differ: %v vs %v", tc.name, ra, rx)
		}
	}
}

// TestPayloadLinksSkips checks which blocks are built under Qdrant's
// rules: keyword values at or below the threshold get no block, blocks
// above the percolation bound N/⌊K⌋·4 and blocks of at most threshold/4
// points are skipped, the rest are built.
func TestPayloadLinksSkips(t *testing.T) {
	fx := getLinksFixture(t)
	for _, tc := range []struct {
		name      string
		fields    []string
		threshold int
		below     int      // keyword values below the threshold
		skips     []string // "" built, "percolation", "small": by block, in order
	}{
		{"tag blocks built", []string{"tag"}, 100, 0, repeat("", 25)},
		{"tag values below a higher threshold", []string{"tag"}, 1000, 25, nil},
		{"parity above the percolation bound", []string{"parity"}, 100, 0, []string{"percolation", "percolation"}},
		{"rare: one small numeric block", []string{"rare"}, 100, 0, []string{"small"}},
		{"category blocks built", []string{"category"}, 100, 0, repeat("", 8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := BuildPayloadLinks(fx.vectors, engine.Cosine, fx.meta, fx.graph,
				PayloadLinksConfig{Fields: tc.fields, Threshold: tc.threshold, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			rep := pg.Report()
			var skips []string
			built := 0
			for _, b := range rep.Blocks {
				skips = append(skips, b.Skip)
				if b.Skip == "" {
					built++
					if b.Size <= tc.threshold/4 || b.Size > rep.MaxBlock || b.ExtraLinks == 0 {
						t.Errorf("built block %s has %d points (bound %d) and %d extra links", b.Cond, b.Size, rep.MaxBlock, b.ExtraLinks)
					}
				} else if b.ExtraLinks != 0 {
					t.Errorf("skipped block %s added %d links", b.Cond, b.ExtraLinks)
				}
			}
			if !reflect.DeepEqual(skips, tc.skips) || rep.BelowThreshold != tc.below || rep.Built != built {
				t.Errorf("skips %q, below %d, built %d; want %q, below %d\n%v", skips, rep.BelowThreshold, rep.Built, tc.skips, tc.below, rep)
			}
			if built == 0 && (rep.ExtraLinks != 0 || !reflect.DeepEqual(links(pg)[5], fx.graph.Neighbors(0, 5))) {
				t.Errorf("nothing built, yet %d links added", rep.ExtraLinks)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestPayloadLinksErrors(t *testing.T) {
	fx := getLinksFixture(t)
	short := &vec.Matrix{N: 10, Dim: fx.vectors.Dim, Stride: fx.vectors.Dim, Data: fx.vectors.Data[:10*fx.vectors.Dim]}
	for _, tc := range []struct {
		name    string
		vectors *vec.Matrix
		meta    *filter.Store
		g       Graph
		cfg     PayloadLinksConfig
		is      error
		want    string
	}{
		{"unknown field", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{Fields: []string{"colour"}}, filter.ErrUnknownField, `"colour"`},
		{"field without index", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{Fields: []string{"note"}}, engine.ErrInvalidArgument, `field "note" has no payload index`},
		{"field twice", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{Fields: []string{"tag", "tag"}}, engine.ErrInvalidArgument, `field "tag" listed twice`},
		{"negative payload_m", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{PayloadM: -1}, engine.ErrInvalidArgument, "payload_m -1 < 0"},
		{"payload_m 1", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{PayloadM: 1}, engine.ErrInvalidArgument, "payload_m 1"},
		{"negative threshold", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{Threshold: -5}, engine.ErrInvalidArgument, "threshold -5 < 1"},
		{"no threshold (no store default in the engine)", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{}, engine.ErrInvalidArgument, "threshold 0 < 1: Qdrant's full_scan_threshold"},
		{"negative workers and efc", fx.vectors, fx.meta, fx.graph, PayloadLinksConfig{Workers: -1, EfConstruction: -2}, engine.ErrInvalidArgument, "ef_construct -2 < 0; workers -1 < 0"},
		{"fewer vectors than records", short, fx.meta, fx.graph, PayloadLinksConfig{}, engine.ErrInvalidArgument, "10 vectors but 4000 metadata records"},
		{"graph of another size", short, fx.meta, fx.graph, PayloadLinksConfig{}, engine.ErrInvalidArgument, "main graph has 4000 nodes, 10 vectors"},
		{"no graph", fx.vectors, fx.meta, nil, PayloadLinksConfig{}, engine.ErrInvalidArgument, "no main graph"},
		{"no vectors, no metadata", nil, nil, fx.graph, PayloadLinksConfig{}, engine.ErrInvalidArgument, "no vectors; no metadata store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := BuildPayloadLinks(tc.vectors, engine.Cosine, tc.meta, tc.g, tc.cfg)
			if err == nil || pg != nil {
				t.Fatalf("got %v, %v; want an error", pg, err)
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want %v naming %q", err, tc.is, tc.want)
			}
		})
	}
	if _, err := BuildPayloadLinks(fx.vectors, engine.Metric(99), fx.meta, fx.graph, PayloadLinksConfig{}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("bad metric: %v", err)
	}
	noGraph, err := New(fx.vectors, fx.meta, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := noGraph.WithPayloadLinks(PayloadLinksConfig{}); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "graph") {
		t.Errorf("collection without a graph: %v", err)
	}
}

// TestWithPayloadLinksRebuilds: links built on a collection that already
// has them are built over the main graph, not over the old links.
func TestWithPayloadLinksRebuilds(t *testing.T) {
	fx := getLinksFixture(t)
	cfg := PayloadLinksConfig{Fields: []string{"tag"}, Threshold: linksThreshold, Seed: 2}
	a, ra, err := fx.coll.WithPayloadLinks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := a.WithPayloadLinks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ra.ExtraLinks != rb.ExtraLinks || !reflect.DeepEqual(links(a.Graph().(*PayloadGraph)), links(b.Graph().(*PayloadGraph))) {
		t.Errorf("rebuilding changed the links: %d vs %d", ra.ExtraLinks, rb.ExtraLinks)
	}
	if a.Graph().(*PayloadGraph).Base() != Graph(fx.graph) || b.Graph().(*PayloadGraph).Base() != Graph(fx.graph) {
		t.Error("the overlay's base is not the main graph")
	}
}

// BenchmarkPayloadLinks compares the Qdrant strategy with and without the
// payload-block links at the same ef on the links fixture (4,000 × 32,
// M = 8, threshold 100 vectors). Hypothesis: on a 4 % block of a field
// independent of the vectors, the traversal without links reaches almost
// no matching node (recall ≈ 0.01, a handful of distances), with links it
// reaches recall ≈ 1 for ~150 distances; the links cost ~100 B/vector.
func BenchmarkPayloadLinks(b *testing.B) {
	fx := getLinksFixture(b)
	with, rep, err := fx.coll.WithPayloadLinks(PayloadLinksConfig{Threshold: linksThreshold, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, text := range []string{"tag == 't03'", "category == 'c2' && bucket < 300"} {
		cf, err := fx.meta.CompileString(text)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name  string
			c     *Collection
			bytes float64
		}{{"without", fx.coll, 0}, {"with", with, rep.BytesPerVector()}} {
			b.Run(fmt.Sprintf("%s/%s/ef=40", text, v.name), func(b *testing.B) {
				var rec, dist float64
				for i := 0; i < b.N; i++ {
					q := fx.queries.Row(i % fx.queries.N)
					got, st, err := v.c.Search(Request{Query: q, K: 10, Filter: cf, Strategy: QdrantPlanner,
						Params: Params{Ef: 40, FullScanThreshold: linksThreshold}})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					rec += recall(got, truth(b, v.c, q, cf, 10))
					b.StartTimer()
					dist += float64(st.DistComps)
				}
				b.ReportMetric(rec/float64(b.N), "recall@10")
				b.ReportMetric(dist/float64(b.N), "dists/op")
				b.ReportMetric(v.bytes, "extra-B/vec")
			})
		}
	}
}
