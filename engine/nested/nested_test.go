package nested

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// passages: 400 parents, each with 2…8 passages drawn around the parent's
// own centre (passages of one document are similar to each other).
func build(t *testing.T) (*Index, *vec.Matrix) {
	t.Helper()
	const dim, nParents = 32, 400
	rng := rand.New(rand.NewPCG(5, 5))
	var data []float32
	var parents []uint32
	for p := 0; p < nParents; p++ {
		centre := make([]float64, dim)
		for j := range centre {
			centre[j] = rng.NormFloat64()
		}
		for c := 0; c < 2+rng.IntN(7); c++ {
			row := make([]float32, dim)
			for j := range row {
				row[j] = float32(centre[j] + 0.3*rng.NormFloat64())
			}
			if err := vec.Normalize(row); err != nil {
				t.Fatal(err)
			}
			data = append(data, row...)
			parents = append(parents, uint32(p))
		}
	}
	m := &vec.Matrix{N: len(parents), Dim: dim, Stride: dim, Data: data}
	g, err := hnsw.New(hnsw.Config{Dim: dim, Workers: 1, EfConstruction: 100})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, m.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, m); err != nil {
		t.Fatal(err)
	}
	x, err := New(g.Vectors(), parents, engine.Cosine, g)
	if err != nil {
		t.Fatal(err)
	}
	queries := vec.NewMatrix(20, dim)
	for i := 0; i < queries.N; i++ {
		// a query near a passage
		src := m.Row(rng.IntN(m.N))
		for j := range queries.Row(i) {
			queries.Row(i)[j] = src[j] + float32(0.2*rng.NormFloat64())
		}
	}
	return x, queries
}

func TestParentsVersusNaive(t *testing.T) {
	x, qs := build(t)
	const k = 10
	var recDedup, recNaive, hitsNaive float64
	for i := 0; i < qs.N; i++ {
		q := qs.Row(i)
		truth, err := x.ExactParents(q, k)
		if err != nil {
			t.Fatal(err)
		}
		want := map[uint32]bool{}
		for _, h := range truth {
			want[h.Parent] = true
		}
		got, _, err := x.SearchParents(q, k, 40)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[uint32]bool{}
		for j, h := range got {
			if seen[h.Parent] {
				t.Fatalf("parent %d twice", h.Parent)
			}
			seen[h.Parent] = true
			if j > 0 && h.Dist < got[j-1].Dist {
				t.Fatal("hits out of order")
			}
			if want[h.Parent] {
				recDedup++
			}
		}
		naive, _, _ := x.SearchNaive(q, k, 40)
		hitsNaive += float64(len(naive))
		for _, h := range naive {
			if want[h.Parent] {
				recNaive++
			}
		}
	}
	n := float64(qs.N * k)
	recDedup /= n
	recNaive /= n
	hitsNaive /= float64(qs.N)
	t.Logf("recall of parents: dedup-in-walk %.3f, naive %.3f (naive mean parents %.1f)", recDedup, recNaive, hitsNaive)
	if recDedup < 0.95 {
		t.Errorf("dedup-in-walk recall %.3f < 0.95", recDedup)
	}
	if hitsNaive >= k {
		t.Errorf("naive returned %.1f parents on average; passages of one parent should collide", hitsNaive)
	}
	if recNaive >= recDedup {
		t.Errorf("naive recall %.3f ≥ dedup %.3f", recNaive, recDedup)
	}
}

func TestBadInput(t *testing.T) {
	x, qs := build(t)
	if _, _, err := x.SearchParents(qs.Row(0), 0, 10); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("k=0: %v", err)
	}
	if _, _, err := x.SearchNaive(qs.Row(0)[:3], 10, 10); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short query: %v", err)
	}
	if _, err := New(x.vectors, x.parents[:5], engine.Cosine, x.graph); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("parents length: %v", err)
	}
	// k larger than the number of parents: every parent, no error
	got, _, err := x.SearchParents(qs.Row(0), 1000, 10)
	if err != nil || len(got) == 0 || len(got) > x.nParent {
		t.Errorf("k > parents: %d hits, %v", len(got), err)
	}
}
