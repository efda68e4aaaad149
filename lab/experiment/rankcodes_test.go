package experiment

import (
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
)

// TestRankCodes checks the kept flat scan against the measurement it
// replaces: QuantFlat's figures for a catalogue quantizer, recall that
// never falls as the oversample grows, exact float32 ranks (nil) at
// recall 1, and every bad argument refused.
func TestRankCodes(t *testing.T) {
	env := small(t)
	over := []float64{1, 2, 3, 10}
	want, err := QuantFlat(env, "bbq", over)
	if err != nil {
		t.Fatal(err)
	}
	q, err := TrainQuantizer(env, "bbq")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := RankCodes(env, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	if cr.RecallNone() != want.RecallNone || cr.BytesPerVector != want.BytesPerVector {
		t.Errorf("codes only %v, %v B/vector; QuantFlat %v, %v", cr.RecallNone(), cr.BytesPerVector, want.RecallNone, want.BytesPerVector)
	}
	prev := 0.0
	for i, o := range over {
		got, err := cr.Recall(o)
		if err != nil {
			t.Fatal(err)
		}
		if got != want.RecallOver[i] {
			t.Errorf("o = %g: recall %v, QuantFlat %v", o, got, want.RecallOver[i])
		}
		if got < prev {
			t.Errorf("o = %g: recall %v fell from %v", o, got, prev)
		}
		prev = got
	}
	// TrueRanks is the picture of Recall: the share of true neighbours
	// ranked within ⌈o·K⌉ is recall after rescoring them.
	ranks := cr.TrueRanks()
	if len(ranks) != env.Scale.Queries || cr.Ranked() != 100 {
		t.Fatalf("TrueRanks: %d rows for %d queries, %d ranked (want 100)", len(ranks), env.Scale.Queries, cr.Ranked())
	}
	for i, o := range over {
		cut, in := cr.Candidates(o), 0
		for _, row := range ranks {
			if len(row) != cr.K {
				t.Fatalf("TrueRanks: a row of %d ranks, want K = %d", len(row), cr.K)
			}
			for _, r := range row {
				if r < 0 || r > cr.Ranked() {
					t.Fatalf("TrueRanks: rank %d outside 0…%d", r, cr.Ranked())
				}
				if r >= 1 && r <= cut {
					in++
				}
			}
		}
		if got := float64(in) / float64(len(ranks)*cr.K); math.Abs(got-want.RecallOver[i]) > 1e-9 {
			t.Errorf("o = %g: %v of the true ranks within %d, recall %v", o, got, cut, want.RecallOver[i])
		}
	}
	if r := exactRanks(t, env); r != nil {
		t.Errorf("float32 ranks: true neighbours at %v, want 1…K in order", r)
	}
	if n := cr.Candidates(2.5); n != 25 {
		t.Errorf("Candidates(2.5) = %d, want ⌈2.5·10⌉ = 25", n)
	}
	exact, err := RankCodes(env, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := exact.RecallNone(); r != 1 {
		t.Errorf("float32 ranks: recall %v, want 1", r)
	}
	ds, err := env.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := quant.TrainOSQ(ds.Base, engine.L2, quant.OSQConfig{Bits: 1}) // the set is cosine
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"nil env", func() error { _, err := RankCodes(nil, q, 3); return err }},
		{"max oversample below 1", func() error { _, err := RankCodes(env, q, 0.5); return err }},
		{"another metric's codes", func() error { _, err := RankCodes(env, wrong, 3); return err }},
		{"oversample below 1", func() error { _, err := cr.Recall(0.9); return err }},
		{"oversample beyond the ranked", func() error { _, err := cr.Recall(11); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, ErrBadArgument) {
				t.Errorf("got %v, want errBadArgument", err)
			}
		})
	}
}

// exactRanks returns the first row of the float32 ranking's TrueRanks
// that is not 1, 2, …, K (exact search ranks each true neighbour at its
// own place), or nil.
func exactRanks(t *testing.T, env *Env) []int {
	t.Helper()
	exact, err := RankCodes(env, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range exact.TrueRanks() {
		for j, r := range row {
			if r != j+1 {
				return row
			}
		}
	}
	return nil
}
