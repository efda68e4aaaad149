package quant

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// column is n one-dimensional vectors holding 0, 1, …, n−1 in a seeded
// order, so that every quantile is known.
func column(n int) *vec.Matrix {
	m := &vec.Matrix{N: n, Dim: 1, Stride: 1, Data: make([]float32, n)}
	for i, p := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
		m.Data[i] = float32(p)
	}
	return m
}

func TestTrainQdrantScalarBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		quantile float64
		lo, hi   float32
	}{
		// Not set: the whole range (find_min_max_from_iter).
		{"default: min and max", 200, 0, 0, 199},
		// 200 vectors: cut = max(1, ⌊200·0.01/2⌋) = 1; select_nth(len − cut)
		// then select_nth(cut) leave sorted[cut+1 … len−cut−1]: [2, 198].
		{"0.99: a cut of one", 200, 0.99, 2, 198},
		// cut = ⌊200·0.1/2⌋ = 10: sorted[11] and sorted[189].
		{"0.9: a cut of ten", 200, 0.9, 11, 189},
		{"1: the whole range", 200, 1, 0, 199},
		{"under 127 vectors: the whole range", 100, 0.9, 0, 99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := TrainQdrantScalar(column(tc.n), engine.L2, QdrantScalarConfig{Quantile: tc.quantile, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if lo, hi := s.Bounds(); lo != tc.lo || hi != tc.hi {
				t.Errorf("bounds [%v, %v], want [%v, %v]", lo, hi, tc.lo, tc.hi)
			}
		})
	}
}

// TestTrainQdrantScalarSampled checks the sampled quantile on more
// vectors than Qdrant's 5,000-vector sample: the cut is ⌊5000·(1−q)/2⌋
// values of the pooled sample at each end, so for 0.5 the interval holds
// the middle of the sampled values (about the middle half of 0…n−1).
func TestTrainQdrantScalarSampled(t *testing.T) {
	s, err := TrainQdrantScalar(column(20000), engine.L2, QdrantScalarConfig{Quantile: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := s.Bounds()
	// cut = 1250 of 5,000 sampled values: the 25th and 75th percentiles
	// of a uniform sample of 0…19999, within a few hundred.
	if math.Abs(float64(lo)-5000) > 600 || math.Abs(float64(hi)-15000) > 600 {
		t.Errorf("bounds [%v, %v], want about [5000, 15000]", lo, hi)
	}
}

func TestTrainQdrantScalarRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *vec.Matrix
		cfg  QdrantScalarConfig
	}{
		{"quantile below 0.5", column(200), QdrantScalarConfig{Quantile: 0.3}},
		{"quantile above 1", column(200), QdrantScalarConfig{Quantile: 1.5}},
		{"quantile NaN", column(200), QdrantScalarConfig{Quantile: math.NaN()}},
		{"nil", nil, QdrantScalarConfig{}},
		{"one vector", column(1), QdrantScalarConfig{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := TrainQdrantScalar(tc.m, engine.L2, tc.cfg); !errors.Is(err, engine.ErrInvalidArgument) {
				t.Errorf("err = %v, want ErrInvalidArgument", err)
			}
		})
	}
}

// TestQdrantScalarScore checks the score against Qdrant's formula written
// out: the dot product of the two dequantized vectors (offset + alpha·code)
// under Dot and Cosine, alpha²·Σ(qᵢ − cᵢ)² under Euclid.
func TestQdrantScalarScore(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, dim = 300, 24
	m := &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: make([]float32, n*dim)}
	for i := range m.Data {
		m.Data[i] = float32(r.NormFloat64())
	}
	for _, metric := range []engine.Metric{engine.Dot, engine.L2, engine.Cosine} {
		t.Run(metric.String(), func(t *testing.T) {
			data := append([]float32(nil), m.Data...)
			mm := &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: data}
			if metric == engine.Cosine {
				for i := 0; i < n; i++ {
					if err := vec.Normalize(mm.Row(i)); err != nil {
						t.Fatal(err)
					}
				}
			}
			s, err := TrainQdrantScalar(mm, metric, QdrantScalarConfig{})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := s.Bounds()
			alpha := (hi - lo) / 127
			a, b := make([]byte, s.CodeSize()), make([]byte, s.CodeSize())
			if err := s.EncodeQuery(a, mm.Row(0)); err != nil {
				t.Fatal(err)
			}
			if err := s.Encode(b, mm.Row(1)); err != nil {
				t.Fatal(err)
			}
			var want float64
			for i := 0; i < dim; i++ {
				// encode_value: round(clamp((v − offset)/alpha, 0, 127)).
				qa := math.Round(math.Min(math.Max(float64((mm.Row(0)[i]-lo)/alpha), 0), 127))
				qb := math.Round(math.Min(math.Max(float64((mm.Row(1)[i]-lo)/alpha), 0), 127))
				if byte(qa) != a[i] || byte(qb) != b[i] {
					t.Fatalf("component %d: codes %d, %d, want %v, %v", i, a[i], b[i], qa, qb)
				}
				if metric == engine.L2 {
					want += float64(alpha) * float64(alpha) * (qa - qb) * (qa - qb)
				} else {
					want += (float64(lo) + float64(alpha)*qa) * (float64(lo) + float64(alpha)*qb)
				}
			}
			switch metric {
			case engine.Dot:
				want = -want
			case engine.Cosine:
				want = 1 - want
			}
			if got := s.Distance(a, b); math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Errorf("distance %v, want %v", got, want)
			}
		})
	}
}

func ExampleTrainQdrantScalar() {
	// Qdrant's quantization_config {"scalar": {"type": "int8"}}: no
	// quantile, so the interval is the whole range of the values.
	m := &vec.Matrix{N: 4, Dim: 2, Stride: 2, Data: []float32{-1, 0.5, 0.25, 1, 0, -0.5, 0.75, 0}}
	s, err := TrainQdrantScalar(m, engine.Dot, QdrantScalarConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := s.Bounds()
	code := make([]byte, s.CodeSize())
	_ = s.Encode(code, []float32{1, -1})
	fmt.Printf("interval [%g, %g], codes %v\n", lo, hi, code[:2])
	// Output: interval [-1, 1], codes [127 0]
}
