package e22

import (
	"errors"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e10"
	"github.com/veclab/veclab/lab/experiment/e21"
	"github.com/veclab/veclab/lab/experiment/e23"
	"github.com/veclab/veclab/lab/experiment/e24"
)

// TestQuantExperimentsSmall runs E22–E24 at the small scale and checks
// what the mechanisms promise: compression by code width, rescoring that
// never loses recall as the oversample grows, and the correction term.
func TestQuantExperimentsSmall(t *testing.T) {
	env := exptest.Small(t)
	for _, e := range []experiment.Experiment{Experiment, e23.Experiment, e24.Experiment} {
		r := experiment.Run(env, e)
		if r.Status != experiment.OK {
			t.Fatalf("%s: %s: %s", e.ID, r.Status, r.Err)
		}
		if len(r.Tables) == 0 || len(r.Charts) == 0 {
			t.Fatalf("%s: no table or chart", e.ID)
		}
	}
	tb, rs, err := e24.Measure(env, []float64{1, 3, 10})
	if err != nil {
		t.Fatal(err)
	}
	raw, bbq := rs[0], rs[1]
	if raw.RecallNone < 0.999 || raw.Compression != 1 {
		t.Errorf("raw flat scan: recall %v compression %v, want exact and 1×", raw.RecallNone, raw.Compression)
	}
	if bbq.Compression < 16 || bbq.Compression > 32 {
		t.Errorf("bbq compression %v, want between 16× and 32× at dim %d", bbq.Compression, env.Scale.Dim)
	}
	if !(bbq.RecallOver[2] >= bbq.RecallOver[1] && bbq.RecallOver[1] >= bbq.RecallOver[0]) {
		t.Errorf("bbq recall not monotone in oversample: %v", bbq.RecallOver)
	}
	if bbq.RecallOver[2] <= bbq.RecallNone {
		t.Errorf("bbq: rescoring ×10 (%v) does not beat codes alone (%v)", bbq.RecallOver[2], bbq.RecallNone)
	}
	if a := exptest.Float(t, tb, "bbq", "compression × (article)"); a != 32 {
		t.Errorf("E24 article compression for bbq = %v, want 32", a)
	}
	if l := exptest.Float(t, tb, "bbq", "compression × (lab)"); l != bbq.Compression {
		t.Errorf("E24 lab compression cell %v, measured %v", l, bbq.Compression)
	}
	_, rs, err = e23.Measure(env, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if i4, nc := rs[2], rs[3]; i4.RecallNone+0.02 < nc.RecallNone {
		t.Errorf("int4 with correction %v clearly below without %v", i4.RecallNone, nc.RecallNone)
	}
	if _, err := experiment.QuantFlat(env, "int3", []float64{1}); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("unknown quantizer: %v", err)
	}
	if _, err := e24.Sweep(env, []float64{0.5}); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("oversample 0.5: %v", err)
	}
}

// TestE10Small checks the index-type table: three rows, int8 and hnsw
// above bbq's recall at the default beam, and quantized types costing
// resident bytes beside the float32 vectors.
func TestE10Small(t *testing.T) {
	env := exptest.Small(t)
	r := experiment.Run(env, e10.Experiment)
	if r.Status != experiment.OK {
		t.Fatalf("E10: %s: %s", r.Status, r.Err)
	}
	tb := r.Tables[0]
	if len(tb.Rows) != 3 {
		t.Fatalf("E10 has %d rows", len(tb.Rows))
	}
	bbq, plain := exptest.Float(t, tb, "bbq_hnsw", "resident bytes/vector"), exptest.Float(t, tb, "hnsw", "resident bytes/vector")
	if bbq <= plain {
		t.Errorf("bbq_hnsw resident %v B/vector not above hnsw %v (codes are kept beside float32)", bbq, plain)
	}
	if a := exptest.Float(t, tb, "hnsw", "recall@10 (article)"); a != 0.995 {
		t.Errorf("article figure for hnsw = %v", a)
	}
	// Eleven verdicts: recall and filtered recall per type, bbq lowest, two
	// size ratios, and the default's spread over rebuilt seeds and the gap
	// to int8_hnsw over it; the float32 type is exact enough at any scale.
	if len(r.Verdicts) != 11 {
		t.Errorf("E10 stated %d verdicts, want 11: %v", len(r.Verdicts), r.Verdicts)
	}
	for _, v := range r.Verdicts {
		if strings.HasPrefix(v.Claim, "hnsw (index type)") && !v.Agrees {
			t.Errorf("E10: %s", v)
		}
	}
}

// TestE21Small checks the kernel table's shape and that both kernels agree
// on a dot product (timings themselves are not asserted).
func TestE21Small(t *testing.T) {
	env := exptest.Small(t)
	tb, err := e21.Kernels(env, []int{16, 384}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 2 || exptest.Float(t, tb, "384", "engine vec.Dot ns (lab)") <= 0 || exptest.Float(t, tb, "384", "engine pure-Go twin ns (lab)") <= 0 {
		t.Fatalf("E21 table: %v", tb)
	}
	a, b := make([]float32, 384), make([]float32, 384)
	for i := range a {
		a[i], b[i] = float32(i%7)-3, float32(i%5)-2
	}
	if s, v := e21.ScalarDot(a, b), vec.Dot(a, b); s != v {
		t.Errorf("scalar %v vs vec.Dot %v on small integers", s, v)
	}
	if dps, err := e21.Build(env, 300); err != nil || dps <= 0 {
		t.Errorf("E21Build: %v, %v", dps, err)
	}
	if _, err := e21.Kernels(env, nil, time.Millisecond); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("no dims: %v", err)
	}
}
