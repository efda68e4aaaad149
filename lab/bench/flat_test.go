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

// TestFlat runs ours at a tiny scale: every round has positive medians and
// the fastest is no slower than the median. (The C loop, whose build
// takes most of a test's time, is checked once, by cmd/veclab's
// TestBenchFlatTiny through this function.)
func TestFlat(t *testing.T) {
	ds, _ := tinySet(t)
	cfg := DefaultFlatConfig()
	cfg.MinSeconds, cfg.Reps, cfg.C = 0, 2, false
	rep, err := Flat(ds, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Ours) != 2 || rep.C != nil || rep.SlabMB != float64(4*400*32)/1e6 {
		t.Fatalf("%d rounds, C rounds %v, slab %.3f MB", len(rep.Ours), rep.C, rep.SlabMB)
	}
	for _, r := range rep.Ours {
		if !(r.FloorMs > 0 && r.QueryMs > 0 && r.Ratio > 0 && r.FastQueryMs <= r.QueryMs && r.FastFloorMs <= r.FloorMs) {
			t.Errorf("round %+v", r)
		}
	}
	if s := Summarize(rep.Ours); !(s.FastRatio > 0) || s.QueryMs != (rep.Ours[0].QueryMs+rep.Ours[1].QueryMs)/2 {
		t.Errorf("summary %+v of %+v", s, rep.Ours)
	}
	if _, err := Flat(nil, engine.Cosine, DefaultFlatConfig(), nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("nil data set: %v", err)
	}
}
