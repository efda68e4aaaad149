package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
)

func TestMatrix(t *testing.T) {
	tests := []struct {
		name   string
		m      *Matrix
		rows   [][]float32
		stride int
	}{
		{"dense", NewMatrix(0, 3), [][]float32{{1, 2, 3}, {4, 5, 6}}, 3},
		{"padded", &Matrix{Dim: 3, Stride: 4}, [][]float32{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, 4},
		{"preallocated", NewMatrix(2, 2), [][]float32{{1, 2}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			n0 := m.N
			for i, r := range tc.rows {
				got, err := m.Append(r)
				if err != nil {
					t.Fatalf("Append(%v): %v", r, err)
				}
				if got != n0+i {
					t.Fatalf("Append returned index %d, want %d", got, n0+i)
				}
			}
			if m.N != n0+len(tc.rows) || len(m.Data) != m.N*tc.stride {
				t.Fatalf("N=%d len(Data)=%d, want %d and %d", m.N, len(m.Data), n0+len(tc.rows), (n0+len(tc.rows))*tc.stride)
			}
			for i := 0; i < n0; i++ {
				for _, x := range m.Row(i) {
					if x != 0 {
						t.Fatalf("preallocated row %d = %v, want zeros", i, m.Row(i))
					}
				}
			}
			for i, r := range tc.rows {
				got := m.Row(n0 + i)
				if len(got) != m.Dim || cap(got) != m.Dim {
					t.Fatalf("Row(%d) has len %d cap %d, want %d and %d", n0+i, len(got), cap(got), m.Dim, m.Dim)
				}
				for j := range r {
					if got[j] != r[j] {
						t.Fatalf("Row(%d) = %v, want %v", n0+i, got, r)
					}
				}
			}
			// Rows alias the slab.
			m.Row(m.N - 1)[0] = 42
			if m.Data[(m.N-1)*m.Stride] != 42 {
				t.Fatal("Row does not alias Data")
			}
			// A wrong dimension is an error and changes nothing.
			n, l := m.N, len(m.Data)
			if _, err := m.Append(make([]float32, m.Dim+1)); !errors.Is(err, engine.ErrDimension) {
				t.Fatalf("Append of a %d-vector: err = %v, want ErrDimension", m.Dim+1, err)
			}
			if m.N != n || len(m.Data) != l {
				t.Fatal("a failed Append changed the matrix")
			}
		})
	}
}

func TestDotL2Sq(t *testing.T) {
	tests := []struct {
		a, b    []float32
		dot, l2 float32
		norm    float32
	}{
		{[]float32{}, []float32{}, 0, 0, 0},
		{[]float32{3}, []float32{4}, 12, 1, 3},
		{[]float32{3, 4}, []float32{4, -3}, 0, 50, 5},
		{[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}, 45, 204, float32(math.Sqrt(285))},
	}
	for _, tc := range tests {
		if got := Dot(tc.a, tc.b); got != tc.dot {
			t.Errorf("Dot(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.dot)
		}
		if got := L2Sq(tc.a, tc.b); got != tc.l2 {
			t.Errorf("L2Sq(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.l2)
		}
		if got := Norm(tc.a); got != tc.norm {
			t.Errorf("Norm(%v) = %v, want %v", tc.a, got, tc.norm)
		}
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	a, b := []float32{1, 2}, []float32{1, 2, 3}
	for name, f := range map[string]func(){
		"Dot":   func() { Dot(a, b) },
		"L2Sq":  func() { L2Sq(a, b) },
		"Dot4":  func() { Dot4(a, a, a, b, a) },
		"L2Sq4": func() { L2Sq4(a, a, a, a, b) },
	} {
		func() {
			defer func() {
				if r := recover(); r != "vec: length mismatch" {
					t.Errorf("%s with lengths 2 and 3: recovered %v, want the vec: length mismatch panic", name, r)
				}
			}()
			f()
		}()
	}
}

func TestNormalize(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name string
		v    []float32
		want []float32 // nil when an error is expected
		err  error
	}{
		{"unit", []float32{3, 4}, []float32{0.6, 0.8}, nil},
		{"already unit", []float32{0, -1, 0}, []float32{0, -1, 0}, nil},
		{"huge", []float32{3e30, 4e30}, []float32{0.6, 0.8}, nil},                      // Σv² overflows float32
		{"tiny", []float32{3e-30, 4e-30}, []float32{0.6, 0.8}, nil},                    // Σv² underflows float32
		{"subnormal", []float32{3 * 0x1p-140, 4 * 0x1p-140}, []float32{0.6, 0.8}, nil}, // needs the float64 path
		{"zero", []float32{0, 0, 0}, nil, engine.ErrZeroVector},
		{"empty", []float32{}, nil, engine.ErrZeroVector},
		{"NaN", []float32{1, nan}, nil, engine.ErrInvalidVector},
		{"Inf", []float32{inf, 1}, nil, engine.ErrInvalidVector},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := append([]float32(nil), tc.v...)
			err := Normalize(v)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Normalize(%v) err = %v, want %v", tc.v, err, tc.err)
				}
				for i := range v {
					if math.Float32bits(v[i]) != math.Float32bits(tc.v[i]) {
						t.Fatalf("a failed Normalize changed the vector to %v", v)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize(%v): %v", tc.v, err)
			}
			for i := range v {
				if math.Abs(float64(v[i]-tc.want[i])) > 1e-6 {
					t.Fatalf("Normalize(%v) = %v, want %v", tc.v, v, tc.want)
				}
			}
		})
	}
}

func TestDistance(t *testing.T) {
	a := []float32{0.6, 0.8, 0, 0, 0}
	b := []float32{0.8, 0.6, 0, 0, 0}
	tests := []struct {
		m    engine.Metric
		want float32 // ⟨a, b⟩ = 0.96, ‖a−b‖² = 0.08
	}{
		{engine.Cosine, 1 - 0.96},
		{engine.Dot, -0.96},
		{engine.L2, 0.08},
	}
	for _, tc := range tests {
		t.Run(tc.m.String(), func(t *testing.T) {
			d, d4 := Distance(tc.m), Distance4(tc.m)
			if got := d(a, b); math.Abs(float64(got-tc.want)) > 1e-6 {
				t.Fatalf("Distance(%v)(a, b) = %v, want %v", tc.m, got, tc.want)
			}
			if got := d(a, a); tc.m != engine.Dot && math.Abs(float64(got)) > 1e-6 {
				t.Fatalf("Distance(%v)(a, a) = %v, want 0", tc.m, got)
			}
			x, y, z, w := d4(a, b, a, b, b)
			for i, got := range []float32{x, y, z, w} {
				want := d([]float32(a), [][]float32{b, a, b, b}[i])
				if got != want && math.Abs(float64(got-want)) > 1e-6 {
					t.Fatalf("Distance4(%v) row %d = %v, want %v", tc.m, i, got, want)
				}
			}
		})
	}
}

// TestNormalizeIndependentOfKernel: Normalize and Norm give the same bits
// with the pure-Go kernels and with the CPU's SIMD kernels, whose float32
// sums round differently.
func TestNormalizeIndependentOfKernel(t *testing.T) {
	defer f32.SetAccelerated(true)
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		v := make([]float32, 1+rng.IntN(1024))
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		run := func(accel bool) ([]float32, float32) {
			f32.SetAccelerated(accel)
			w := append([]float32(nil), v...)
			if err := Normalize(w); err != nil {
				t.Fatal(err)
			}
			return w, Norm(v)
		}
		a, na := run(false)
		b, nb := run(true)
		if na != nb {
			t.Fatalf("len %d: Norm %v with generic kernels, %v with %s", len(v), na, nb, f32.Impl())
		}
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("len %d: Normalize component %d: %v with generic kernels, %v with %s", len(v), i, a[i], b[i], f32.Impl())
			}
		}
	}
}
