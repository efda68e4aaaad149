package kmeans

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// blobs returns n points around k well-separated centres in dim dimensions
// and the true cluster of every point.
func blobs(n, k, dim int, seed uint64) (*vec.Matrix, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := vec.NewMatrix(k, dim)
	for i := range centres.Data {
		centres.Data[i] = float32(rng.NormFloat64() * 10)
	}
	m := vec.NewMatrix(n, dim)
	label := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % k
		label[i] = c
		for d := 0; d < dim; d++ {
			m.Row(i)[d] = centres.Row(c)[d] + float32(rng.NormFloat64()*0.1)
		}
	}
	return m, label
}

// purity checks that every found cluster holds points of one true cluster.
func purity(t *testing.T, data, cents *vec.Matrix, label []int) {
	t.Helper()
	assign, _ := AssignAll(data, cents, 2)
	owner := map[int32]int{}
	for i, a := range assign {
		if o, ok := owner[a]; ok && o != label[i] {
			t.Fatalf("centroid %d holds points of true clusters %d and %d", a, o, label[i])
		}
		owner[a] = label[i]
	}
}

func TestTrainRecoversBlobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		init Init
	}{{"kmeans++", PlusPlus}, {"random", Random}} {
		t.Run(tc.name, func(t *testing.T) {
			data, label := blobs(2000, 8, 16, 7)
			m, err := Train(data, Config{K: 8, Seed: 3, Init: tc.init})
			if err != nil {
				t.Fatal(err)
			}
			if m.K() != 8 || m.Iters < 1 {
				t.Fatalf("K=%d Iters=%d", m.K(), m.Iters)
			}
			if tc.init == PlusPlus {
				purity(t, data, m.Centroids, label)
				for c, s := range m.Sizes {
					if s != 250 {
						t.Errorf("cluster %d has %d points, want 250", c, s)
					}
				}
				// Noise σ = 0.1 per component in 16 dims: E‖x−c‖² ≈ 0.16.
				if m.Objective > 0.2 {
					t.Errorf("objective %g, want ≈ 0.16", m.Objective)
				}
			}
		})
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	data, _ := blobs(3000, 10, 24, 11)
	a, err := Train(data, Config{K: 12, Seed: 5, Workers: 1, MaxIter: 10, Tol: -1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(data, Config{K: 12, Seed: 5, Workers: 4, MaxIter: 10, Tol: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Centroids.Data, b.Centroids.Data) || a.Objective != b.Objective {
		t.Fatal("same seed, different worker counts gave different centroids")
	}
	c, _ := Train(data, Config{K: 12, Seed: 6, Workers: 1, MaxIter: 10, Tol: -1})
	if slices.Equal(a.Centroids.Data, c.Centroids.Data) {
		t.Fatal("different seeds gave identical centroids")
	}
	if a.Iters != 10 {
		t.Fatalf("Tol<0 must run all iterations, ran %d", a.Iters)
	}
}

func TestSampleCap(t *testing.T) {
	data, _ := blobs(5000, 4, 8, 2)
	m, err := Train(data, Config{K: 4, Seed: 1, MaxPointsPerCentroid: 100})
	if err != nil {
		t.Fatal(err)
	}
	if m.Trained != 400 {
		t.Fatalf("trained on %d points, want 4·100", m.Trained)
	}
	m, _ = Train(data, Config{K: 4, Seed: 1, MaxPointsPerCentroid: -1})
	if m.Trained != 5000 {
		t.Fatalf("uncapped training used %d points, want 5000", m.Trained)
	}
}

func TestEmptyClusterRepair(t *testing.T) {
	// 3 distinct points, many duplicates, 6 clusters: random init picks
	// duplicate seeds, so some clusters start empty and must be split off.
	data := vec.NewMatrix(300, 4)
	for i := 0; i < 300; i++ {
		data.Row(i)[i%3] = 1 + float32(i%3)
		data.Row(i)[3] = 0.5
	}
	m, err := Train(data, Config{K: 6, Seed: 9, Init: Random, Tol: -1, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if m.Repairs == 0 {
		t.Fatal("expected empty clusters to be repaired")
	}
	for c := 0; c < m.K(); c++ {
		for _, x := range m.Centroids.Row(c) {
			if math.IsNaN(float64(x)) {
				t.Fatalf("centroid %d has NaN", c)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	data, _ := blobs(10, 2, 4, 1)
	nan := vec.NewMatrix(5, 3)
	nan.Row(3)[1] = float32(math.NaN())
	for _, tc := range []struct {
		name string
		data *vec.Matrix
		cfg  Config
		want error
	}{
		{"more clusters than vectors", data, Config{K: 11}, engine.ErrInvalidArgument},
		{"zero clusters", data, Config{K: 0}, engine.ErrInvalidArgument},
		{"NaN", nan, Config{K: 2}, engine.ErrInvalidVector},
		{"empty", vec.NewMatrix(0, 3), Config{K: 1}, engine.ErrEmpty},
		{"nil", nil, Config{K: 1}, engine.ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Train(tc.data, tc.cfg)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	m, _ := Train(data, Config{K: 2})
	if _, _, err := m.Nearest([]float32{1, 2}); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("Nearest with wrong dim: %v", err)
	}
}

func TestHierarchical(t *testing.T) {
	data, _ := blobs(6000, 30, 16, 4)
	m, err := Hierarchical(data, HierConfig{TargetSize: 100, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.K() < 30 || m.K() > 120 {
		t.Fatalf("%d clusters for 6000 points at target 100", m.K())
	}
	total := 0
	for _, s := range m.Sizes {
		if s == 0 {
			t.Fatal("empty cluster survived")
		}
		total += s
	}
	if total != 6000 {
		t.Fatalf("sizes sum to %d", total)
	}
	again, _ := Hierarchical(data, HierConfig{TargetSize: 100, Seed: 2, Workers: 1})
	if !slices.Equal(m.Centroids.Data, again.Centroids.Data) {
		t.Fatal("hierarchical k-means not deterministic")
	}
	small, _ := Hierarchical(data, HierConfig{TargetSize: 10000})
	if small.K() != 1 {
		t.Fatalf("n ≤ target must give one centroid, got %d", small.K())
	}
}

// BenchmarkTrain: hypothesis: Hamerly bounds cut the assignment work of
// later iterations, so bounded training is faster at equal iterations.
func BenchmarkTrain(b *testing.B) {
	data, _ := blobs(20000, 40, 384, 1)
	for _, nb := range []bool{false, true} {
		name := "bounded"
		if nb {
			name = "lloyd"
		}
		b.Run(name, func(b *testing.B) {
			var m *Model
			for b.Loop() {
				m, _ = Train(data, Config{K: 78, MaxIter: 10, Tol: -1, Workers: 1, Init: Random, NoBounds: nb})
			}
			b.ReportMetric(float64(m.Computed), "distances")
		})
	}
}

// TestBoundsMatchLloyd checks that Hamerly's bounded iteration gives plain
// Lloyd's centroids while computing fewer distances.
func TestBoundsMatchLloyd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spherical bool
	}{{"l2", false}, {"spherical", true}} {
		t.Run(tc.name, func(t *testing.T) {
			// Overlapping blobs so that points do change clusters.
			rng := rand.New(rand.NewPCG(21, 1))
			data := vec.NewMatrix(4000, 32)
			for i := range data.Data {
				data.Data[i] = float32(rng.NormFloat64())
			}
			cfg := Config{K: 20, Seed: 3, MaxIter: 15, Tol: -1, Spherical: tc.spherical}
			fast, err := Train(data, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.NoBounds = true
			plain, _ := Train(data, cfg)
			if !slices.Equal(fast.Sizes, plain.Sizes) {
				t.Fatalf("sizes differ:\n%v\n%v", fast.Sizes, plain.Sizes)
			}
			for i := range fast.Centroids.Data {
				if d := math.Abs(float64(fast.Centroids.Data[i] - plain.Centroids.Data[i])); d > 1e-5 {
					t.Fatalf("centroid component %d differs by %g", i, d)
				}
			}
			if math.Abs(fast.Objective-plain.Objective) > 1e-4*plain.Objective {
				t.Fatalf("objective %g vs %g", fast.Objective, plain.Objective)
			}
			if fast.Computed >= plain.Computed {
				t.Fatalf("bounds computed %d distances, plain Lloyd %d", fast.Computed, plain.Computed)
			}
			t.Logf("distances: bounded %d, plain %d", fast.Computed, plain.Computed)
		})
	}
}
