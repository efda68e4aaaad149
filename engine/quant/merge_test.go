package quant

import (
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// TestOSQCentroid pins TrainOSQ's centroid under Cosine: the mean of the
// unit vectors, normalised unless MeanCentroid (a field Lucene sees as
// COSINE vs Elasticsearch's cosine field, handed over as DOT_PRODUCT),
// and MergeOSQ's: the count-weighted mean of the parts' centroids,
// normalised likewise (ES818BinaryQuantizedVectorsWriter.flush and
// mergeAndRecalculateCentroids).
func TestOSQCentroid(t *testing.T) {
	const dim = 64
	data := clustered(900, dim, 12, 4)
	rows := func(from, to int) *vec.Matrix {
		return &vec.Matrix{N: to - from, Dim: dim, Stride: dim, Data: data.Data[from*dim : to*dim]}
	}
	unitMean := func(m *vec.Matrix) []float64 {
		out := make([]float64, dim)
		for i := 0; i < m.N; i++ {
			u := append([]float32(nil), m.Row(i)...)
			_ = vec.Normalize(u)
			for d, x := range u {
				out[d] += float64(x) / float64(m.N)
			}
		}
		return out
	}
	normed := func(m []float64) []float64 {
		var n float64
		for _, x := range m {
			n += x * x
		}
		out := make([]float64, len(m))
		for d, x := range m {
			out[d] = x / math.Sqrt(n)
		}
		return out
	}
	check := func(t *testing.T, what string, got []float32, want []float64) {
		t.Helper()
		for d := range want {
			if math.Abs(float64(got[d])-want[d]) > 1e-5 {
				t.Fatalf("%s: component %d is %v, want %v", what, d, got[d], want[d])
			}
		}
	}
	spans := [][2]int{{0, 200}, {200, 500}, {500, 900}}
	for _, mc := range []bool{true, false} {
		cfg := OSQConfig{Bits: 1, MeanCentroid: mc}
		var parts []*OSQ
		var counts []int
		var sum []float64
		for i, sp := range spans {
			cfg.Seed = uint64(i) // as a segment's seed: does not change the coding
			o, err := TrainOSQ(rows(sp[0], sp[1]), engine.Cosine, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := unitMean(rows(sp[0], sp[1]))
			if !mc {
				want = normed(want)
			}
			check(t, "trained", o.Centroid(), want)
			parts, counts = append(parts, o), append(counts, sp[1]-sp[0])
			if sum == nil {
				sum = make([]float64, dim)
			}
			for d, x := range want {
				sum[d] += x * float64(sp[1]-sp[0]) / 900
			}
		}
		m, err := MergeOSQ(parts, counts)
		if err != nil {
			t.Fatal(err)
		}
		want := sum
		if mc {
			// The weighted mean of plain means is the plain mean of all.
			check(t, "merged, plain mean of all", m.Centroid(), unitMean(data))
		} else {
			want = normed(sum)
		}
		check(t, "merged", m.Centroid(), want)
		if m.Config().MeanCentroid != mc || m.Metric() != engine.Cosine {
			t.Errorf("merged quantizer %v", m)
		}
	}
	// Under Dot the flag changes nothing: the plain mean.
	a, _ := TrainOSQ(rows(0, 300), engine.Dot, OSQConfig{Bits: 1})
	b, _ := TrainOSQ(rows(0, 300), engine.Dot, OSQConfig{Bits: 1, MeanCentroid: true})
	check(t, "dot", a.Centroid(), toF64(b.Centroid()))

	one, _ := TrainOSQ(rows(0, 300), engine.Cosine, OSQConfig{Bits: 1})
	two, _ := TrainOSQ(rows(0, 300), engine.Cosine, OSQConfig{Bits: 2})
	mean, _ := TrainOSQ(rows(0, 300), engine.Cosine, OSQConfig{Bits: 1, MeanCentroid: true})
	l2, _ := TrainOSQ(rows(0, 300), engine.L2, OSQConfig{Bits: 1})
	for _, bad := range []struct {
		name   string
		parts  []*OSQ
		counts []int
	}{
		{"none", nil, nil},
		{"counts", []*OSQ{one, one}, []int{1}},
		{"bits", []*OSQ{one, two}, []int{1, 1}},
		{"centroid rule", []*OSQ{one, mean}, []int{1, 1}},
		{"metric", []*OSQ{one, l2}, []int{1, 1}},
		{"zero count", []*OSQ{one, one}, []int{1, 0}},
		{"nil", []*OSQ{one, nil}, []int{1, 1}},
	} {
		if _, err := MergeOSQ(bad.parts, bad.counts); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", bad.name, err)
		}
	}
}

func toF64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
