package quant

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

var _ engine.Index = (*Store)(nil)

// Dim returns the dimension of the vectors the store's quantizer encodes.
func (s *Store) Dim() int { return s.q.Dim() }

// Query implements [engine.Index] with [Store.Search], the flat scan over
// every code: r.Filter is applied before a code is scored, and the scan
// is exhaustive, so there is no breadth to tune (r.Breadth is ignored)
// and nothing to prune against r.Bound (which is neither read nor
// offered: code distances are estimates, and a shared bound built from
// estimates could prune a true neighbour in another segment). Distances
// are the quantizer's estimates. DistComps counts the codes scored.
func (s *Store) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("quant: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("quant: query: Params of type %T (a quantized scan takes none): %w", r.Params, engine.ErrInvalidArgument)
	}
	res, scored, err := s.search(q, r.K, r.Filter)
	st := engine.SearchStats{DistComps: scored, Visited: scored}
	if err != nil {
		return nil, st, fmt.Errorf("quant: query: %w", err)
	}
	return res, st, nil
}
