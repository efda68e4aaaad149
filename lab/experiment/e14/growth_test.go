package e14

import (
	"math"
	"testing"

	"github.com/veclab/veclab/engine/vec"
)

// TestFitLine: the least-squares line through points on a line is that
// line; through a flat set, slope 0; through one x, the mean.
func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		xs, ys []float64
		a, b   float64
	}{
		{"line", []float64{1, 2, 3}, []float64{5, 7, 9}, 3, 2},
		{"flat", []float64{1, 2, 4}, []float64{3, 3, 3}, 3, 0},
		{"least squares", []float64{0, 1, 2}, []float64{0, 2, 1}, 0.5, 0.5},
		{"one x", []float64{2, 2}, []float64{1, 3}, 2, 0},
	} {
		a, b := fitLine(tc.xs, tc.ys)
		if math.Abs(a-tc.a) > 1e-9 || math.Abs(b-tc.b) > 1e-9 {
			t.Errorf("%s: a, b = %g, %g, want %g, %g", tc.name, a, b, tc.a, tc.b)
		}
	}
}

// TestWiden: each row repeated to the new width, the slab's rows in order.
func TestWiden(t *testing.T) {
	m := &vec.Matrix{N: 2, Dim: 2, Stride: 3, Data: []float32{1, 2, 99, 3, 4, 99}}
	w := widen(m, 5)
	want := []float32{1, 2, 1, 2, 1, 3, 4, 3, 4, 3}
	if w.N != 2 || w.Dim != 5 {
		t.Fatalf("shape %d×%d", w.N, w.Dim)
	}
	for i, x := range want {
		if w.Data[i] != x {
			t.Fatalf("data %v, want %v", w.Data, want)
		}
	}
	if h := head(m, 1); h.N != 1 || len(h.Data) != 3 {
		t.Errorf("head: %d rows, %d floats", h.N, len(h.Data))
	}
}
