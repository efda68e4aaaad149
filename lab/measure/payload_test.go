package measure

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// TestStoreFilteredKnobs measures a filter under the two filtered-search
// knobs a notebook sets: Qdrant's payload indexes (without them the
// filter reads stored payloads, with them it reads none) and pgvector's
// hnsw.iterative_scan (off post-filters ef_search rows; relaxed_order
// goes on until LIMIT rows pass).
func TestStoreFilteredKnobs(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 1200, Queries: 6, Dim: 16, Clusters: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	all.Warmup = 0
	q, err := all.Where(dataset.ArticleWhere)
	if err != nil {
		t.Fatal(err)
	}
	qd := profile.Default(profile.Qdrant)
	qd.Segments = 1
	pg := profile.Default(profile.PGVector)
	pg.SeqScanOff = true // keep the index on so small a table
	tests := []struct {
		name      string
		p         profile.Profile
		view      func(*profile.Store) *profile.Store
		reads     bool    // payload reads > 0
		minHits   float64 // mean hits at least
		maxRecall float64 // recall at most (1: any)
	}{
		{"qdrant, no payload index", qd, nil, true, 10, 1},
		{"qdrant, category,year", func() profile.Profile { p := qd; p.PayloadIndex = "category,year"; return p }(), nil, false, 10, 1},
		{"pgvector ef_search 10, off", pg, func(s *profile.Store) *profile.Store { return s.WithEf(10) }, true, 0, 0.9},
		{"pgvector ef_search 10, relaxed_order", pg, func(s *profile.Store) *profile.Store { return s.WithEf(10).WithIterativeScan("relaxed_order") }, true, 10, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.p.Build(ds.Base, profile.BuildOptions{Batch: 300})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			v := s
			if tc.view != nil {
				v = tc.view(s)
			}
			r, err := Store(v, q)
			if err != nil {
				t.Fatal(err)
			}
			if (r.PayloadReads > 0) != tc.reads {
				t.Errorf("%.0f payload reads per query, want reads %t", r.PayloadReads, tc.reads)
			}
			if r.MeanHits < tc.minHits || r.Recall > tc.maxRecall {
				t.Errorf("mean hits %.1f (want ≥ %.0f), recall %.3f (want ≤ %.2f): %v", r.MeanHits, tc.minHits, r.Recall, tc.maxRecall, r)
			}
		})
	}
}
