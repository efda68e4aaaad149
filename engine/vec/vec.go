// Package vec stores vectors in flat float32 slabs and computes checked
// distances over them. Row i of a Matrix is Data[i*Stride : i*Stride+Dim].
package vec

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
)

// Matrix is a slab of N vectors of Dim components, Stride apart (Stride ≥ Dim).
type Matrix struct {
	N, Dim, Stride int
	Data           []float32
}

// NewMatrix returns a zeroed n×dim slab with Stride = dim.
func NewMatrix(n, dim int) *Matrix {
	return &Matrix{N: n, Dim: dim, Stride: dim, Data: make([]float32, n*dim)}
}

// Row returns vector i, aliasing the slab.
func (m *Matrix) Row(i int) []float32 {
	o := i * m.Stride
	return m.Data[o : o+m.Dim : o+m.Dim]
}

// Append adds v as a new row (len(v) must be Dim) and returns its index.
func (m *Matrix) Append(v []float32) (int, error) {
	if len(v) != m.Dim {
		return 0, fmt.Errorf("%w: vector has %d components, matrix has %d", engine.ErrDimension, len(v), m.Dim)
	}
	if m.Stride != m.Dim {
		m.Data = append(m.Data, make([]float32, m.Stride)...)
		copy(m.Data[m.N*m.Stride:], v)
	} else {
		m.Data = append(m.Data, v...)
	}
	m.N++
	return m.N - 1, nil
}

// Dot returns ⟨a, b⟩; it panics if the lengths differ (programmer error).
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("vec: length mismatch")
	}
	return f32.Dot(a, b)
}

// L2Sq returns the squared Euclidean distance; it panics if the lengths differ.
func L2Sq(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("vec: length mismatch")
	}
	return f32.L2Sq(a, b)
}

// Norm returns the Euclidean norm of v.
func Norm(v []float32) float32 { return float32(math.Sqrt(float64(f32.Dot(v, v)))) }

// Normalize scales v to unit length in place; a zero vector is an error.
func Normalize(v []float32) error {
	n := math.Sqrt(float64(f32.Dot(v, v)))
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return engine.ErrZeroVector
	}
	inv := float32(1 / n)
	for i := range v {
		v[i] *= inv
	}
	return nil
}

// DistFunc is a distance between two vectors of equal length, smaller is closer.
type DistFunc func(a, b []float32) float32

// Distance returns the distance function of metric m, resolved once. For
// Cosine it assumes both vectors are already unit-normalised.
func Distance(m engine.Metric) DistFunc {
	switch m {
	case engine.Dot:
		return func(a, b []float32) float32 { return -f32.Dot(a, b) }
	case engine.L2:
		return func(a, b []float32) float32 { return f32.L2Sq(a, b) }
	default:
		return func(a, b []float32) float32 { return 1 - f32.Dot(a, b) }
	}
}
