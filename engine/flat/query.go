package flat

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// Query implements [engine.Index]. Exact search has no breadth (r.Breadth
// is ignored) and is never pruned by a shared bound, but it offers its
// results to r.Bound so that the graph segments searched after it (or
// beside it) prune against them, as a Lucene segment searched exactly
// still feeds the multi-leaf collector.
func (x *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("flat: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("flat: query: Params of type %T (exact search has none): %w", r.Params, engine.ErrInvalidArgument)
	}
	res, st, err := x.Search(q, r.K, r.Filter)
	if err != nil {
		return nil, st, err
	}
	if r.Bound != nil && len(res) > 0 {
		ds := make([]float32, len(res))
		for i, h := range res {
			ds[i] = h.Dist
		}
		r.Bound.Offer(ds...)
	}
	return res, st, nil
}
