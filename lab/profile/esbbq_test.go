package profile

import (
	"math"
	"testing"

	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// TestElasticsearchBBQCentroid pins how the Elasticsearch profile centres
// bbq_hnsw's codes under cosine. Elasticsearch normalises a cosine
// field's vectors at index time and hands the field to Lucene as
// DOT_PRODUCT (DenseVectorFieldMapper), so the BBQ writer centres the
// codes on the plain mean of the segment's vectors
// (ES818BinaryQuantizedVectorsWriter normalises it for COSINE fields
// only). After the build (refreshes, then the force-merge to one
// segment, whose centroid is the flushed segments' centroids weighted by
// size) the one segment's centroid must be the plain mean of the unit
// vectors; and its recall@10 must be above the same store's with a
// field Lucene sees as COSINE (the centroid normalised to unit length):
// measured 0.807 against 0.705 (4,000 × 384, 40 clusters, data seed 7,
// 40 queries, seed 1; the mean's norm is 0.118).
func TestElasticsearchBBQCentroid(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 4000, Queries: 40, Dim: 384, Clusters: 40, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := Default(Elasticsearch)
	p.Seed, p.Segments = 1, 1 // the force-merged variant
	if p.EffectiveType(ds.Base.Dim) != BBQHNSW {
		t.Fatalf("type %v at %d dims, want bbq_hnsw", p.EffectiveType(ds.Base.Dim), ds.Base.Dim)
	}
	build := func(t *testing.T, luceneCosine bool) *Store {
		t.Helper()
		p := p.WithDefaults()
		cfg := p.collectionConfig(ds.Base.Dim, false)
		if !cfg.CosineAsDotProduct {
			t.Fatal("the Elasticsearch profile does not hand cosine to the codecs as DOT_PRODUCT")
		}
		cfg.CosineAsDotProduct = !luceneCosine
		s, err := p.openConfig(ds.Base.Dim, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < ds.Base.N; lo += 1000 {
			m := &vec.Matrix{N: 1000, Dim: ds.Base.Dim, Stride: ds.Base.Stride, Data: ds.Base.Data[lo*ds.Base.Stride:]}
			if err := s.Ingest(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.WaitSearchable(); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Segments()); n != 1 {
			t.Fatalf("%d segments after WaitSearchable, want 1", n)
		}
		return s
	}
	es := build(t, false)
	defer es.Close()
	sd, err := es.c.coll.Segment(0)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := sd.Quantizer.(*quant.OSQ)
	if !ok {
		t.Fatalf("quantizer %T, want *quant.OSQ", sd.Quantizer)
	}
	mean := make([]float64, ds.Base.Dim)
	for i := 0; i < ds.Base.N; i++ {
		u := append([]float32(nil), ds.Base.Row(i)...)
		if err := vec.Normalize(u); err != nil {
			t.Fatal(err)
		}
		for d, x := range u {
			mean[d] += float64(x) / float64(ds.Base.N)
		}
	}
	var norm float64
	for d, c := range o.Centroid() {
		if math.Abs(float64(c)-mean[d]) > 1e-5 {
			t.Fatalf("centroid component %d is %v, the plain mean of the unit vectors %v", d, c, mean[d])
		}
		norm += mean[d] * mean[d]
	}
	t.Logf("centroid: the plain mean, norm %.3f", math.Sqrt(norm))

	lc := build(t, true)
	defer lc.Close()
	rES, rLucene := recallAgainstFlat(t, es, ds, 10), recallAgainstFlat(t, lc, ds, 10)
	t.Logf("recall@10: plain mean (Elasticsearch) %.3f, normalised mean (Lucene COSINE field) %.3f", rES, rLucene)
	if rES < rLucene+0.03 {
		t.Errorf("recall@10 on the plain mean %.3f, not 0.03 above the normalised mean's %.3f", rES, rLucene)
	}
}
