package ivf

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

// clustered returns n unit vectors around c random centres, and nq queries.
func clustered(n, nq, dim, c int, seed uint64) (*vec.Matrix, *vec.Matrix) {
	rng := rand.New(rand.NewPCG(seed, 3))
	centres := vec.NewMatrix(c, dim)
	for i := range centres.Data {
		centres.Data[i] = float32(rng.NormFloat64())
	}
	gen := func(m int) *vec.Matrix {
		x := vec.NewMatrix(m, dim)
		for i := 0; i < m; i++ {
			ctr := centres.Row(rng.IntN(c))
			for d := range x.Row(i) {
				x.Row(i)[d] = ctr[d] + float32(rng.NormFloat64()*0.5)
			}
			_ = vec.Normalize(x.Row(i))
		}
		return x
	}
	return gen(n), gen(nq)
}

func bruteForce(x *vec.Matrix, q []float32, k int, metric engine.Metric) []engine.ID {
	d := vec.Distance(metric)
	all := make([]engine.Result, x.N)
	for i := range all {
		all[i] = engine.Result{ID: engine.ID(i), Dist: d(q, x.Row(i))}
	}
	slices.SortFunc(all, func(a, b engine.Result) int {
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	ids := make([]engine.ID, k)
	for i := range ids {
		ids[i] = all[i].ID
	}
	return ids
}

func recall(got []engine.Result, want []engine.ID) float64 {
	in := map[engine.ID]bool{}
	for _, id := range want {
		in[id] = true
	}
	hit := 0
	for _, r := range got {
		if in[r.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

func TestRecall(t *testing.T) {
	x, qs := clustered(3000, 30, 32, 20, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "v.vec")
	if err := store.WriteMatrix(path, x, engine.Cosine); err != nil {
		t.Fatal(err)
	}
	file, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	slab, _ := rescore.New(rescore.NewSlab(x), engine.Cosine, rescore.Options{})
	disk, _ := rescore.New(file, engine.Cosine, rescore.Options{Concurrency: 4})
	for _, tc := range []struct {
		name      string
		cfg       Config
		opt       SearchOptions
		minRecall float64
	}{
		// Scanning every list is exhaustive: exact for float lists.
		{"flat all lists", Config{Nlist: 30}, SearchOptions{Nprobe: 30}, 1},
		{"flat visit 100%", Config{Nlist: 30}, SearchOptions{VisitPercentage: 100}, 1},
		{"flat spill all lists", Config{Nlist: 30, Spill: true}, SearchOptions{Nprobe: 30}, 1},
		{"flat hierarchical", Config{ClusterSize: 100, Hierarchical: true}, SearchOptions{VisitPercentage: 100}, 1},
		{"flat nprobe 5", Config{Nlist: 30}, SearchOptions{Nprobe: 5}, 0.8},
		{"1-bit rescored slab", Config{Nlist: 30, Bits: 1}, SearchOptions{Nprobe: 30, Oversample: 10, Rescorer: slab}, 0.97},
		{"2-bit rescored disk", Config{Nlist: 30, Bits: 2}, SearchOptions{Nprobe: 30, Oversample: 5, Rescorer: disk}, 0.97},
		{"4-bit spill rescored disk", Config{Nlist: 30, Bits: 4, Spill: true}, SearchOptions{Nprobe: 30, Oversample: 3, Rescorer: disk}, 0.99},
		{"8-bit no rescore", Config{Nlist: 30, Bits: 8}, SearchOptions{Nprobe: 30}, 0.9},
		{"2-bit global centroid rescored", Config{Nlist: 30, Bits: 2, GlobalCentroid: true}, SearchOptions{Nprobe: 30, Oversample: 5, Rescorer: slab}, 0.85}, // per-list centring does better: 1.0 above
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Seed = 7
			ix, err := Build(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			opt := tc.opt
			opt.K = 10
			var sum float64
			for i := 0; i < qs.N; i++ {
				got, st, err := ix.SearchWith(qs.Row(i), opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 10 {
					t.Fatalf("query %d: %d results", i, len(got))
				}
				seen := map[engine.ID]bool{}
				for _, r := range got {
					if seen[r.ID] {
						t.Fatalf("query %d: id %d returned twice", i, r.ID)
					}
					seen[r.ID] = true
				}
				if opt.Nprobe > 0 && opt.VisitPercentage == 0 && st.ListsProbed != min(opt.Nprobe, ix.Nlist()) {
					t.Fatalf("probed %d lists, want %d", st.ListsProbed, opt.Nprobe)
				}
				if tc.cfg.Spill && st.ListsProbed == ix.Nlist() && st.Duplicates != ix.BuildStats().Spilled {
					t.Fatalf("skipped %d duplicates, %d vectors spilled", st.Duplicates, ix.BuildStats().Spilled)
				}
				if opt.Rescorer == disk && st.Rescore.IO.Reads != int64(st.Candidates) {
					t.Fatalf("rescore read %d vectors for %d candidates", st.Rescore.IO.Reads, st.Candidates)
				}
				sum += recall(got, bruteForce(x, qs.Row(i), 10, engine.Cosine))
			}
			r := sum / float64(qs.N)
			if r < tc.minRecall {
				t.Fatalf("recall@10 = %.3f, want ≥ %.2f", r, tc.minRecall)
			}
			fp := ix.FootprintWith(file)
			if fp.Disk != file.Size() || fp.Resident() != ix.Footprint().Resident() {
				t.Fatalf("footprint with disk %+v, file %d bytes", fp, file.Size())
			}
			t.Logf("recall@10 %.3f, %d lists, %s", r, ix.Nlist(), fp)
		})
	}
}

func TestVisitBudget(t *testing.T) {
	x, qs := clustered(2000, 5, 16, 10, 2)
	ix, err := Build(x, Config{Nlist: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := ix.SearchVisit(qs.Row(0), 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	// 10 % of 2000 = 200 vectors: lists are scanned whole, so the last one
	// may overshoot, but the list before it did not reach the budget.
	sizes := ix.ListSizes()
	if st.Scanned < 200 || st.ListsProbed < 1 || st.ListsProbed > len(sizes) {
		t.Fatalf("visit 10%%: scanned %d in %d lists", st.Scanned, st.ListsProbed)
	}
	_, st1, _ := ix.SearchVisit(qs.Row(0), 10, 0.001)
	if st1.ListsProbed != 1 {
		t.Fatalf("tiny visit budget probed %d lists, want 1", st1.ListsProbed)
	}
}

func TestDeterministic(t *testing.T) {
	x, qs := clustered(1500, 3, 16, 8, 3)
	a, _ := Build(x, Config{Nlist: 12, Bits: 2, Spill: true, Seed: 4})
	b, _ := Build(x, Config{Nlist: 12, Bits: 2, Spill: true, Seed: 4, Workers: 1})
	ra, _, _ := a.Search(qs.Row(1), 10, 3)
	rb, _, _ := b.Search(qs.Row(1), 10, 3)
	if !slices.Equal(ra, rb) || !slices.Equal(a.Centroids().Data, b.Centroids().Data) {
		t.Fatal("same seed gave different indexes")
	}
}

func TestBadInput(t *testing.T) {
	x, _ := clustered(100, 1, 8, 4, 5)
	nan := vec.NewMatrix(10, 8)
	for i := range nan.Data {
		nan.Data[i] = 1
	}
	nan.Row(6)[2] = float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		data *vec.Matrix
		cfg  Config
		want error
	}{
		{"more clusters than vectors", x, Config{Nlist: 101}, engine.ErrInvalidArgument},
		{"bad bits", x, Config{Nlist: 4, Bits: 3}, engine.ErrInvalidArgument},
		{"inf component", nan, Config{Nlist: 2}, engine.ErrInvalidVector},
		{"zero vector under cosine", vec.NewMatrix(5, 8), Config{Nlist: 2}, engine.ErrZeroVector},
		{"empty", vec.NewMatrix(0, 8), Config{Nlist: 1}, engine.ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Build(tc.data, tc.cfg); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	ix, err := Build(x, Config{Nlist: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    []float32
		opt  SearchOptions
		want error
	}{
		{"wrong dim", make([]float32, 7), SearchOptions{K: 1}, engine.ErrDimension},
		{"NaN query", []float32{1, float32(math.NaN()), 0, 0, 0, 0, 0, 0}, SearchOptions{K: 1}, engine.ErrInvalidVector},
		{"k beyond collection", x.Row(0), SearchOptions{K: 101}, engine.ErrInvalidArgument},
		{"k zero", x.Row(0), SearchOptions{K: 0}, engine.ErrInvalidArgument},
		{"visit > 100", x.Row(0), SearchOptions{K: 1, VisitPercentage: 101}, engine.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ix.SearchWith(tc.q, tc.opt); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFootprint(t *testing.T) {
	x, _ := clustered(1000, 1, 64, 4, 6)
	flat, _ := Build(x, Config{Nlist: 10})
	f := flat.Footprint()
	if f.Codes != 1000*64*4 || f.IDs != 4000 || f.Entries != 1000 {
		t.Fatalf("flat footprint %+v", f)
	}
	one, _ := Build(x, Config{Nlist: 10, Bits: 1, Spill: true})
	g := one.Footprint()
	// 1-bit codes of 64 dims: 8 bytes + 14 bytes of corrections per entry.
	if g.Entries != 1000+one.BuildStats().Spilled || g.Codes != int64(g.Entries)*22 {
		t.Fatalf("1-bit footprint %+v (spilled %d)", g, one.BuildStats().Spilled)
	}
	if g.PerVector() >= f.PerVector() {
		t.Fatalf("1-bit codes %.1f B/vector not smaller than float %.1f", g.PerVector(), f.PerVector())
	}
}

// BenchmarkSearch measures one query by list codes; hypothesis: OSQ lists
// cost more per scanned entry than float32 lists at this size only through
// the per-list query encoding, and rescoring from RAM adds k·oversample
// exact distances.
func BenchmarkSearch(b *testing.B) {
	x, qs := clustered(20000, 50, 384, 40, 9)
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		truth[i] = bruteForce(x, qs.Row(i), 10, engine.Cosine)
	}
	for _, bits := range []int{0, 1, 2, 4, 8} {
		ix, err := Build(x, Config{Nlist: 52, Bits: bits, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		var rs *rescore.Rescorer
		if bits > 0 {
			rs, _ = rescore.New(rescore.NewSlab(x), engine.Cosine, rescore.Options{})
		}
		opt := SearchOptions{K: 10, Nprobe: 4, Oversample: 3, Rescorer: rs}
		b.Run(codesLabel(bits), func(b *testing.B) {
			var rec float64
			i := 0
			for b.Loop() {
				q := qs.Row(i % qs.N)
				got, _, _ := ix.SearchWith(q, opt)
				rec += recall(got, truth[i%qs.N])
				i++
			}
			b.ReportMetric(rec/float64(i), "recall@10")
			b.ReportMetric(ix.Footprint().PerVector(), "bytes/vec")
		})
	}
}

func codesLabel(bits int) string {
	if bits == 0 {
		return "float32"
	}
	return "osq" + string(rune('0'+bits)) + "bit"
}

func TestTrainThenAdd(t *testing.T) {
	x, qs := clustered(1000, 2, 16, 5, 8)
	ix, err := Train(x, Config{Nlist: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Search(qs.Row(0), 5, 2); !errors.Is(err, engine.ErrEmpty) {
		t.Fatalf("search before Add: %v", err)
	}
	if err := ix.Add(vec.NewMatrix(3, 15)); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("Add of wrong dimension: %v", err)
	}
	if err := ix.Add(x); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(x); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("second Add: %v", err)
	}
	built, _ := Build(x, Config{Nlist: 8, Seed: 2})
	a, _, _ := ix.Search(qs.Row(1), 5, 2)
	b, _, _ := built.Search(qs.Row(1), 5, 2)
	if !slices.Equal(a, b) || ix.Len() != 1000 {
		t.Fatal("Train+Add differs from Build")
	}
}

func TestFilter(t *testing.T) {
	x, qs := clustered(2000, 5, 16, 6, 12)
	for _, bits := range []int{0, 2} {
		ix, err := Build(x, Config{Nlist: 10, Bits: bits, Spill: true, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		even := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
		rs, _ := rescore.New(rescore.NewSlab(x), engine.Cosine, rescore.Options{})
		for i := 0; i < qs.N; i++ {
			got, _, err := ix.SearchWith(qs.Row(i), SearchOptions{K: 10, Nprobe: 10, Filter: even, Oversample: 4, Rescorer: rs})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 {
				t.Fatalf("%d results", len(got))
			}
			for _, r := range got {
				if r.ID%2 != 0 {
					t.Fatalf("filtered-out id %d returned", r.ID)
				}
			}
			if bits == 0 {
				// Exhaustive float lists: exactly the filtered truth.
				var want []engine.ID
				for _, id := range bruteForce(x, qs.Row(i), x.N, engine.Cosine) {
					if id%2 == 0 && len(want) < 10 {
						want = append(want, id)
					}
				}
				if r := recall(got, want); r != 1 {
					t.Fatalf("filtered recall %.2f at all lists", r)
				}
			}
		}
	}
}

// TestCodeScanPaths checks the block scan of quantized lists (no filter,
// no spill) returns exactly what the per-code scan does (forced here by a
// filter that allows every document), for every code width and both query
// encodings, and that QueryIters outside 0…100 is refused.
func TestCodeScanPaths(t *testing.T) {
	x, qs := clustered(3000, 10, 100, 6, 21)
	all := engine.FilterFunc(func(engine.ID) bool { return true })
	for _, bits := range []int{1, 2, 4, 8} {
		for _, iters := range []int{0, 1} {
			ix, err := Build(x, Config{Nlist: 12, Bits: bits, QueryIters: iters, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < qs.N; i++ {
				a, sa, err := ix.SearchWith(qs.Row(i), SearchOptions{K: 20, Nprobe: 5})
				if err != nil {
					t.Fatal(err)
				}
				b, sb, err := ix.SearchWith(qs.Row(i), SearchOptions{K: 20, Nprobe: 5, Filter: all})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a, b) || sa.Scored != sb.Scored || sa.Scanned != sb.Scanned {
					t.Fatalf("bits %d iters %d query %d: block scan %v (%+v), per-code scan %v (%+v)", bits, iters, i, a, sa, b, sb)
				}
			}
		}
	}
	for _, qi := range []int{-1, 101} {
		if _, err := Build(x, Config{Nlist: 12, Bits: 2, QueryIters: qi}); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Fatalf("QueryIters %d: %v", qi, err)
		}
	}
}
