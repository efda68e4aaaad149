package hnsw

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
)

// SearchRescored is quantized search with rescoring, as Elasticsearch's
// rescore_vector does it (dense_vector index_options.rescore_vector,
// https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector,
// Elasticsearch 9.1): gather k' = ⌈oversample·k⌉
// candidates by the graph's own scores (the attached codes, when there are
// any) with beam max(ef, k'), re-rank those k' with full-precision vectors
// read through r — a RAM slab or the on-disk vector file, whose reads r
// counts — and return the k nearest. oversample < 1 is an error; 1 still
// rescores the k candidates (exact distances, same set).
//
// The results are fresh slices; the rescoring statistics say how many
// vectors were read and how many of those reads the page cache served.
func (s *Searcher) SearchRescored(q []float32, k, ef int, oversample float64, r *rescore.Rescorer, allow engine.Filter) ([]engine.Result, rescore.Stats, error) {
	var st rescore.Stats
	if r == nil {
		return nil, st, fmt.Errorf("hnsw: search rescored: nil rescorer: %w", engine.ErrInvalidArgument)
	}
	if !(oversample >= 1) || math.IsInf(oversample, 0) {
		return nil, st, fmt.Errorf("hnsw: search rescored: oversample must be a finite number ≥ 1, got %v: %w", oversample, engine.ErrInvalidArgument)
	}
	if err := engine.CheckK(k); err != nil {
		return nil, st, fmt.Errorf("hnsw: %w", err)
	}
	if r.Source().Dim() != s.ix.Dim() {
		return nil, st, fmt.Errorf("hnsw: search rescored: rescoring source has %d dimensions, index %d: %w", r.Source().Dim(), s.ix.Dim(), engine.ErrDimension)
	}
	kk := int(math.Ceil(oversample * float64(k)))
	cands, err := s.Search(q, kk, max(ef, kk), allow)
	if err != nil {
		return nil, st, err
	}
	// s.q holds the prepared query (normalised under Cosine), which is
	// what the rescorer's vectors are compared with.
	return r.Rescore(nil, s.q, cands, k)
}
