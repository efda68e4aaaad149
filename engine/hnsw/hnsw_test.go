package hnsw

import (
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestRecall(t *testing.T) {
	const dim, nq, k = 32, 50, 10
	n := 3000
	if raceEnabled { // the race detector makes builds ~10× slower
		n = 1000
	}
	data := clustered(n+nq, dim, 10, 0.6, 1)
	base := *data
	base.N = n
	for _, tc := range []struct {
		name    string
		cfg     Config
		ef      int
		floor   float64
		metric  engine.Metric
		workers int
	}{
		{"hnswlib-cosine", HnswlibConfig(dim, engine.Cosine, 16, 100), 64, 0.95, engine.Cosine, 1},
		{"pgvector-l2", PgvectorConfig(dim, engine.L2, 16, 64), 64, 0.95, engine.L2, 1},
		{"simple-dot", Config{Dim: dim, Metric: engine.Dot, Selection: Simple, EfConstruction: 100}, 64, 0.9, engine.Dot, 1},
		{"parallel", Config{Dim: dim, EfConstruction: 100}, 64, 0.95, engine.Cosine, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Workers = tc.workers
			ix, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.AddBatch(seqKeys(n), &base); err != nil {
				t.Fatal(err)
			}
			s := ix.NewSearcher()
			var sum float64
			for i := 0; i < nq; i++ {
				q := data.Row(n + i)
				got, err := s.Search(q, engine.Request{K: k, Breadth: tc.ef})
				if err != nil {
					t.Fatal(err)
				}
				sum += recallOf(got, bruteForce(&base, q, k, tc.metric, nil))
			}
			r := sum / nq
			t.Logf("recall@%d = %.3f at ef %d, %.0f bytes/vector", k, r, tc.ef, ix.BytesPerVector())
			if r < tc.floor {
				t.Fatalf("recall@%d = %.3f, want ≥ %.2f", k, r, tc.floor)
			}
		})
	}
}
