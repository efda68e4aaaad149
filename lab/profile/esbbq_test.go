package profile

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/segment"
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

// TestElasticsearchEarlyTermination: Elasticsearch 9.3+ indices end each
// segment's HNSW walk early by default (index.dense_vector
// .hnsw_enable_early_termination, DenseVectorFieldMapper
// HNSW_EARLY_TERMINATION → AdaptiveHnswQueueSaturationCollector), so the
// default store scores fewer vectors per query than the same index with
// the setting false, at a num_candidates where the walk has room to saturate, and still returns k hits, unfiltered and filtered.
func TestElasticsearchEarlyTermination(t *testing.T) {
	ds := smallData(t, 3000)
	build := func(et string) *Store {
		p := Default(Elasticsearch)
		p.EarlyTermination = et
		p.Type = HNSWType
		p.RefreshInterval = 300 * time.Millisecond // about three segments at the article's rate
		s, err := p.Build(ds.Base, BuildOptions{Batch: 500})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	on, off := build("true"), build("false")
	accept := func(key uint64) bool { return ds.Meta[key].Category != "c3" }
	// The filtered beam is narrower so that each segment's share is
	// walked, not scanned exactly (Lucene's ln(size)·k < matches).
	for _, c := range []struct {
		filtered bool
		ef       int
	}{{false, 300}, {true, 40}} {
		filtered := c.filtered
		on, off := on.WithEf(c.ef), off.WithEf(c.ef)
		var dOn, dOff int
		for i := 0; i < ds.Queries.N; i++ {
			q := ds.Queries.Row(i)
			var f func(uint64) bool
			if filtered {
				f = accept
			}
			rOn, stOn, err := on.search("Search(q, %d)", q, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			_, stOff, err := off.search("Search(q, %d)", q, 10, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(rOn) != 10 {
				t.Fatalf("filtered %v, query %d: %d hits with early termination", filtered, i, len(rOn))
			}
			dOn += stOn.DistComps
			dOff += stOff.DistComps
		}
		t.Logf("filtered %v: %d distances with early termination, %d without", filtered, dOn, dOff)
		if dOn >= dOff {
			t.Errorf("filtered %v: early termination scored %d, without %d; want fewer", filtered, dOn, dOff)
		}
	}
}

// TestElasticsearchInt8Version pins which quantizer int8_hnsw gets by the
// profile's Elasticsearch version, as DenseVectorFieldMapper gates it by
// the index's creation version: Lucene 9.9's scalar quantizer
// (ES93HnswScalarQuantizedVectorsFormat) up to 9.3, 7-bit optimized
// scalar quantization (ES94HnswScalarQuantizedVectorsFormat over
// Lucene104 SEVEN_BIT) from 9.4; a version that does not read as
// major.minor is refused by name.
func TestElasticsearchInt8Version(t *testing.T) {
	for _, tc := range []struct {
		version string
		typ     IndexType
		want    segment.Encoding
	}{
		{"", Int8HNSW, segment.Int8OSQ},
		{"9.5", Int8HNSW, segment.Int8OSQ},
		{"9.5.5", Int8HNSW, segment.Int8OSQ},
		{"9.4.0", Int8HNSW, segment.Int8OSQ},
		{"10.0", Int8HNSW, segment.Int8OSQ},
		{"9.3.2", Int8HNSW, segment.Int8},
		{"8.19.3", Int8HNSW, segment.Int8},
		{"8.12", Int8HNSW, segment.Int8},
		{"9.3", BBQHNSW, segment.BBQ},
		{"9.5", BBQHNSW, segment.BBQ},
		{"9.5", Int4HNSW, segment.Int4OSQ},
		{"9.4", Int4HNSW, segment.Int4OSQ},
		{"9.3", Int4HNSW, segment.Int4},
		{"9.5", HNSWType, segment.Float},
	} {
		p := Default(Elasticsearch)
		p.Version, p.Type = tc.version, tc.typ
		if err := p.Validate(); err != nil {
			t.Fatalf("%q %v: %v", tc.version, tc.typ, err)
		}
		if got := p.collectionConfig(384, false).Encoding; got != tc.want {
			t.Errorf("version %q %v: encoding %v, want %v", tc.version, tc.typ, got, tc.want)
		}
	}
	for _, v := range []string{"nine", "9", "9.x", "-1.2"} {
		p := Default(Elasticsearch)
		p.Version = v
		err := p.Validate()
		if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), fmt.Sprintf("version %q", v)) {
			t.Errorf("version %q: %v, want an invalid-argument error naming it", v, err)
		}
	}
}
