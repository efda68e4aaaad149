package quant

import (
	"errors"
	"math"
	"math/bits"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestBinaryCodesByHand checks Qdrant's encodings on values worked by
// hand (encode_two_bits_value: z ≤ −2/3 → 00, |z| < 2/3 → 10, z ≥ 2/3 →
// 11; σ below f32::EPSILON → the sign bit and 0; one_and_half_bits ORs
// the second bits of neighbours).
func TestBinaryCodesByHand(t *testing.T) {
	mean := []float32{0, 1, 0, -1, 0}
	sd := []float32{1, 0.5, 0, 2, 1}
	// z-scores: -1 → 00; (1.2-1)/0.5 = 0.4 → 10; σ=0, 0.3 > 0 → 1 and 0;
	// (0.5+1)/2 = 0.75 → 11; 2/3 exactly → 11 (the upper range is closed).
	v := []float32{-1, 1.2, 0.3, 0.5, float32(2.0 / 3.0)}
	for _, tc := range []struct {
		enc  BinaryEncoding
		want []int // set bit positions
	}{
		{OneBit, []int{1, 2, 3, 4}},                       // the signs: v > 0
		{TwoBits, []int{1, 2, 3, 4, 3 + 5, 4 + 5}},        // first bits, then second bits at dim+i
		{OneAndHalfBits, []int{1, 2, 3, 4, 5 + 1, 5 + 2}}, // second bits of (0,1), (2,3), (4) at 5+i/2
	} {
		b, err := newBinary(5, engine.L2, BinaryConfig{Encoding: tc.enc}, mean, sd)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]byte, b.CodeSize())
		if err := b.Encode(c, v); err != nil {
			t.Fatal(err)
		}
		var got []int
		for i := 0; i < 8*len(c); i++ {
			if c[i>>3]>>(i&7)&1 == 1 {
				got = append(got, i)
			}
		}
		if !equalInts(got, tc.want) {
			t.Errorf("%s: bits %v, want %v", tc.enc, got, tc.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// TestBinaryDistance checks the score against its definitions: with a
// same_as_storage query, 2·(differing bits) − dim; with a scalar query,
// Σ over code bits c of |c·(2^b−1) − level| / (2^b−1), the levels being
// the extended query quantized over [−max|q|, max|q|] and rounded half
// away from zero.
func TestBinaryDistance(t *testing.T) {
	data := clustered(300, 37, 4, 9) // 37 dims: partial words everywhere
	for _, enc := range []BinaryEncoding{OneBit, OneAndHalfBits, TwoBits} {
		for _, qe := range []BinaryQueryEncoding{SameAsStorage, Scalar4Bits, Scalar8Bits} {
			b, err := TrainBinary(data, engine.Dot, BinaryConfig{Encoding: enc, Query: qe})
			if err != nil {
				t.Fatal(err)
			}
			q := data.Row(7)
			qc := make([]byte, b.QueryCodeSize())
			if err := b.EncodeQuery(qc, q); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 20; i++ {
				c := make([]byte, b.CodeSize())
				if err := b.Encode(c, data.Row(i)); err != nil {
					t.Fatal(err)
				}
				var want float64
				if qe == SameAsStorage {
					x := 0
					for w := range qc {
						x += bits.OnesCount8(qc[w] ^ c[w])
					}
					want = float64(2*x - b.dim)
				} else {
					ext := append([]float32(nil), q...)
					if enc == TwoBits {
						ext = append(ext, q...)
					} else if enc == OneAndHalfBits {
						for j := 0; j < len(q); j += 2 {
							m := q[j]
							if j+1 < len(q) && q[j+1] > m {
								m = q[j+1]
							}
							ext = append(ext, m)
						}
					}
					var ma float64
					for _, x := range q {
						ma = math.Max(ma, math.Abs(float64(x)))
					}
					top := float64(int(1)<<b.queryBits() - 1)
					var s float64
					for j, x := range ext {
						lvl := math.Round((float64(x) + ma) / (2 * ma / top))
						cb := float64(c[j>>3] >> (j & 7) & 1)
						s += math.Abs(cb*top - lvl)
					}
					want = 2*s/top - float64(b.dim)
				}
				if got := float64(b.Distance(qc, c)); math.Abs(got-want) > 1e-3 {
					t.Fatalf("%s/%s row %d: distance %g, want %g", enc, qe, i, got, want)
				}
			}
		}
	}
}

func TestBinaryErrors(t *testing.T) {
	data := clustered(10, 8, 2, 1)
	if _, err := TrainBinary(data, engine.L2, BinaryConfig{Encoding: 7}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("unknown encoding: %v", err)
	}
	if _, err := ParseBinaryEncoding("three_bits"); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("unknown name: %v", err)
	}
	b, _ := TrainBinary(data, engine.L2, BinaryConfig{Encoding: TwoBits})
	if err := b.Encode(make([]byte, b.CodeSize()), make([]float32, 7)); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short vector: %v", err)
	}
	if err := b.Encode(make([]byte, 1), data.Row(0)); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("short buffer: %v", err)
	}
	nan := append([]float32(nil), data.Row(0)...)
	nan[3] = float32(math.NaN())
	if err := b.EncodeQuery(make([]byte, b.QueryCodeSize()), nan); !errors.Is(err, engine.ErrInvalidVector) {
		t.Errorf("NaN query: %v", err)
	}
	if got := b.BytesPerVector(); got != 2 { // 16 bits in u8 words
		t.Errorf("BytesPerVector = %v, want 2 (16 bits in u8 words)", got)
	}
	b768, _ := newBinary(384, engine.Cosine, BinaryConfig{Encoding: TwoBits}, make([]float32, 384), make([]float32, 384))
	if got := b768.BytesPerVector(); got != 96 { // the article's 384 dims at 2 bits
		t.Errorf("384 dims, two_bits: BytesPerVector = %v, want 96", got)
	}
}
