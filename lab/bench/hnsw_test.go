package bench

import (
	"errors"
	"math"
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
		{"rounds", func(c *HNSWConfig) { c.Rounds = 0 }, "rounds 0 < 1"},
		{"peer", func(c *HNSWConfig) { c.Peers = []string{"hnswlib", "annoy"} }, `peer "annoy": want one of hnswlib, usearch`},
		{"rescore", func(c *HNSWConfig) { c.PeerRescore = 0 }, "peer rescore 0 < 1"},
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
	cfg.EfConstructions, cfg.Efs, cfg.MinSeconds, cfg.Workers, cfg.Peers, cfg.Rounds = []int{32}, []int{10, 64}, 0, 2, []string{"hnswlib"}, 2
	rep, err := HNSW(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Sweep) != 2 || len(rep.Runs[0].Rounds) != 2 {
		t.Fatalf("runs %+v", rep.Runs)
	}
	r := rep.Runs[0]
	h, ok := r.Peer("hnswlib")
	if !ok || len(h.Sweep) != 2 || len(h.Rounds) != 2 {
		t.Fatalf("hnswlib peer %+v", r.Peers)
	}
	if r.BuildOne <= 0 || r.BuildAll <= 0 || r.GraphBytesPerVector <= 0 || r.BytesPerVector <= r.GraphBytesPerVector {
		t.Errorf("build figures %+v", r)
	}
	if hi := r.Sweep[1]; hi.Recall < 0.9 || hi.Recall < r.Sweep[0].Recall || hi.DistComps <= r.Sweep[0].DistComps {
		t.Errorf("sweep %+v", r.Sweep)
	}
	for i, p := range h.Sweep {
		if d := r.Sweep[i].Recall - p.Recall; d > 0.02 || d < -0.02 {
			t.Errorf("ef %d: recall veclab %.3f, hnswlib %.3f", p.Ef, r.Sweep[i].Recall, p.Recall)
		}
	}
	if _, ok := h.Build(1); !ok {
		t.Errorf("no single-threaded hnswlib build in %+v", h.Builds)
	}
	// hnswlib's memory per vector: 4·dim of vector, 2M+1 words of level 0
	// links and count, an 8-byte label, and upper levels for a few.
	if lo := float64(4*32 + 4*(2*16+1) + 8); h.BytesPerVector < lo || h.BytesPerVector > 1.5*lo {
		t.Errorf("hnswlib bytes/vector %.1f, want %.0f…%.0f", h.BytesPerVector, lo, 1.5*lo)
	}
	if !(rep.Exact.Ratio > 0) || rep.Exact.Best > rep.Exact.Median {
		t.Errorf("exact vs stream %+v", rep.Exact)
	}
	cfg.Peers, cfg.Rounds = nil, 1
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

// testHNSWPeers runs the named peers at a tiny scale, two rounds, and
// checks what a working peer must give: two builds, a positive memory
// figure, one sweep per round, recall at ef 64 of at least floor[name]
// (recall@10 over 5 queries of 400 vectors), recall not falling with ef
// beyond the noise of 50 answers, and a ratio at recall 0.5.
func testHNSWPeers(t *testing.T, floor map[string]float64) {
	t.Helper()
	ds, truth := tinySet(t)
	cfg := DefaultHNSWConfig()
	cfg.EfConstructions, cfg.Efs, cfg.MinSeconds, cfg.Workers, cfg.Rounds = []int{32}, []int{10, 64}, 0, 2, 2
	for _, p := range HNSWPeers {
		if _, ok := floor[p]; ok {
			cfg.Peers = append(cfg.Peers, p)
		}
	}
	rep, err := HNSW(ds, truth, engine.Cosine, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if len(r.Peers) != len(cfg.Peers) {
		t.Fatalf("%d peers ran, want %d", len(r.Peers), len(cfg.Peers))
	}
	for _, p := range r.Peers {
		if len(p.Builds) != 2 || p.Builds[0].Threads != 1 || p.Builds[0].Wall <= 0 || !(p.BytesPerVector > 0) || p.Index == "" {
			t.Errorf("%s: builds %+v, %.1f bytes/vector, index %q", p.Name, p.Builds, p.BytesPerVector, p.Index)
		}
		if len(p.Rounds) != 2 || len(p.Sweep) != 2 {
			t.Fatalf("%s: %d rounds, sweep %+v", p.Name, len(p.Rounds), p.Sweep)
		}
		if hi := p.Sweep[1]; hi.Recall < floor[p.Name] || hi.Recall < p.Sweep[0].Recall-0.04 || !(hi.QPS > 0) || !(hi.DistComps > 0) {
			t.Errorf("%s: sweep %+v, want recall ≥ %.2f at ef 64", p.Name, p.Sweep, floor[p.Name])
		}
		if q, ok := r.RatioAt(p, 0.5); !ok || !(q.Ratio > 0) || q.Rounds != 2 || q.MinRatio > q.Ratio || q.Ratio > q.MaxRatio {
			t.Errorf("%s: ratio at recall 0.5 %+v, %v", p.Name, q, ok)
		}
	}
}

// TestHNSWPeerUSearch is the USearch peer's smoke test: f32 storage as
// good as veclab's graph; i8 close; b1 with ×4 rescoring above 0.5 (32
// sign bits rank the 40 candidates coarsely: 0.66 measured; a broken
// cast or rescoring gives near 0).
func TestHNSWPeerUSearch(t *testing.T) {
	testenv.Need(t, testenv.CXX, testenv.USearch)
	testHNSWPeers(t, map[string]float64{"usearch": 0.9, "usearch-f32acc": 0.9, "usearch-i8": 0.85, "usearch-b1": 0.5})
}

// TestHNSWPeerFAISS is the FAISS peer's smoke test: IndexHNSWFlat as good
// as veclab's graph, IndexHNSWSQ 8-bit close.
func TestHNSWPeerFAISS(t *testing.T) {
	testenv.Need(t, testenv.FAISS)
	testHNSWPeers(t, map[string]float64{"faiss": 0.9, "faiss-sq8": 0.85})
}

// TestRatioAt: the ratio is the median of per-round ratios of sweeps
// interpolated at the recall, not the ratio of medians.
func TestRatioAt(t *testing.T) {
	sweep := func(qps1, qps2 float64) []HNSWPoint {
		return []HNSWPoint{{Ef: 10, Recall: 0.9, QPS: qps1}, {Ef: 20, Recall: 1, QPS: qps2}}
	}
	run := HNSWRun{Rounds: [][]HNSWPoint{sweep(200, 100), sweep(400, 200), sweep(300, 150)}}
	peer := HNSWPeerRun{Rounds: [][]HNSWPoint{sweep(100, 50), sweep(100, 50), sweep(300, 150)}}
	for _, tc := range []struct {
		recall      float64
		ratio, peer float64
		ok          bool
	}{
		{0.9, 2, 100, true}, // rounds: 2, 4, 1
		{0.95, 2, 75, true}, // halfway: 150/75, 300/75, 225/225
		{1, 2, 50, true},    // the last point
		{0.5, 2, 100, true}, // below the sweep: its first point
		{1.01, 0, 0, false}, // never reached
	} {
		q, ok := run.RatioAt(peer, tc.recall)
		if ok != tc.ok || math.Abs(q.Ratio-tc.ratio) > 1e-9 || math.Abs(q.Peer-tc.peer) > 1e-9 {
			t.Errorf("recall %.2f: %+v %v, want ratio %v, peer QPS %v, %v", tc.recall, q, ok, tc.ratio, tc.peer, tc.ok)
		}
	}
	if m := medianSweep(peer.Rounds); m[0].QPS != 100 || m[1].QPS != 50 {
		t.Errorf("median sweep %+v", m)
	}
}

// TestPeerTableVeclabBelow: where veclab's sweep stops short of a recall
// a peer reaches, the table gives the peer's QPS there and no ratio (the
// 1M record's case: veclab 0.926 at its largest ef, the peers above 0.95).
func TestPeerTableVeclabBelow(t *testing.T) {
	ours := []HNSWPoint{{Ef: 10, Recall: 0.8, QPS: 900}, {Ef: 20, Recall: 0.93, QPS: 500}}
	theirs := []HNSWPoint{{Ef: 10, Recall: 0.9, QPS: 400}, {Ef: 20, Recall: 0.96, QPS: 300}}
	run := HNSWRun{Sweep: ours, Rounds: [][]HNSWPoint{ours, ours},
		Peers: []HNSWPeerRun{{Name: "hnswlib", Index: "HierarchicalNSW", Rounds: [][]HNSWPoint{theirs, theirs}}}}
	rep := &HNSWReport{Config: HNSWConfig{K: 10, M: 16, Workers: 2}, N: 100, Dim: 4, Metric: engine.L2, Queries: 10}
	out := rep.PeerTable(run).String()
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "hnswlib") {
			row = l
		}
	}
	// At 0.95: five sixths of the way from 0.9 (400) to 0.96 (300): 316.67;
	// at 0.99 neither side: "not reached".
	if !strings.Contains(row, "317") || !strings.Contains(row, "veclab below") || !strings.Contains(row, "not reached") {
		t.Errorf("hnswlib row %q\n%s", row, out)
	}
	if q, ok := run.Peers[0].QPSAt(0.95); !ok || math.Abs(q-1900.0/6) > 1e-9 {
		t.Errorf("QPSAt(0.95) = %v, %v, want %v", q, ok, 1900.0/6)
	}
}
