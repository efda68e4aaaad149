package quant

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestOSQ7BitByHand pins 7-bit optimized scalar quantization, what
// Elasticsearch 9.4+'s int8_hnsw writes (ES94ScalarQuantizedVectorsFormat
// → Lucene104ScalarQuantizedVectorsFormat ScalarEncoding.SEVEN_BIT: 7-bit
// documents and 7-bit queries around the segment's centroid, apache/lucene
// 10.4 OptimizedScalarQuantizer.scalarQuantize), on a 4-dimensional case
// worked by hand with the interval refinement off (Iters < 0), so the
// interval is the minimum-MSE grid start, ±3.611σ around the mean,
// clipped to the centred vector's range.
//
// Centroid c = (0.25, 0, 0, 0.25), metric Dot.
//
// Document v = (0.75, −0.5, 0.25, 0.25): x = v − c = (0.5, −0.5, 0.25, 0);
// mean 0.0625, σ = √(0.140625 − 0.00390625) = 0.3698, so the grid
// (−1.27, 1.40) clips to [−0.5, 0.5]; Δ = 1/127; q = round-half-up((x+0.5)·127)
// = (127, 0, 95.25→95, 63.5→64), Σq = 286; the additional correction is
// ⟨v, c⟩ = 0.1875 + 0.0625 = 0.25.
//
// Query y = (0.25, 0.5, −0.25, 0.25): y − c = (0, 0.5, −0.25, 0); mean
// 0.0625, σ = 0.2724, clipped to [−0.25, 0.5]; Δ = 0.75/127;
// q = round((y'+0.25)/0.75·127) = (42.33→42, 127, 0, 42), Σq = 211;
// ⟨y, c⟩ = 0.125.
//
// ⟨q_x, q_y⟩ = 127·42 + 64·42 = 8022, so
// ⟨x, y'⟩ ≈ (−0.5)(−0.25)·4 + (−0.25)·286/127 + (−0.5)(0.75/127)·211
// + (1/127)(0.75/127)·8022 = 0.5 − 0.562992 − 0.623031 + 0.373024
// = −0.312999 (exact −0.3125), and ⟨v, y⟩ ≈ −0.312999 + 0.25 + 0.125 −
// ‖c‖² (0.125) = −0.062999 (exact −0.0625); the Dot distance is its
// negation.
func TestOSQ7BitByHand(t *testing.T) {
	o, err := NewOSQ([]float32{0.25, 0, 0, 0.25}, engine.Dot, OSQConfig{Bits: 7, QueryBits: 7, Iters: -1})
	if err != nil {
		t.Fatal(err)
	}
	if o.planar || !o.Symmetric() {
		t.Fatalf("7-bit OSQ: planar %t symmetric %t, want byte codes, symmetric", o.planar, o.Symmetric())
	}
	for _, tc := range []struct {
		name     string
		v        []float32
		query    bool
		codes    []byte
		lo, hi   float32
		add      float32
		sum      uint32
		sumBytes int
	}{
		{"document", []float32{0.75, -0.5, 0.25, 0.25}, false, []byte{127, 0, 95, 64}, -0.5, 0.5, 0.25, 286, 2},
		{"query", []float32{0.25, 0.5, -0.25, 0.25}, true, []byte{42, 127, 0, 42}, -0.25, 0.5, 0.125, 211, 4},
	} {
		var code []byte
		if tc.query {
			code = make([]byte, o.QueryCodeSize())
			err = o.EncodeQuery(code, tc.v)
		} else {
			code = make([]byte, o.CodeSize())
			err = o.Encode(code, tc.v)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != 4+osqFloats+tc.sumBytes {
			t.Errorf("%s: %d code bytes, want %d", tc.name, len(code), 4+osqFloats+tc.sumBytes)
		}
		if !slices.Equal(code[:4], tc.codes) {
			t.Errorf("%s: codes %v, want %v", tc.name, code[:4], tc.codes)
		}
		lo, hi, add := getF32(code[4:]), getF32(code[8:]), getF32(code[12:])
		var sum uint32
		if tc.sumBytes == 2 {
			sum = uint32(binary.LittleEndian.Uint16(code[16:]))
		} else {
			sum = binary.LittleEndian.Uint32(code[16:])
		}
		if lo != tc.lo || hi != tc.hi || math.Abs(float64(add-tc.add)) > 1e-7 || sum != tc.sum {
			t.Errorf("%s: interval [%v, %v], correction %v, Σq %d; want [%v, %v], %v, %d", tc.name, lo, hi, add, sum, tc.lo, tc.hi, tc.add, tc.sum)
		}
	}
	doc, q := make([]byte, o.CodeSize()), make([]byte, o.QueryCodeSize())
	_ = o.Encode(doc, []float32{0.75, -0.5, 0.25, 0.25})
	_ = o.EncodeQuery(q, []float32{0.25, 0.5, -0.25, 0.25})
	if got, want := o.Distance(q, doc), float32(0.062999); math.Abs(float64(got-want)) > 2e-6 {
		t.Errorf("Dot distance %v, want %v (the exact dot product's negation is 0.0625)", got, want)
	}
}

// TestOSQIntSum: IntSum stores Σq in 4 bytes (Lucene104's writeInt) where
// the BBQ layout keeps 2 (a short), the codes are otherwise the same and
// score alike, and a flags byte naming an unknown flag is refused.
func TestOSQIntSum(t *testing.T) {
	data := clustered(200, 40, 3, 9)
	short, err := TrainOSQ(data, engine.Cosine, OSQConfig{Bits: 7, QueryBits: 7, MeanCentroid: true})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := TrainOSQ(data, engine.Cosine, OSQConfig{Bits: 7, QueryBits: 7, MeanCentroid: true, IntSum: true})
	if err != nil {
		t.Fatal(err)
	}
	if short.CodeSize() != 40+16-2 || wide.CodeSize() != 40+16 {
		t.Fatalf("code sizes %d and %d, want %d and %d", short.CodeSize(), wide.CodeSize(), 40+14, 40+16)
	}
	cs, cw, q := make([]byte, short.CodeSize()), make([]byte, wide.CodeSize()), make([]byte, short.QueryCodeSize())
	for i := 0; i < 20; i++ {
		if err := short.Encode(cs, data.Row(i)); err != nil {
			t.Fatal(err)
		}
		if err := wide.Encode(cw, data.Row(i)); err != nil {
			t.Fatal(err)
		}
		if err := short.EncodeQuery(q, data.Row(199-i)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cs[:40], cw[:40]) || short.Distance(q, cs) != wide.Distance(q, cw) {
			t.Fatalf("row %d: the 4-byte Σq changes the codes or the score", i)
		}
	}
	magic, tag, body := wide.frame()
	body[4+1+1+1] = 4 // the flags byte after dim, metric, bits and query bits
	bad, err := marshal(magic, tag, body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(bad); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "flags 0x4") {
		t.Errorf("flags 4: %v", err)
	}
}
