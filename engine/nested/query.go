package nested

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// DefaultEf is the beam of distinct parents a Query keeps when the request
// leaves Breadth at 0 (engine/hnsw's default EfSearch).
const DefaultEf = 40

var _ engine.Index = (*Index)(nil)

// Len returns the number of parents: the ids Query answers are parent ids
// 0…Len()−1 (one more than the largest parent id given to New).
func (x *Index) Len() int { return x.nParent }

// Dim returns the passages' dimension.
func (x *Index) Dim() int { return x.vectors.Dim }

// Passages returns the number of passages (graph nodes).
func (x *Index) Passages() int { return x.vectors.N }

// Query implements [engine.Index] with [Index.SearchParentsFilter]: result
// ids are parent ids, each at the distance of its nearest passage;
// r.Breadth is the beam of distinct parents (0: DefaultEf), r.Filter an
// allow-list over parent ids. r.Bound is ignored: a parent's distance is
// not one of the graph's node distances a shared bound prunes.
func (x *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: query: Params of type %T (a nested index takes none): %w", r.Params, engine.ErrInvalidArgument)
	}
	if x.vectors.N == 0 {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: query: %w", engine.ErrEmpty)
	}
	// Checked here so the error reads "nested: query: …" once; the search
	// checks it again for its own callers.
	if err := engine.CheckVector(q, x.vectors.Dim, x.metric); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("nested: query: %w", err)
	}
	ef := r.Breadth
	if ef == 0 {
		ef = DefaultEf
	}
	hits, st, err := x.SearchParentsFilter(q, r.K, ef, r.Filter)
	if err != nil {
		return nil, st, fmt.Errorf("nested: query: %w", err)
	}
	res := make([]engine.Result, len(hits))
	for i, h := range hits {
		res[i] = engine.Result{ID: engine.ID(h.Parent), Dist: h.Dist}
	}
	return res, st, nil
}

// BytesPerVector is the resident bytes per passage: its float32 vector,
// the graph's links (when the graph reports them, as *hnsw.Index does
// with GraphBytesPerVector) and the 4-byte parent id (Lucene keeps a bit
// set of parent documents instead).
func (x *Index) BytesPerVector() float64 {
	b := float64(4*x.vectors.Dim) + 4
	if g, ok := x.graph.(interface{ GraphBytesPerVector() float64 }); ok {
		b += g.GraphBytesPerVector()
	}
	return b
}
