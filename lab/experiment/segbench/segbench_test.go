package segbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
)

func TestSegmentsBenchConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"ef", func(c *Config) { c.Ef = 0 }, "ef 0"},
		{"writers", func(c *Config) { c.Writers = -1 }, "writers -1"},
		{"no counts", func(c *Config) { c.Counts = nil }, "no segment counts"},
		{"efs", func(c *Config) { c.Efs = []int{10, 0} }, "ef sweep: 0 < 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSegmentsBench runs every part at a tiny scale: the ingest rows come
// in parallel/single pairs, the force-merged collection has the segment
// counts asked for, the modes give four rows per ef, and Tables returns
// the four tables (two when ingest and modes are skipped).
func TestSegmentsBench(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Scale{Name: "tiny", N: 1200, Dim: 16, Clusters: 8, Queries: 10, K: 10, Warmup: 2, Batch: 250}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.K, cfg.Ef, cfg.Efs, cfg.Counts, cfg.ModeSegments = 10, 20, []int{20}, []int{4, 1}, 3
	rep, err := Run(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Ingest) != 4 || rep.Config.Writers < 2 || rep.Config.Flush != 150 {
		t.Errorf("ingest %d rows, writers %d, flush %d", len(rep.Ingest), rep.Config.Writers, rep.Config.Flush)
	}
	if len(rep.Counts) != 2 || rep.Counts[0].Segments != 4 || rep.Counts[1].Segments != 1 {
		t.Errorf("counts %+v", rep.Counts)
	}
	if rep.Modes == nil || len(rep.Modes.Sequential) != 1 || len(rep.Modes.SharedConcurrent) != 1 {
		t.Errorf("modes %+v", rep.Modes)
	}
	if ts := rep.Tables(); len(ts) != 4 || !strings.Contains(ts[1].String(), "force-merged") {
		t.Errorf("%d tables", len(ts))
	}
	cfg.SkipIngest, cfg.SkipModes = true, true
	rep, err = Run(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ingest != nil || rep.Modes != nil || len(rep.Tables()) != 1 {
		t.Errorf("skipped parts ran: %d tables", len(rep.Tables()))
	}
}
