package rescore

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

func data(n, dim int) *vec.Matrix {
	rng := rand.New(rand.NewPCG(4, 4))
	m := vec.NewMatrix(n, dim)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	for i := 0; i < n; i++ {
		_ = vec.Normalize(m.Row(i))
	}
	return m
}

// exact is the reference: score every candidate, sort by (dist, id).
func exact(m *vec.Matrix, metric engine.Metric, q []float32, cands []engine.Result, k int) []engine.Result {
	d := vec.Distance(metric)
	seen := map[engine.ID]bool{}
	var out []engine.Result
	for _, c := range cands {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, engine.Result{ID: c.ID, Dist: d(q, m.Row(int(c.ID)))})
		}
	}
	slices.SortFunc(out, func(a, b engine.Result) int {
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(k, len(out))]
}

// closeResults reports whether got has want's ids in want's order and
// distances equal to within float32 rounding (the rescorer scores four rows
// per kernel call, whose sums may round in the last bit differently from
// the one-row kernel of the reference).
func closeResults(got, want []engine.Result) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		d := float64(got[i].Dist - want[i].Dist)
		if got[i].ID != want[i].ID || math.Abs(d) > 1e-5*math.Max(1, math.Abs(float64(want[i].Dist))) {
			return false
		}
	}
	return true
}

func TestRescoreMatchesExact(t *testing.T) {
	m := data(500, 24)
	path := filepath.Join(t.TempDir(), "v.vec")
	// Stored as L2 so the file holds m's bits exactly (Cosine would
	// renormalise the already-unit rows and move the last bit).
	if err := store.WriteMatrix(path, m, engine.L2); err != nil {
		t.Fatal(err)
	}
	f, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	cands := make([]engine.Result, 0, 60)
	for i := 0; i < 50; i++ {
		cands = append(cands, engine.Result{ID: engine.ID(rng.IntN(500))})
	}
	cands = append(cands, cands[:10]...) // duplicates, as spilled IVF lists give
	q := m.Row(7)
	for _, metric := range []engine.Metric{engine.Cosine, engine.Dot, engine.L2} {
		want := exact(m, metric, q, cands, 10)
		for _, tc := range []struct {
			name string
			src  engine.VectorSource
			opt  Options
		}{
			{"slab", NewSlab(m), Options{}},
			{"file sequential", f, Options{}},
			{"file concurrent", f, Options{Concurrency: 8}},
		} {
			t.Run(metric.String()+"/"+tc.name, func(t *testing.T) {
				r, err := New(tc.src, metric, tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				got, st, err := r.Rescore(nil, q, cands, 10)
				if err != nil {
					t.Fatal(err)
				}
				if !closeResults(got, want) {
					t.Fatalf("got %v\nwant %v", got, want)
				}
				if st.Candidates != len(exact(m, metric, q, cands, 1000)) || st.IO.Reads != int64(st.Candidates) {
					t.Fatalf("stats %+v", st)
				}
			})
		}
	}
}

func TestRescoreErrors(t *testing.T) {
	m := data(20, 4)
	r, _ := New(NewSlab(m), engine.L2, Options{})
	if _, _, err := r.Rescore(nil, make([]float32, 3), []engine.Result{{ID: 1}}, 1); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("wrong query dim: %v", err)
	}
	if _, _, err := r.Rescore(nil, m.Row(0), []engine.Result{{ID: 20}}, 1); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("id beyond source: %v", err)
	}
	if _, _, err := r.Rescore(nil, m.Row(0), nil, 0); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("k = 0: %v", err)
	}
	if _, err := New(nil, engine.L2, Options{}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatal("nil source accepted")
	}
	if _, err := New(NewSlab(m), engine.L2, Options{Concurrency: -1}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatal("negative concurrency accepted")
	}
}

