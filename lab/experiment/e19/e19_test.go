package e19

import (
	"errors"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/dataset/bulk"
	"github.com/veclab/veclab/lab/experiment"
)

func TestE19SmallTable(t *testing.T) {
	env := exptest.Small(t)
	sz := SizesFor(env.Scale)
	sz.HNSW = min(sz.HNSW, 1000)
	sz.Budget = 50 * time.Millisecond
	res, err := Measure(env, Default, sz)
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
	env := exptest.Small(t)
	tests := []struct {
		name string
		err  func() error
	}{
		{"parse no formats", func() error { _, err := e19MeasureParse(env, nil, bulk.Tokens, 10, 10, 0); return err }},
		{"parse too many docs", func() error {
			_, err := e19MeasureParse(env, Default, bulk.Tokens, env.Scale.N+1, 10, 0)
			return err
		}},
		{"parse negative budget", func() error { _, err := e19MeasureParse(env, Default, bulk.Tokens, 10, 10, -1); return err }},
		{"ingest unknown kind", func() error { _, err := e19MeasureIngest(env, IndexKind(7), Default, 10, 10); return err }},
		{"ingest zero docs", func() error { _, err := e19MeasureIngest(env, IVF, Default, 0, 10); return err }},
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
	env := exptest.Small(t)
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
			"agrees agrees agrees agrees agrees agrees", "through Go's encoding/json 5.0× (100.0 and 20.0 µs), 40 % of its base64 parse"},
		{"a slow token parser, parsing a small part of IVF", [2]float64{30000, 60000},
			ingest(HNSW, 30*time.Millisecond, 3*time.Millisecond, 150*time.Millisecond),
			ingest(IVF, 30*time.Millisecond, 3*time.Millisecond, 100*time.Millisecond),
			"differs agrees agrees agrees differs agrees", "parsing float arrays costs 30 µs a document against 100 µs of indexing, 23 % of the ingest (base64 3 µs); the magnitude is the saving's share of the ingest, 21 % here"},
		{"base64 slower to ingest", [2]float64{30000, 400000},
			ingest(HNSW, 3*time.Millisecond, 30*time.Millisecond, 150*time.Millisecond),
			ingest(IVF, 3*time.Millisecond, 30*time.Millisecond, 30*time.Millisecond),
			"agrees differs differs differs differs differs", "the opposite direction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &Result{
				Parse:   []Parse{{Format: bulk.FloatArrayJSON, DocsPerSec: c.tokens[0]}, {Format: bulk.Base64JSON, DocsPerSec: c.tokens[1]}},
				Reflect: []Parse{{Format: bulk.FloatArrayJSON, DocsPerSec: 10000}, {Format: bulk.Base64JSON, DocsPerSec: 50000, CheckShare: 0.4}},
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
