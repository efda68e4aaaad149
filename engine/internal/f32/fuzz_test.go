package f32

import (
	"encoding/binary"
	"math"
	"testing"
)

// floats decodes little-endian float32s from p, replacing non-finite values by
// 0 and clamping magnitudes to 1e15 so that no product or sum overflows.
func floats(p []byte) []float32 {
	v := make([]float32, len(p)/4)
	for i := range v {
		x := math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		switch {
		case math.IsNaN(float64(x)) || math.IsInf(float64(x), 0):
			x = 0
		case x > 1e15:
			x = 1e15
		case x < -1e15:
			x = -1e15
		}
		v[i] = x
	}
	return v
}

func addSeeds(f *testing.F) {
	f32s := func(xs ...float32) []byte {
		p := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(x))
		}
		return p
	}
	f.Add([]byte{}, []byte{}, uint8(0))
	f.Add(f32s(1, 2, 3), f32s(4, 5, 6), uint8(1))
	f.Add(f32s(1e15, -1e15, 1, 1e-30, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17),
		f32s(1e15, 1e15, -1, 1e-30, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), uint8(3))
	long := make([]float32, 67)
	for i := range long {
		long[i] = float32(i) - 33.5
	}
	f.Add(f32s(long...), f32s(long[3:]...), uint8(2))
}

// fuzzPair checks every kernel of one pair function against the reference,
// on a sub-slice at offset off%4 of a NaN-guarded copy.
func fuzzPair(t *testing.T, pa, pb []byte, off uint8, pick func(Kernel) pairFunc, ref func(a, b []float32) (float64, float64)) {
	a, b := floats(pa), floats(pb)
	n := min(len(a), len(b))
	ga, _ := guarded(n, int(off%4), func(i int) float32 { return a[i] })
	gb, _ := guarded(n, int(off/4%4), func(i int) float32 { return b[i] })
	want, scale := ref(ga, gb)
	for _, k := range Available() {
		got := float64(pick(k)(ga, gb))
		if d := math.Abs(got - want); !(d <= tolerance(n, scale)) {
			t.Fatalf("%s n=%d: got %v, want %v (|Δ|=%g > %g)", k.Name, n, got, want, d, tolerance(n, scale))
		}
	}
}

func FuzzDot(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, pa, pb []byte, off uint8) {
		fuzzPair(t, pa, pb, off, func(k Kernel) pairFunc { return k.Dot }, refDot)
		fuzzQuad(t, pa, pb, off, func(k Kernel) quadFunc { return k.Dot4 }, refDot)
	})
}

func FuzzL2Sq(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, pa, pb []byte, off uint8) {
		fuzzPair(t, pa, pb, off, func(k Kernel) pairFunc { return k.L2Sq }, refL2Sq)
		fuzzQuad(t, pa, pb, off, func(k Kernel) quadFunc { return k.L2Sq4 }, refL2Sq)
	})
}

// fuzzQuad scores q = a against the rows b, -b, b[1:]+…, and a reversed b.
func fuzzQuad(t *testing.T, pa, pb []byte, off uint8, pick func(Kernel) quadFunc, ref func(a, b []float32) (float64, float64)) {
	a, b := floats(pa), floats(pb)
	n := min(len(a), len(b))
	q, _ := guarded(n, int(off%4), func(i int) float32 { return a[i] })
	var rows [4][]float32
	rows[0], _ = guarded(n, 1, func(i int) float32 { return b[i] })
	rows[1], _ = guarded(n, 2, func(i int) float32 { return -b[i] })
	rows[2], _ = guarded(n, 3, func(i int) float32 { return a[n-1-i] })
	rows[3], _ = guarded(n, 0, func(i int) float32 { return b[n-1-i] })
	for _, k := range Available() {
		var got [4]float32
		got[0], got[1], got[2], got[3] = pick(k)(q, rows[0], rows[1], rows[2], rows[3])
		for r := range rows {
			want, scale := ref(q, rows[r])
			if d := math.Abs(float64(got[r]) - want); !(d <= tolerance(n, scale)) {
				t.Fatalf("%s row %d n=%d: got %v, want %v (|Δ|=%g > %g)", k.Name, r, n, got[r], want, d, tolerance(n, scale))
			}
		}
	}
}
