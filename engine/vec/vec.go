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
		return 0, fmt.Errorf("vec: vector has %d components, matrix has %d: %w", len(v), m.Dim, engine.ErrDimension)
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

// Norm returns the Euclidean norm of v, rounded to float32. Like Normalize
// it sums in float64 in a fixed order, so it neither overflows nor
// underflows for finite input and gives the same bits on every machine,
// whichever distance kernel the CPU selected.
func Norm(v []float32) float32 { return float32(norm(v)) }

// norm is ‖v‖ in float64. Each square of a float32 is exact in float64, and
// the four partial sums are combined in a fixed order, so the result does not
// depend on the CPU (nor on FMA contraction). A NaN or Inf component gives NaN
// or Inf.
func norm(v []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		x0, x1, x2, x3 := float64(v[i]), float64(v[i+1]), float64(v[i+2]), float64(v[i+3])
		s0 += x0 * x0
		s1 += x1 * x1
		s2 += x2 * x2
		s3 += x3 * x3
	}
	for ; i < len(v); i++ {
		x := float64(v[i])
		s0 += x * x
	}
	return math.Sqrt((s0 + s1) + (s2 + s3))
}

// Normalize scales v to unit length in place, computing in float64 so that
// the result is the same to the bit on every machine (data sets generated
// from a seed stay identical across CPUs). A vector with a NaN or Inf
// component is an error wrapping engine.ErrInvalidVector, an all-zero vector
// one wrapping engine.ErrZeroVector; v is left untouched in both cases.
func Normalize(v []float32) error {
	n := norm(v)
	if math.IsNaN(n) || math.IsInf(n, 0) {
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vec: component %d is %v: %w", i, x, engine.ErrInvalidVector)
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("vec: all %d components are zero: %w", len(v), engine.ErrZeroVector)
	}
	inv := 1 / n
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return nil
}

// Dot4 returns ⟨q, a⟩, ⟨q, b⟩, ⟨q, c⟩, ⟨q, d⟩, loading q once per block
// (faster than four Dot calls when scoring many rows against one query); it
// panics if a row's length differs from len(q).
func Dot4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	if len(a) != len(q) || len(b) != len(q) || len(c) != len(q) || len(d) != len(q) {
		panic("vec: length mismatch")
	}
	return f32.Dot4(q, a, b, c, d)
}

// L2Sq4 returns the squared Euclidean distances of q to a, b, c and d; it
// panics if a row's length differs from len(q).
func L2Sq4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	if len(a) != len(q) || len(b) != len(q) || len(c) != len(q) || len(d) != len(q) {
		panic("vec: length mismatch")
	}
	return f32.L2Sq4(q, a, b, c, d)
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

// Dist4Func gives the distances of q to four vectors of its length, in order.
type Dist4Func func(q, a, b, c, d []float32) (float32, float32, float32, float32)

// Distance4 is Distance for four vectors at a time, with the same conventions:
// −dot for Dot, squared L2 for L2, 1 − dot (unit vectors) for Cosine.
func Distance4(m engine.Metric) Dist4Func {
	switch m {
	case engine.Dot:
		return func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
			x, y, z, w := f32.Dot4(q, a, b, c, d)
			return -x, -y, -z, -w
		}
	case engine.L2:
		return func(q, a, b, c, d []float32) (float32, float32, float32, float32) { return f32.L2Sq4(q, a, b, c, d) }
	default:
		return func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
			x, y, z, w := f32.Dot4(q, a, b, c, d)
			return 1 - x, 1 - y, 1 - z, 1 - w
		}
	}
}

// KernelName names the float32 distance kernels chosen for this CPU at
// start-up ("avx512", "avx2", "simd128" under js/wasm, or "generic"), for
// reports of machine facts.
func KernelName() string { return f32.Impl() }

// KernelSettingErr reports a VECLAB_SIMD value the engine did not
// understand (it then runs the best kernels this CPU has), nil when the
// variable is unset or valid. VECLAB_SIMD caps the kernels chosen at
// start-up so that one machine stands in for another: "off" runs the
// pure-Go twins, "avx2" stops at the AVX2 kernels on an AVX-512 CPU.
func KernelSettingErr() error { return f32.SettingErr() }

// SetAccelerated switches the float32 kernels between the SIMD ones chosen
// for this CPU (true, the default) and their pure-Go twins (false), so an
// experiment can measure what the assembly buys. It must not be called
// while other goroutines compute distances.
func SetAccelerated(on bool) { f32.SetAccelerated(on) }
