package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/dataset"
)

func tinySet(t *testing.T) (*dataset.Dataset, *dataset.GroundTruth) {
	t.Helper()
	ds, err := dataset.Generate(dataset.Config{N: 400, Queries: 5, Dim: 32, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "")
	if err != nil {
		t.Fatal(err)
	}
	return ds, truth
}

// TestQuantFlat: the raw flat scan is exact and rescoring a larger
// candidate set never loses recall on the flat scan.
func TestQuantFlat(t *testing.T) {
	ds, truth := tinySet(t)
	cfg := DefaultQuantConfig()
	cfg.Graph, cfg.Only = false, []string{"raw", "int4", "bbq"}
	rep, err := Quant(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 || rep.Rows[0].Name != "raw" || rep.Rows[0].FlatNone != 1 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	for _, r := range rep.Rows {
		prev := r.FlatNone
		for i, v := range r.FlatOver {
			if v < prev {
				t.Errorf("%s: recall %.3f at ×%g below %.3f", r.Name, v, cfg.Oversample[i], prev)
			}
			prev = v
		}
	}
	if !strings.Contains(rep.String(), "recall@10 on 400×32") {
		t.Errorf("report:\n%s", rep)
	}
	bad := cfg
	bad.Oversample, bad.Only, bad.Cold = []float64{0.5}, []string{"int3"}, true
	if err := bad.Validate(); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "oversample 0.5") ||
		!strings.Contains(err.Error(), `"int3"`) || !strings.Contains(err.Error(), "-cold needs -disk") {
		t.Errorf("Validate: %v", err)
	}
}

// TestFilterExact: exact filtered search finds every true neighbour and a
// post-filter over a 1 % filter returns fewer than k.
func TestFilterExact(t *testing.T) {
	ds, _ := tinySet(t)
	cfg := DefaultFilterConfig()
	cfg.Filters, cfg.Warmup, cfg.Workers, cfg.Seeds, cfg.NoIndex, cfg.PayloadLinks = []string{"0.01"}, 0, 1, 0, false, false
	cfg.Strategies = nil
	for _, n := range []string{"exact", "postfilter"} {
		s, err := filtered.ParseStrategy(n)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Strategies = append(cfg.Strategies, s)
	}
	rep, err := Filter(ds, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Strategy != "exact" || rep.Rows[0].Recall != 1 || rep.Rows[1].Hits >= 10 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	if _, err := rep.Table(); err != nil {
		t.Fatal(err)
	}
}

// TestFindPeers finds bench/peers in the checkout holding the working
// directory (internal/checkout) and refuses, with ErrInvalidArgument, a
// peer it does not hold and a working directory outside any checkout.
func TestFindPeers(t *testing.T) {
	dir, err := findPeers("", "cflat")
	if err != nil || !strings.HasSuffix(dir, "bench/peers") {
		t.Fatalf("findPeers = %q, %v", dir, err)
	}
	if _, err := findPeers("", "nosuchpeer"); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("findPeers of a missing peer: %v", err)
	}
	if _, err := findPeers(t.TempDir(), "cflat"); err == nil {
		t.Fatal("findPeers of an empty -peer-src: no error")
	}
	t.Chdir(t.TempDir())
	if _, err := findPeers("", "cflat"); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "-peer-src") {
		t.Fatalf("findPeers outside a checkout: %v", err)
	}
}
