package bulk

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// edge is a matrix of edge values every format must carry bit for bit:
// signed zeros, the smallest and largest subnormals, the smallest normal,
// the largest float32, values whose shortest text is long, and ordinary
// unit-vector components.
func edge() *vec.Matrix {
	vals := []float32{
		0, float32(math.Copysign(0, -1)),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.Float32frombits(0x007fffff), -math.Float32frombits(0x007fffff), // largest subnormal
		math.Float32frombits(0x00800000), // smallest normal
		math.MaxFloat32, -math.MaxFloat32,
		1, -1, 0.1, 1.0 / 3, 16777217, 1e-10, 3.4028233e38, math.Nextafter32(1, 2), math.Nextafter32(1, 0),
	}
	const dim = 6
	m := vec.NewMatrix((len(vals)+dim-1)/dim+1, dim)
	copy(m.Data, vals)
	for i := range m.Data[len(vals):] {
		m.Data[len(vals)+i] = float32(i) * 0.0625
	}
	return m
}

func TestRoundTripBitExact(t *testing.T) {
	m := edge()
	for _, c := range []struct {
		f Format
		p Parser
	}{{FloatArrayJSON, Reflect}, {Base64JSON, Reflect}, {FloatArrayJSON, Tokens}, {Base64JSON, Tokens}, {Msgpack, Reflect}} {
		f := c.f
		t.Run(f.String()+", "+c.p.String(), func(t *testing.T) {
			body, err := Encode(f, m, 0, m.N)
			if err != nil {
				t.Fatal(err)
			}
			d := &Decoder{Format: f, Dim: m.Dim, Parser: c.p}
			var ids []uint64
			var got []float32
			if err := d.Decode(body, &ids, &got); err != nil {
				t.Fatal(err)
			}
			if len(ids) != m.N || len(got) != m.N*m.Dim {
				t.Fatalf("decoded %d ids, %d floats; want %d, %d", len(ids), len(got), m.N, m.N*m.Dim)
			}
			if err := Check(f, m, 0, ids, got); err != nil {
				t.Fatal(err)
			}
			// A second body through the same decoder (reused buffers)
			// appends after the first.
			body2, err := Encode(f, m, 1, m.N-1)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Decode(body2, &ids, &got); err != nil {
				t.Fatal(err)
			}
			if err := Check(f, m, 1, ids[m.N:], got[m.N*m.Dim:]); err != nil {
				t.Fatal(err)
			}
			// Check itself must catch a flipped sign of zero.
			got[1] = 0
			if err := Check(f, m, 0, ids[:m.N], got[:m.N*m.Dim]); !errors.Is(err, engine.ErrCorrupt) {
				t.Errorf("Check missed -0 → +0: %v", err)
			}
		})
	}
}

