package nested

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// Naive is the naive plan as an [engine.Index]: a query asks the graph for
// the nearest passages and deduplicates them by parent afterwards
// ([Index.SearchNaive]), so it can return fewer than K parents. Passages
// is how many passages it asks for: 0 asks K (the naive plan itself); more
// than K is the usual workaround of asking k′ = K × the mean passages per
// parent and keeping the first K parents. Result ids are parent ids, as
// [Index.Query]'s, so the two plans are scored against the same exact
// parents ([Index.ExactParents]).
type Naive struct {
	X        *Index
	Passages int
}

var _ engine.Index = Naive{}

// Len returns the number of parents.
func (n Naive) Len() int {
	if n.X == nil {
		return 0
	}
	return n.X.Len()
}

// Dim returns the passages' dimension.
func (n Naive) Dim() int {
	if n.X == nil {
		return 0
	}
	return n.X.Dim()
}

// Query asks for max(Passages, r.K) passages with a beam of
// max(r.Breadth, that) (r.Breadth 0: [DefaultEf]), keeps one hit per
// parent and returns at most r.K parents, nearest first. Filters and
// Params are refused: the naive plan is compared unfiltered.
func (n Naive) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if n.X == nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: no index: %w", engine.ErrInvalidArgument)
	}
	if n.Passages < 0 {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: %w", &engine.ArgError{Field: "passages", Value: n.Passages, Want: "≥ 0 (0: K)"})
	}
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: %w", err)
	}
	if r.Params != nil || r.Filter != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: a filter or Params (the naive plan takes neither): %w", engine.ErrInvalidArgument)
	}
	if n.X.vectors.N == 0 {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: %w", engine.ErrEmpty)
	}
	if err := engine.CheckVector(q, n.X.vectors.Dim, n.X.metric); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: naive query: %w", err)
	}
	ef := r.Breadth
	if ef == 0 {
		ef = DefaultEf
	}
	hits, st, err := n.X.SearchNaive(q, max(n.Passages, r.K), ef)
	if err != nil {
		return nil, st, fmt.Errorf("nested: naive query: %w", err)
	}
	if len(hits) > r.K {
		hits = hits[:r.K]
	}
	res := make([]engine.Result, len(hits))
	for i, h := range hits {
		res[i] = engine.Result{ID: engine.ID(h.Parent), Dist: h.Dist}
	}
	return res, st, nil
}

// BytesPerVector is the index's ([Index.BytesPerVector]): the naive plan
// searches the same passages.
func (n Naive) BytesPerVector() float64 {
	if n.X == nil {
		return 0
	}
	return n.X.BytesPerVector()
}
