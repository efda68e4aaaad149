package bench

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
)

func TestBatchConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*BatchConfig)
		want string // "" for valid
	}{
		{"defaults", func(*BatchConfig) {}, ""},
		{"rounds", func(c *BatchConfig) { c.Rounds = 0 }, "rounds 0"},
		{"clients", func(c *BatchConfig) { c.Clients = []int{1, 0} }, "clients 0 < 1"},
		{"no ef", func(c *BatchConfig) { c.Efs = nil }, "no ef values"},
		{"target", func(c *BatchConfig) { c.Target = 1.5 }, "target 1.5 in (0, 1]"},
		{"timing", func(c *BatchConfig) { c.Timing = "fast" }, `timing "fast"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultBatchConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bench: batch: ") {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestBatchRatios checks the pairing on a report built by hand: each
// round's ratio is ours over the peer's of the same round (interpolated
// at the target for HNSW), the figure is their median, and a round where
// a side misses the target gives no ratio.
func TestBatchRatios(t *testing.T) {
	rep := &BatchReport{Config: DefaultBatchConfig()}
	rep.Config.Clients, rep.Config.Faiss, rep.Config.Target = []int{2}, false, 0.9
	// Round r: ours 100·(r+1) QPS, hnswlib 50 QPS at recall 0.9, so the
	// per-round ratios are 2, 4 and 6 (median 4); CPU ratios 1, 2, 3.
	for r := range 3 {
		ours := []BatchPoint{{Clients: 2, Param: 10, Recall: 0.8, QPS: 200 * float64(r+1), CPUQPS: 100 * float64(r+1)},
			{Clients: 2, Param: 40, Recall: 1, QPS: 0, CPUQPS: 0}}
		peer := []BatchPoint{{Clients: 2, Param: 10, Recall: 0.8, QPS: 100, CPUQPS: 100},
			{Clients: 2, Param: 40, Recall: 1, QPS: 0, CPUQPS: 0}}
		rep.Rounds = append(rep.Rounds, BatchRound{Clients: 2, Round: r + 1, Points: map[string][]BatchPoint{VeclabHNSW: ours, HnswlibBatch: peer}})
	}
	// A fourth round where hnswlib never reaches recall 0.9.
	rep.Rounds = append(rep.Rounds, BatchRound{Clients: 2, Round: 4, Points: map[string][]BatchPoint{
		VeclabHNSW:   {{Clients: 2, Param: 10, Recall: 0.95, QPS: 1000, CPUQPS: 1000}},
		HnswlibBatch: {{Clients: 2, Param: 10, Recall: 0.5, QPS: 1, CPUQPS: 1}}}})
	rs := rep.Ratios()
	if len(rs) != 1 {
		t.Fatalf("ratios %+v", rs)
	}
	r := rs[0]
	if r.System != "hnsw" || r.WallN != 3 || r.Wall != 4 || r.WallMin != 2 || r.WallMax != 6 || r.CPUN != 3 || r.CPU != 2 {
		t.Errorf("ratio %+v, want wall median 4 (2–6) and CPU 2 over 3 rounds", r)
	}
	if pts := rep.Points(VeclabHNSW); len(pts) != 2 || pts[0].Param != 10 || pts[0].QPS != 500 {
		t.Errorf("median points %+v", pts)
	}
}

// TestBatch runs ours alone at a tiny scale: exact search has recall 1,
// every (clients, ef / nprobe) point is there in every round, and without
// peers there are no ratios.
func TestBatch(t *testing.T) {
	ds, truth := tinySet(t)
	cfg := DefaultBatchConfig()
	cfg.Hnswlib, cfg.Faiss, cfg.MinSeconds, cfg.Rounds = false, false, 0, 2
	cfg.Clients, cfg.Efs, cfg.Nprobes, cfg.EfConstruction = []int{1, 3}, []int{10, 40}, []int{1, 20}, 32
	rep, err := Batch(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 4 {
		t.Fatalf("%d rounds, want 2 client counts × 2", len(rep.Rounds))
	}
	for _, r := range rep.Rounds {
		if f := r.Points[VeclabFlat]; len(f) != 1 || f[0].Recall != 1 {
			t.Errorf("round %d, %d clients: flat %+v", r.Round, r.Clients, f)
		}
		if len(r.Points[VeclabHNSW]) != 2 || len(r.Points[VeclabIVF]) != 2 {
			t.Errorf("round %d: %+v", r.Round, r.Points)
		}
		for sys, ps := range r.Points {
			for _, p := range ps {
				if p.Clients != r.Clients || !(p.QPS > 0) || p.Recall <= 0 {
					t.Errorf("round %d, %s: %+v, want %d clients, QPS and recall > 0", r.Round, sys, p, r.Clients)
				}
			}
		}
	}
	// nprobe 20 of 20 lists is exact.
	if p := rep.Points(VeclabIVF); len(p) != 4 || p[1].Recall != 1 {
		t.Errorf("IVF points %+v", p)
	}
	if rs := rep.Ratios(); len(rs) != 0 {
		t.Errorf("ratios without peers: %+v", rs)
	}
	if _, err := Batch(ds, &dataset.GroundTruth{K: 5, IDs: truth.IDs}, engine.Cosine, cfg, nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("truth of 5 neighbours for k 10: %v", err)
	}
}

// ExampleBatch measures batch search of our three indexes on a small
// generated set, two rounds per client count, without peers, and prints
// the recall of each point (the QPS depend on the machine).
func ExampleBatch() {
	ds, err := dataset.Generate(dataset.Config{N: 400, Queries: 8, Dim: 16, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	truth, err := dataset.Truth(ds, 10, engine.Cosine, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := DefaultBatchConfig()
	cfg.Hnswlib, cfg.Faiss, cfg.MinSeconds, cfg.Rounds, cfg.Threads = false, false, 0, 2, 1
	cfg.Clients, cfg.Efs, cfg.Nprobes, cfg.Nlist = []int{2}, []int{100}, []int{20}, 20
	rep, err := Batch(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sys := range []string{VeclabFlat, VeclabHNSW, VeclabIVF} {
		for _, p := range rep.Points(sys) {
			fmt.Printf("%s, %d clients, ef/nprobe %d: recall@10 %.2f\n", sys, p.Clients, p.Param, p.Recall)
		}
	}
	// Output:
	// veclab flat, 2 clients, ef/nprobe 0: recall@10 1.00
	// veclab HNSW, 2 clients, ef/nprobe 100: recall@10 1.00
	// veclab IVF-Flat, 2 clients, ef/nprobe 20: recall@10 1.00
}
