package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/internal/testenv"
)

func TestHNSWConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*HNSWConfig)
		want string // "" for valid
	}{
		{"defaults", func(*HNSWConfig) {}, ""},
		{"m", func(c *HNSWConfig) { c.M = 1 }, "m 1 < 2"},
		{"k", func(c *HNSWConfig) { c.K = 0 }, "k 0 < 1"},
		{"ef", func(c *HNSWConfig) { c.Efs = []int{10, 0} }, "ef 0 < 1"},
		{"no efc", func(c *HNSWConfig) { c.EfConstructions = nil }, "no efConstruction"},
		{"timing", func(c *HNSWConfig) { c.Timing = "fast" }, `timing "fast"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultHNSWConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bench: hnsw: ") {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHNSW builds and sweeps at a tiny scale beside hnswlib's harness:
// recall rises with ef to what a working graph reaches, the
// single-threaded build is deterministic (two runs give the same recall
// and distance counts), and hnswlib, drawing levels from the same seed,
// reaches the same recall within 0.02 at every ef.
func TestHNSW(t *testing.T) {
	testenv.Need(t, testenv.CXX, testenv.Hnswlib)
	ds, truth := tinySet(t)
	cfg := DefaultHNSWConfig()
	cfg.EfConstructions, cfg.Efs, cfg.MinSeconds, cfg.Workers, cfg.Hnswlib = []int{32}, []int{10, 64}, 0, 2, true
	rep, err := HNSW(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Sweep) != 2 || len(rep.Runs[0].Hnswlib) != 2 {
		t.Fatalf("runs %+v", rep.Runs)
	}
	r := rep.Runs[0]
	if r.BuildOne <= 0 || r.BuildAll <= 0 || r.GraphBytesPerVector <= 0 || r.BytesPerVector <= r.GraphBytesPerVector {
		t.Errorf("build figures %+v", r)
	}
	if hi := r.Sweep[1]; hi.Recall < 0.9 || hi.Recall < r.Sweep[0].Recall || hi.DistComps <= r.Sweep[0].DistComps {
		t.Errorf("sweep %+v", r.Sweep)
	}
	for i, h := range r.Hnswlib {
		if d := r.Sweep[i].Recall - h.Recall; d > 0.02 || d < -0.02 {
			t.Errorf("ef %d: recall veclab %.3f, hnswlib %.3f", h.Ef, r.Sweep[i].Recall, h.Recall)
		}
	}
	if _, ok := r.HnswlibBuild(1); !ok {
		t.Errorf("no single-threaded hnswlib build in %+v", r.HnswlibBuilds)
	}
	if !(rep.Exact.Ratio > 0) || rep.Exact.Best > rep.Exact.Median {
		t.Errorf("exact vs stream %+v", rep.Exact)
	}
	cfg.Hnswlib = false
	again, err := HNSW(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range again.Runs[0].Sweep {
		if q := r.Sweep[i]; p.Recall != q.Recall || p.DistComps != q.DistComps {
			t.Errorf("ef %d: a second single-threaded build gives recall %v, %v distances; the first %v, %v", p.Ef, p.Recall, p.DistComps, q.Recall, q.DistComps)
		}
	}
	if _, err := HNSW(ds, truth, engine.Cosine, HNSWConfig{}, nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("zero config: %v", err)
	}
}