// BenchmarkRescore rescores 200 random candidates (a 1-bit IVF query's
// ⌈10·20⌉) of a 20k × 384 set from RAM, from the warm file with and
// without the page-cache probe, sequentially and with 16 readers.
func BenchmarkRescore(b *testing.B) {
	m := data(20000, 384)
	path := filepath.Join(b.TempDir(), "v.vec")
	if err := store.WriteMatrix(path, m, engine.Cosine); err != nil {
		b.Fatal(err)
	}
	f, _ := store.Open(path, store.Options{})
	defer f.Close()
	f.Warm()
	np, _ := store.Open(path, store.Options{NoCacheProbe: true})
	defer np.Close()
	rng := rand.New(rand.NewPCG(2, 2))
	cands := make([]engine.Result, 200)
	for i := range cands {
		cands[i].ID = engine.ID(rng.IntN(m.N))
	}
	for _, tc := range []struct {
		name string
		src  engine.VectorSource
		conc int
	}{{"slab", NewSlab(m), 1}, {"file", f, 1}, {"file-noprobe", np, 1}, {"file", f, 16}} {
		r, _ := New(tc.src, engine.Cosine, Options{Concurrency: tc.conc})
		b.Run(tc.name+"/"+r.Options().String(), func(b *testing.B) {
			var dst []engine.Result
			for b.Loop() {
				dst, _, _ = r.Rescore(dst, m.Row(0), cands, 10)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cands)), "ns/candidate")
		})
	}
}

// short is a broken source that returns too few components.
type short struct{ *Slab }

func (s short) Vector(dst []float32, id engine.ID) ([]float32, error) { return dst[:1], nil }

func TestBrokenSource(t *testing.T) {
	m := data(10, 4)
	r, _ := New(short{NewSlab(m)}, engine.L2, Options{Concurrency: 2})
	if _, _, err := r.Rescore(nil, m.Row(0), []engine.Result{{ID: 1}, {ID: 2}}, 1); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("short vectors from the source: %v", err)
	}
}

// TestNearest checks the top-k selection against a full sort, with many
// tied distances (ties go by id), for k small and large against n.
func TestNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{1, 5, 40, 200, 1000} {
		for _, k := range []int{1, 3, 10, 50, 2000} {
			scored := make([]engine.Result, n)
			for i := range scored {
				scored[i] = engine.Result{ID: engine.ID(rng.IntN(5 * n)), Dist: float32(rng.IntN(20))}
			}
			want := slices.Clone(scored)
			slices.SortFunc(want, byDistID)
			want = want[:min(k, n)]
			got := nearest([]engine.Result{{ID: 99}}, slices.Clone(scored), k)
			if got[0].ID != 99 || !slices.Equal(got[1:], want) {
				t.Fatalf("n=%d k=%d: got %v, want %v", n, k, got[1:], want)
			}
		}
	}
}

// TestSameDistanceOnEveryPath rescores the same candidates from RAM, from
// the vector file in batches, with concurrent reads, and in another order:
// each candidate must get the same distance, bit for bit, whatever path
// read it and wherever it stands in the list (the four-row kernel scores
// the tail too).
func TestSameDistanceOnEveryPath(t *testing.T) {
	m := data(300, 40)
	path := filepath.Join(t.TempDir(), "v.vec")
	if err := store.WriteMatrix(path, m, engine.L2); err != nil {
		t.Fatal(err)
	}
	f, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q := m.Row(7)
	var cands []engine.Result
	for id := 0; id < 23; id++ { // not a multiple of four: a tail of three
		cands = append(cands, engine.Result{ID: engine.ID(id * 11)})
	}
	reversed := slices.Clone(cands)
	slices.Reverse(reversed)
	run := func(name string, src engine.VectorSource, opt Options, cs []engine.Result) map[engine.ID]float32 {
		r, err := New(src, engine.L2, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := r.Rescore(nil, q, cs, len(cs))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := map[engine.ID]float32{}
		for _, g := range got {
			d[g.ID] = g.Dist
		}
		return d
	}
	want := run("RAM", NewSlab(m), Options{}, cands)
	for _, tc := range []struct {
		name string
		src  engine.VectorSource
		opt  Options
		cs   []engine.Result
	}{
		{"RAM, reversed", NewSlab(m), Options{}, reversed},
		{"file, batched", f, Options{}, cands},
		{"file, batched, reversed", f, Options{}, reversed},
		{"file, concurrent", f, Options{Concurrency: 4}, cands},
	} {
		got := run(tc.name, tc.src, tc.opt, tc.cs)
		for id, d := range want {
			if got[id] != d {
				t.Errorf("%s: candidate %d distance %v, RAM %v", tc.name, id, got[id], d)
			}
		}
	}
}
