package e19

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
)

// e19Edge is a matrix of edge values every format must carry bit for bit:
// signed zeros, the smallest and largest subnormals, the smallest normal,
// the largest float32, values whose shortest text is long, and ordinary
// unit-vector components.
func e19Edge() *vec.Matrix {
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

func TestE19RoundTripBitExact(t *testing.T) {
	m := e19Edge()
	for _, c := range []struct {
		f Format
		p Parser
	}{{FloatArrayJSON, Reflect}, {Base64JSON, Reflect}, {FloatArrayJSON, Tokens}, {Base64JSON, Tokens}, {Msgpack, Reflect}} {
		f := c.f
		t.Run(f.String()+", "+c.p.String(), func(t *testing.T) {
			body, err := e19Encode(f, m, 0, m.N)
			if err != nil {
				t.Fatal(err)
			}
			d := &e19Decoder{Format: f, Dim: m.Dim, Parser: c.p}
			var ids []uint64
			var got []float32
			if err := d.Decode(body, &ids, &got); err != nil {
				t.Fatal(err)
			}
			if len(ids) != m.N || len(got) != m.N*m.Dim {
				t.Fatalf("decoded %d ids, %d floats; want %d, %d", len(ids), len(got), m.N, m.N*m.Dim)
			}
			if err := e19Check(f, m, 0, ids, got); err != nil {
				t.Fatal(err)
			}
			// A second body through the same decoder (reused buffers)
			// appends after the first.
			body2, err := e19Encode(f, m, 1, m.N-1)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Decode(body2, &ids, &got); err != nil {
				t.Fatal(err)
			}
			if err := e19Check(f, m, 1, ids[m.N:], got[m.N*m.Dim:]); err != nil {
				t.Fatal(err)
			}
			// e19Check itself must catch a flipped sign of zero.
			got[1] = 0
			if err := e19Check(f, m, 0, ids[:m.N], got[:m.N*m.Dim]); !errors.Is(err, engine.ErrCorrupt) {
				t.Errorf("e19Check missed -0 → +0: %v", err)
			}
		})
	}
}

func TestE19CorruptBody(t *testing.T) {
	m := e19Edge()
	enc := func(f Format) []byte {
		b, err := e19Encode(f, m, 0, m.N)
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
				d := &e19Decoder{Format: tc.format, Dim: m.Dim, Parser: p}
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

func TestE19SmallTable(t *testing.T) {
	env := small(t)
	sz := SizesFor(env.Scale)
	sz.HNSW = min(sz.HNSW, 1000)
	sz.Budget = 50 * time.Millisecond
	res, err := Measure(env, Formats, sz)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Parse) != 3 || len(res.HNSW) != 3 || len(res.IVF) != 3 || len(res.Table.Rows) != 3 {
		t.Fatalf("%d parse, %d HNSW, %d IVF results, %d rows; want 3 each", len(res.Parse), len(res.HNSW), len(res.IVF), len(res.Table.Rows))
	}
	fl, b64, mp := res.Parse[0], res.Parse[1], res.Parse[2]
	if !(b64.DocsPerSec > fl.DocsPerSec) {
		t.Errorf("base64 parses %.0f docs/s, float arrays %.0f: want base64 faster", b64.DocsPerSec, fl.DocsPerSec)
	}
	if !(mp.DocsPerSec > fl.DocsPerSec) {
		t.Errorf("msgpack parses %.0f docs/s, float arrays %.0f: want msgpack faster", mp.DocsPerSec, fl.DocsPerSec)
	}
	// Body sizes: float text ≈ 9–13 B per dimension, base64 4/3·4 B, bin 4 B.
	dim := float64(env.Scale.Dim)
	if !(b64.BytesPerDoc < fl.BytesPerDoc && mp.BytesPerDoc < b64.BytesPerDoc && mp.BytesPerDoc > 4*dim) {
		t.Errorf("bytes/doc: float %.0f, base64 %.0f, msgpack %.0f", fl.BytesPerDoc, b64.BytesPerDoc, mp.BytesPerDoc)
	}
	for _, in := range append(res.HNSW, res.IVF...) {
		if !(in.DocsPerSec > 0) || in.Parse > in.Total {
			t.Errorf("%s %s: %.0f docs/s, parse %v of %v", in.Kind, in.Format, in.DocsPerSec, in.Parse, in.Total)
		}
	}
	s := res.Table.String()
	for _, want := range []string{"base64 (JSON)", ">10", "(article)", "(lab)", "msgpack (bin)"} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
}

func TestE19BadArguments(t *testing.T) {
	env := small(t)
	m := e19Edge()
	nan := vec.NewMatrix(1, 2)
	nan.Data[1] = float32(math.NaN())
	tests := []struct {
		name string
		err  func() error
	}{
		{"encode unknown format", func() error { _, err := e19Encode(Format(9), m, 0, 1); return err }},
		{"encode rows past the end", func() error { _, err := e19Encode(Base64JSON, m, 1, m.N); return err }},
		{"encode negative first", func() error { _, err := e19Encode(Msgpack, m, -1, 1); return err }},
		{"encode NaN", func() error { _, err := e19Encode(Msgpack, nan, 0, 1); return err }},
		{"bodies zero batch", func() error { _, err := e19Bodies(Base64JSON, m, 2, 0); return err }},
		{"decoder zero dim", func() error {
			var ids []uint64
			var v []float32
			return (&e19Decoder{Format: Base64JSON}).Decode(nil, &ids, &v)
		}},
		{"parse no formats", func() error { _, err := e19MeasureParse(env, nil, Tokens, 10, 10, 0); return err }},
		{"parse too many docs", func() error {
			_, err := e19MeasureParse(env, Formats, Tokens, env.Scale.N+1, 10, 0)
			return err
		}},
		{"parse negative budget", func() error { _, err := e19MeasureParse(env, Formats, Tokens, 10, 10, -1); return err }},
		{"ingest unknown kind", func() error { _, err := e19MeasureIngest(env, IndexKind(7), Formats, 10, 10); return err }},
		{"ingest zero docs", func() error { _, err := e19MeasureIngest(env, IVF, Formats, 0, 10); return err }},
		{"measure no formats", func() error { _, err := Measure(env, nil, SizesFor(env.Scale)); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); !errors.Is(err, experiment.ErrBadArgument) {
				t.Errorf("error %v, want one wrapping ErrBadArgument", err)
			}
		})
	}
}

// TestE19Verdicts feeds Verdicts parse and ingest figures: the parse
// verdict reads the token parser's speed-up and its reason names
// encoding/json's with the share of its validating pass; a gain that
// differs names what parsing float arrays costs beside the indexing.
func TestE19Verdicts(t *testing.T) {
	env := small(t)
	ingest := func(kind IndexKind, floatParse, base64Parse, index time.Duration) []Ingest {
		const n = 1000
		in := []Ingest{{Kind: kind, Docs: n, Parse: floatParse, Total: floatParse + index}, {Kind: kind, Docs: n, Parse: base64Parse, Total: base64Parse + index}}
		for i := range in {
			in[i].DocsPerSec = n / in[i].Total.Seconds()
		}
		return in
	}
	for _, c := range []struct {
		name          string
		tokens        [2]float64 // docs/s, float then base64
		hnsw, ivf     []Ingest
		words, reason string
	}{
		{"the article's figures", [2]float64{30000, 400000},
			ingest(HNSW, 30*time.Millisecond, 3*time.Millisecond, 150*time.Millisecond),
			ingest(IVF, 30*time.Millisecond, 3*time.Millisecond, 30*time.Millisecond),
			"agrees agrees agrees agrees", "through Go's encoding/json 5.0× (100.0 and 20.0 µs), 40 % of its base64 parse"},
		{"a slow token parser, parsing a small part of IVF", [2]float64{30000, 60000},
			ingest(HNSW, 30*time.Millisecond, 3*time.Millisecond, 150*time.Millisecond),
			ingest(IVF, 30*time.Millisecond, 3*time.Millisecond, 100*time.Millisecond),
			"differs agrees differs agrees", "parsing float arrays costs 30 µs a document against 100 µs of indexing, 23 % of the ingest (base64 3 µs)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &Result{
				Parse:   []Parse{{Format: FloatArrayJSON, DocsPerSec: c.tokens[0]}, {Format: Base64JSON, DocsPerSec: c.tokens[1]}},
				Reflect: []Parse{{Format: FloatArrayJSON, DocsPerSec: 10000}, {Format: Base64JSON, DocsPerSec: 50000, CheckShare: 0.4}},
				HNSW:    c.hnsw, IVF: c.ivf,
			}
			vs := Verdicts(env, res)
			if got := verdictWords(vs); got != c.words {
				t.Errorf("verdicts %s, want %s (%v)", got, c.words, vs)
			}
			all := ""
			for _, v := range vs {
				all += v.Reason + "\n"
			}
			if !strings.Contains(all, c.reason) {
				t.Errorf("no reason contains %q:\n%s", c.reason, all)
			}
		})
	}
}
