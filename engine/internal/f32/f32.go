// Package f32 holds the trusted float32 distance kernels: generated amd64
// assembly (AVX2+FMA, AVX-512 where present) and pure-Go twins, chosen once
// at start-up. Nothing here checks lengths: callers (engine/vec) do.
package f32

// Dot returns Σ a[i]*b[i] over len(a) elements; len(b) must be ≥ len(a).
var Dot = DotGeneric

// L2Sq returns Σ (a[i]-b[i])² over len(a) elements; len(b) must be ≥ len(a).
var L2Sq = L2SqGeneric

// DotGeneric is the pure-Go twin of Dot, unrolled by four.
func DotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// L2SqGeneric is the pure-Go twin of L2Sq, unrolled by four.
func L2SqGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 := a[i] - b[i]
		d1 := a[i+1] - b[i+1]
		d2 := a[i+2] - b[i+2]
		d3 := a[i+3] - b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}
