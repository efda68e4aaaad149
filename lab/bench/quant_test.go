package bench

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
)

// TestQuantDiskSameRecall rescores once from RAM and once from an on-disk
// vector file in a lab/scratch directory (the tab's in-memory file system
// in a browser): the vectors read back are the same float32s, so every
// recall must be equal, and the file run must have read vectors.
func TestQuantDiskSameRecall(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 50, Dim: 32, Clusters: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "")
	if err != nil {
		t.Fatal(err)
	}
	run := func(disk bool) *QuantReport {
		cfg := DefaultQuantConfig()
		cfg.Only, cfg.Oversample, cfg.Flat, cfg.Graph, cfg.Workers, cfg.Disk = []string{"int8"}, []float64{3}, true, true, 1, disk
		rep, err := Quant(ds, truth, engine.Cosine, cfg, nil)
		if err != nil {
			t.Fatalf("Quant(Disk: %v): %v", disk, err)
		}
		if len(rep.Rows) == 0 {
			t.Fatalf("Quant(Disk: %v): no rows", disk)
		}
		return rep
	}
	ram, file := run(false), run(true)
	for i := range ram.Rows {
		r, f := ram.Rows[i], file.Rows[i]
		if r.FlatOver[0] != f.FlatOver[0] || r.HNSWOver[0] != f.HNSWOver[0] {
			t.Errorf("%s: rescored recall from RAM %v/%v, from the file %v/%v: want equal", r.Name, r.FlatOver[0], r.HNSWOver[0], f.FlatOver[0], f.HNSWOver[0])
		}
		if f.Reads == 0 {
			t.Errorf("%s: no vector reads from the file", f.Name)
		}
	}
}
