package hnsw

import (
	"context"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/batch"
	"github.com/veclab/veclab/engine/vec"
)

// batchChunk is how many consecutive queries a batch worker takes at a
// time: large enough that handing out costs nothing next to the searches,
// small enough that the workers finish together.
const batchChunk = 8

// SearchBatch runs Searcher.Search(q, k, ef, allow) for every row of
// queries on engine.Cores() goroutines (one Searcher each) and returns one
// result list per query, in the order of the rows, each exactly what a
// single Search of that row returns (a search does not depend on the
// others). Result ids are dense ids. The first bad query (lowest row)
// fails the batch with an error naming it. It consults engine.Context(),
// as SearchBatchContext does its ctx.
func (ix *Index) SearchBatch(queries *vec.Matrix, k, ef int, allow engine.Filter) ([][]engine.Result, error) {
	return ix.SearchBatchContext(engine.Context(), queries, k, ef, allow)
}

// SearchBatchContext is SearchBatch that stops handing out queries once
// ctx is done: the searches already running finish and the error wraps
// ctx.Err(), naming how many queries were answered.
func (ix *Index) SearchBatchContext(ctx context.Context, queries *vec.Matrix, k, ef int, allow engine.Filter) ([][]engine.Result, error) {
	return ix.SearchBatchWorkers(ctx, queries, k, ef, allow, engine.Cores())
}

// SearchBatchWorkers is SearchBatchContext on the given number of
// goroutines (≤ 0: engine.Cores()).
func (ix *Index) SearchBatchWorkers(ctx context.Context, queries *vec.Matrix, k, ef int, allow engine.Filter, workers int) ([][]engine.Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if queries == nil {
		return nil, fmt.Errorf("hnsw: nil query matrix: %w", engine.ErrInvalidArgument)
	}
	if queries.Dim != ix.dim {
		return nil, fmt.Errorf("hnsw: queries have %d dims, index has %d: %w", queries.Dim, ix.dim, engine.ErrDimension)
	}
	if workers <= 0 {
		workers = engine.Cores()
	}
	out := make([][]engine.Result, queries.N)
	ss := make([]*Searcher, workers)
	done, err := batch.Run(ctx, queries.N, workers, batchChunk, func(w, lo, hi int) error {
		s := ss[w]
		if s == nil {
			s = ix.searchers.Get().(*Searcher)
			ss[w] = s
		}
		for i := lo; i < hi; i++ {
			res, err := s.Search(queries.Row(i), k, ef, allow)
			if err != nil {
				return fmt.Errorf("query %d: %w", i, err)
			}
			out[i] = append([]engine.Result(nil), res...)
		}
		return nil
	})
	for _, s := range ss {
		if s != nil {
			ix.searchers.Put(s)
		}
	}
	if err != nil {
		return nil, err
	}
	if done < queries.N {
		return nil, fmt.Errorf("hnsw: %w", engine.Stopped(ctx, "search of a batch", done, queries.N))
	}
	return out, nil
}
