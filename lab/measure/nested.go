package measure

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/vec"
)

// ExactParents returns queries whose exact answers are the k nearest
// parents of a nested index (documents chunked into passages, E25): every
// passage scored, the best passage per parent ([nested.Index.ExactParents]).
// Recall measured on them ([Index] on the nested index, or on its
// [nested.Naive] view) is parent recall@k: the share of the k nearest
// documents returned, whatever passage found them.
func ExactParents(x *nested.Index, queries *vec.Matrix, k int) (*Queries, error) {
	if x == nil || queries == nil || queries.N == 0 {
		return nil, fmt.Errorf("measure: ExactParents: a nested index and at least one query are needed: %w", engine.ErrInvalidArgument)
	}
	if k < 1 {
		return nil, fmt.Errorf("measure: ExactParents(x, queries, %d): k must be ≥ 1: %w", k, engine.ErrInvalidArgument)
	}
	if queries.Dim != x.Dim() {
		return nil, fmt.Errorf("measure: ExactParents: %d-dimensional queries for %d-dimensional passages: %w", queries.Dim, x.Dim(), engine.ErrDimension)
	}
	truth := make([][]engine.ID, queries.N)
	for i := range truth {
		hs, err := x.ExactParents(queries.Row(i), k)
		if err != nil {
			return nil, fmt.Errorf("measure: ExactParents: query %d: %w", i, err)
		}
		truth[i] = make([]engine.ID, len(hs))
		for j, h := range hs {
			truth[i][j] = engine.ID(h.Parent)
		}
	}
	return &Queries{Vectors: queries, K: k, Truth: truth, Metric: engine.Cosine, Warmup: DefaultWarmup}, nil
}