func TestCorruptBody(t *testing.T) {
	m := edge()
	enc := func(f Format) []byte {
		b, err := Encode(f, m, 0, m.N)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// lines returns the body's lines (each without its newline).
	lines := func(b []byte) []string { return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") }
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	tests := []struct {
		name   string
		format Format
		body   func() []byte
		doc    string // "document N" the error must name
	}{
		{"base64 bad character", Base64JSON, func() []byte {
			ls := lines(enc(Base64JSON))
			i := strings.Index(ls[5], `"vector":"`) + len(`"vector":"`)
			ls[5] = ls[5][:i] + "*" + ls[5][i+1:]
			return join(ls)
		}, "document 2: base64: illegal"},
		{"base64 short", Base64JSON, func() []byte {
			ls := lines(enc(Base64JSON))
			ls[3] = strings.Replace(ls[3], `"vector":"`, `"vector":"AAAA`, 1)
			return join(ls)
		}, "document 1: base64 vector of"},
		{"base64 truncated", Base64JSON, func() []byte { b := enc(Base64JSON); return b[:len(b)-30] }, "document 3"},
		{"float array truncated", FloatArrayJSON, func() []byte { b := enc(FloatArrayJSON); return b[:len(b)/2] }, "document "},
		{"float array wrong length", FloatArrayJSON, func() []byte {
			ls := lines(enc(FloatArrayJSON))
			ls[1] = strings.Replace(ls[1], `"vector":[`, `"vector":[1,`, 1)
			return join(ls)
		}, "document 0: vector of"},
		{"float array action without source", FloatArrayJSON, func() []byte {
			ls := lines(enc(FloatArrayJSON))
			return join(ls[:len(ls)-1])
		}, "document 3"},
		{"msgpack truncated", Msgpack, func() []byte { b := enc(Msgpack); return b[:len(b)-7] }, "document 3"},
		{"msgpack cut in first document", Msgpack, func() []byte { return enc(Msgpack)[:40] }, "document 0"},
	}
	for _, tc := range tests {
		for _, p := range []Parser{Reflect, Tokens} {
			if tc.format == Msgpack && p != Reflect {
				continue
			}
			t.Run(tc.name+", "+p.String(), func(t *testing.T) {
				d := &Decoder{Format: tc.format, Dim: m.Dim, Parser: p}
				var ids []uint64
				var got []float32
				err := d.Decode(tc.body(), &ids, &got)
				if !errors.Is(err, engine.ErrCorrupt) {
					t.Fatalf("error %v, want one wrapping engine.ErrCorrupt", err)
				}
				t.Log(err)
				if !strings.Contains(err.Error(), tc.doc) {
					t.Errorf("error %q does not name %q", err, tc.doc)
				}
			})
		}
	}
}

// FuzzDecode feeds the decoder bodies derived from valid ones of every
// format: it must never panic, and on success it must have appended
// exactly Dim floats per id; on failure its error wraps engine.ErrCorrupt
// (the body is bad) and never anything else.
func FuzzDecode(f *testing.F) {
	m := edge()
	for _, fm := range Formats {
		b, err := Encode(fm, m, 0, 2)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(fm), uint8(Reflect), b)
		f.Add(uint8(fm), uint8(Tokens), b)
		f.Add(uint8(fm), uint8(Tokens), b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, format, parser uint8, body []byte) {
		fm, p := Format(format%uint8(len(Formats))), Parser(parser%2)
		d := &Decoder{Format: fm, Dim: m.Dim, Parser: p}
		var ids []uint64
		var got []float32
		err := d.Decode(body, &ids, &got)
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("%s, %s: error %v does not wrap engine.ErrCorrupt", fm, p, err)
			}
			return
		}
		if len(got) != len(ids)*m.Dim {
			t.Fatalf("%s, %s: %d floats for %d ids of %d dims", fm, p, len(got), len(ids), m.Dim)
		}
	})
}

// TestBadArguments checks that the codec refuses what it cannot honour
// with engine.ErrInvalidArgument, naming it.
func TestBadArguments(t *testing.T) {
	m := edge()
	nan := vec.NewMatrix(1, 2)
	nan.Data[1] = float32(math.NaN())
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"encode unknown format", func() error { _, err := Encode(Format(9), m, 0, 1); return err }},
		{"encode rows past the end", func() error { _, err := Encode(Base64JSON, m, 1, m.N); return err }},
		{"encode negative first", func() error { _, err := Encode(Msgpack, m, -1, 1); return err }},
		{"encode NaN", func() error { _, err := Encode(Msgpack, nan, 0, 1); return err }},
		{"bodies zero batch", func() error { _, err := Bodies(Base64JSON, m, 2, 0); return err }},
		{"decoder without a dimension", func() error {
			var ids []uint64
			var v []float32
			return (&Decoder{Format: Base64JSON}).Decode(nil, &ids, &v)
		}},
	} {
		err := tc.call()
		if !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: error %v, want one wrapping engine.ErrInvalidArgument", tc.name, err)
		} else if !strings.HasPrefix(err.Error(), "bulk: ") {
			t.Errorf("%s: error %q does not say it comes from the codec", tc.name, err)
		}
	}
}
