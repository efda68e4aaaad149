package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestFlatConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*FlatConfig)
		want string // "" for valid
	}{
		{"defaults", func(*FlatConfig) {}, ""},
		{"k", func(c *FlatConfig) { c.K = 0 }, "k 0 < 1"},
		{"reps", func(c *FlatConfig) { c.Reps = 0 }, "reps 0 < 1"},
		{"min-seconds", func(c *FlatConfig) { c.MinSeconds = -1 }, "min-seconds -1 < 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultFlatConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "bench: flat: "+tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFlat runs each side at a tiny scale: every round has positive
// medians, the fastest is no slower than the median, and the C loop (built
// from bench/peers/cflat) answers query 0 as we do.
func TestFlat(t *testing.T) {
	ds, _ := tinySet(t)
	for _, c := range []bool{false, true} {
		cfg := DefaultFlatConfig()
		cfg.MinSeconds, cfg.Reps, cfg.C = 0, 2, c
		rep, err := Flat(ds, engine.Cosine, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		rounds := [][]FlatRound{rep.Ours}
		if c {
			if len(rep.C) != 2 || rep.CRanks != 10 || rep.CSame != 10 {
				t.Fatalf("C rounds %d, query 0 same at %d of %d ranks", len(rep.C), rep.CSame, rep.CRanks)
			}
			rounds = append(rounds, rep.C)
		} else if rep.C != nil {
			t.Fatalf("C rounds without C: %+v", rep.C)
		}
		for _, rs := range rounds {
			if len(rs) != 2 {
				t.Fatalf("%d rounds, want 2", len(rs))
			}
			for _, r := range rs {
				if !(r.FloorMs > 0 && r.QueryMs > 0 && r.Ratio > 0 && r.FastQueryMs <= r.QueryMs && r.FastFloorMs <= r.FloorMs) {
					t.Errorf("round %+v", r)
				}
			}
			if s := Summarize(rs); !(s.FastRatio > 0) {
				t.Errorf("summary %+v", s)
			}
		}
	}
	if _, err := Flat(nil, engine.Cosine, DefaultFlatConfig(), nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("nil data set: %v", err)
	}
}
