package hnsw

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestLuceneSearchPaths checks which of Lucene99HnswVectorsReader.search's
// three paths a request takes, worked by hand for 2,000 nodes with every
// tenth accepted (200 ids): ln(2000) = 7.60, so k = 30 expects to visit
// (int)(7.60·30) = 228 ≥ 200 nodes and scans the 200 exhaustively (the
// exact top 30 of them), while k = 10 expects 76 < 200 and walks the
// graph: with the filtered walk when 10 % < the threshold (60), with
// the plain walk at threshold 0. Every path returns accepted ids only;
// a visit limit of 5 cuts the walk short.
func TestLuceneSearchPaths(t *testing.T) {
	const n, dim = 2000, 16
	base := clustered(n, dim, 8, 0.4, 3)
	ix, err := New(Config{Dim: dim, Metric: engine.L2, M: 8, EfConstruction: 64, Workers: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), base); err != nil {
		t.Fatal(err)
	}
	accept := engine.NewBitset(n)
	for i := 0; i < n; i += 10 {
		accept.Set(engine.ID(i))
	}
	q := base.Row(7)
	for _, c := range []struct {
		k, threshold, limit int
		seeds               []engine.ID
		path                LucenePath
		early               bool
	}{
		{30, 60, 201, nil, LuceneExhaustive, false},
		{10, 60, 201, nil, LuceneFilteredGraph, false},
		{10, 0, 0, nil, LuceneGraph, false},
		{10, 60, 201, []engine.ID{10, 20}, LuceneFilteredGraph, false},
		{10, 0, 5, nil, LuceneGraph, true},
	} {
		r := &Lucene{Accepted: 200, VisitLimit: c.limit, FilteredSearchThreshold: c.threshold}
		res, st, err := ix.Query(q, engine.Request{K: c.k, Filter: accept, Seeds: c.seeds, Params: r})
		if err != nil {
			t.Fatal(err)
		}
		if r.Path != c.path || r.EarlyTerminated != c.early {
			t.Errorf("k=%d threshold=%d limit=%d: path %v early %v, want %v %v", c.k, c.threshold, c.limit, r.Path, r.EarlyTerminated, c.path, c.early)
		}
		if len(res) > c.k || !c.early && len(res) != c.k {
			t.Errorf("k=%d threshold=%d: %d results", c.k, c.threshold, len(res))
		}
		for _, h := range res {
			if !accept.Allowed(h.ID) {
				t.Errorf("k=%d threshold=%d: id %d is not accepted", c.k, c.threshold, h.ID)
			}
		}
		if st.DistComps != r.Visited {
			t.Errorf("k=%d: %d distances, %d visited", c.k, st.DistComps, r.Visited)
		}
		if c.path == LuceneExhaustive {
			exact, est, err := ix.Query(q, engine.Request{K: c.k, Filter: accept, Params: &Lucene{Exact: true, Accepted: 200}})
			if err != nil {
				t.Fatal(err)
			}
			if len(exact) != len(res) || est.DistComps != 200 {
				t.Fatalf("exact: %d results for %d, %d distances for the 200 accepted", len(exact), len(res), est.DistComps)
			}
			for i := range exact {
				if exact[i] != res[i] {
					t.Fatalf("exhaustive result %d: %v, exact %v", i, res[i], exact[i])
				}
			}
			if r.Visited != 200 {
				t.Errorf("exhaustive: visited %d, want the 200 accepted", r.Visited)
			}
		}
	}
	// The filtered walk scores only accepted nodes (and the descent's):
	// fewer distances than the plain walk, which scores every neighbour.
	fw, pw := &Lucene{Accepted: 200, FilteredSearchThreshold: 60}, &Lucene{Accepted: 200}
	ix.Query(q, engine.Request{K: 10, Filter: accept, Params: fw})
	ix.Query(q, engine.Request{K: 10, Filter: accept, Params: pw})
	if fw.Visited >= pw.Visited {
		t.Errorf("filtered walk visited %d, plain walk %d: want fewer", fw.Visited, pw.Visited)
	}
	for _, bad := range []engine.Request{{K: 0, Params: &Lucene{}}, {K: 5, Params: &Lucene{FilteredSearchThreshold: 101}},
		{K: 5, Params: &Lucene{VisitLimit: -1}}, {K: 5, Filter: engine.NewBitset(10), Params: &Lucene{Accepted: 1}},
		{K: 5, Filter: engine.NewBitset(10), Params: &Lucene{Exact: true}}} {
		if _, _, err := ix.Query(q, bad); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%+v: %v, want ErrInvalidArgument", bad, err)
		}
	}
}
