package vec_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// TestToBFloat16 checks the rounding at its edges: exact values, the
// three sides of a tie (ties to even, both parities), overflow into
// infinity, signed zero, subnormals, infinities and NaN.
func TestToBFloat16(t *testing.T) {
	for _, c := range []struct {
		name string
		bits uint32 // the float32's bits
		want uint16
	}{
		{"one", 0x3f800000, 0x3f80},
		{"minus two", 0xc0000000, 0xc000},
		{"below half an ulp: down", 0x3f807fff, 0x3f80},
		{"tie, even below: stays", 0x3f808000, 0x3f80},
		{"tie, odd below: up to even", 0x3f818000, 0x3f82},
		{"above half an ulp: up", 0x3f808001, 0x3f81},
		{"negative tie, odd below: away from zero", 0xbf818000, 0xbf82},
		{"carry into the exponent", 0x3fffffff, 0x4000},
		{"largest float32: overflows to +Inf", 0x7f7fffff, 0x7f80},
		{"largest bfloat16 stays", 0x7f7f0000, 0x7f7f},
		{"+0", 0x00000000, 0x0000},
		{"-0", 0x80000000, 0x8000},
		{"smallest subnormal: to zero", 0x00000001, 0x0000},
		{"subnormal rounds up", 0x0000c000, 0x0001},
		{"+Inf", 0x7f800000, 0x7f80},
		{"-Inf", 0xff800000, 0xff80},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"NaN whose payload would round to Inf", 0x7f800001, 0x7fc0},
		{"negative NaN", 0xffc00001, 0x7fc0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := vec.ToBFloat16(math.Float32frombits(c.bits)); got != c.want {
				t.Errorf("ToBFloat16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
			}
		})
	}
}

// TestBFloat16RoundTrip checks that encoding halves the bytes and that
// decoding is within half a bfloat16 ulp of the original for normal
// values (8 significant bits: at most 2⁻⁸ relative), and the nearest: the
// neighbours on either side are no closer.
func TestBFloat16RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, 768)
	for i := range v {
		v[i] = float32(r.NormFloat64()) * float32(math.Pow(10, float64(r.IntN(9)-4)))
	}
	b := vec.EncodeBFloat16(nil, v)
	if len(b) != 2*len(v) {
		t.Fatalf("%d components encoded to %d bytes, want %d", len(v), len(b), 2*len(v))
	}
	got, err := vec.DecodeBFloat16(make([]float32, len(v)), b)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range v {
		g := got[i]
		if rel := math.Abs(float64(g-f)) / math.Abs(float64(f)); rel > 1.0/256 {
			t.Fatalf("component %d: %g decoded as %g, relative error %g > 2⁻⁸", i, f, g, rel)
		}
		h := vec.ToBFloat16(f)
		for _, n := range []uint16{h - 1, h + 1} {
			if d, dn := math.Abs(float64(g-f)), math.Abs(float64(vec.FromBFloat16(n)-f)); dn < d {
				t.Fatalf("component %d: %g rounded to %g, but its neighbour %g is nearer", i, f, g, vec.FromBFloat16(n))
			}
		}
	}
	// Appending keeps what dst held.
	if b2 := vec.EncodeBFloat16([]byte{9}, v[:1]); len(b2) != 3 || b2[0] != 9 || !bytes.Equal(b2[1:], b[:2]) {
		t.Errorf("EncodeBFloat16 appended %v, want 9 then %v", b2, b[:2])
	}
}

// TestDecodeBFloat16Errors checks the two bad inputs.
func TestDecodeBFloat16Errors(t *testing.T) {
	if _, err := vec.DecodeBFloat16(make([]float32, 1), []byte{1, 2, 3}); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("odd length: %v, want ErrCorrupt", err)
	}
	if _, err := vec.DecodeBFloat16(make([]float32, 3), []byte{1, 2, 3, 4}); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short destination: %v, want ErrDimension", err)
	}
}

// FuzzDecodeBFloat16 decodes arbitrary bytes: an odd length is an error,
// anything else decodes, and re-encoding gives the same bytes, except
// that every NaN comes back as the canonical 0x7fc0.
func FuzzDecodeBFloat16(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x80, 0x3f, 0x00, 0xc0})             // 1, -2
	f.Add([]byte{0x80, 0x7f, 0xc0, 0x7f, 0x01, 0xff}) // +Inf, NaN, a negative NaN
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		dst := make([]float32, len(b)/2)
		got, err := vec.DecodeBFloat16(dst, b)
		if len(b)%2 != 0 {
			if !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("odd length %d: %v", len(b), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		again := vec.EncodeBFloat16(nil, got)
		for i := 0; i+1 < len(b); i += 2 {
			in, out := uint16(b[i])|uint16(b[i+1])<<8, uint16(again[i])|uint16(again[i+1])<<8
			if isNaN := in&0x7f80 == 0x7f80 && in&0x7f != 0; isNaN && out != 0x7fc0 || !isNaN && out != in {
				t.Fatalf("value %d: %#04x decoded and encoded to %#04x", i/2, in, out)
			}
		}
	})
}
