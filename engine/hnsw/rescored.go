package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
)

// Rescore, as an engine.Request's Params, asks for quantized search with
// rescoring, as Elasticsearch's rescore_vector does it (dense_vector
// index_options.rescore_vector,
// https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector,
// Elasticsearch 9.1): gather k′ = engine.RescoreDepth(K, Oversample)
// candidates by the graph's own scores (the attached codes, when there
// are any) with beam max(Breadth, k′), re-rank those k′ with
// full-precision vectors read through Rescorer — a RAM slab or the
// on-disk vector file, whose reads it counts — and return the K nearest.
// Oversample < 1 is an error; 1 still rescores the K candidates (exact
// distances, same set).
//
// The search fills Stats: how many vectors were read and how many of
// those reads the page cache served. Its results are a fresh slice.
type Rescore struct {
	Rescorer   *rescore.Rescorer
	Oversample float64
	Stats      rescore.Stats // set by the search
}

func (s *Searcher) rescored(q []float32, r engine.Request, p *Rescore) ([]engine.Result, error) {
	p.Stats = rescore.Stats{}
	if p.Rescorer == nil {
		return nil, fmt.Errorf("hnsw: search rescored: nil rescorer: %w", engine.ErrInvalidArgument)
	}
	if !(p.Oversample >= 1) || math.IsInf(p.Oversample, 0) {
		return nil, fmt.Errorf("hnsw: search rescored: %w", &engine.ArgError{Field: "oversample", Value: p.Oversample, Want: "a finite number ≥ 1"})
	}
	if p.Rescorer.Source().Dim() != s.ix.Dim() {
		return nil, fmt.Errorf("hnsw: search rescored: rescoring source has %d dimensions, index %d: %w", p.Rescorer.Source().Dim(), s.ix.Dim(), engine.ErrDimension)
	}
	kk := engine.RescoreDepth(r.K, p.Oversample)
	cands, err := s.search(q, kk, max(r.Breadth, kk), r.Filter, r.Bound, r.Seeds, r.Patience)
	if err != nil {
		return nil, err
	}
	// s.q holds the prepared query (normalised under Cosine), which is
	// what the rescorer's vectors are compared with.
	res, st, err := p.Rescorer.Rescore(nil, s.q, cands, r.K)
	p.Stats = st
	return res, err
}
