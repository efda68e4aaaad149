package ivf

import (
	"context"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/batch"
	"github.com/veclab/veclab/engine/vec"
)

// batchChunk is how many consecutive queries a batch worker takes at a time.
const batchChunk = 8

// SearchBatch runs SearchWith(q, o) for every row of queries on
// engine.Cores() goroutines and returns one result list per query, in the
// order of the rows, each exactly what SearchWith returns for that row.
// The first bad query (lowest row) fails the batch with an error naming
// it. It consults engine.Context(), as SearchBatchContext does its ctx.
func (ix *Index) SearchBatch(queries *vec.Matrix, o SearchOptions) ([][]engine.Result, error) {
	return ix.SearchBatchContext(engine.Context(), queries, o)
}

// SearchBatchContext is SearchBatch that stops handing out queries once
// ctx is done: the searches already running finish and the error wraps
// ctx.Err(), naming how many queries were answered.
func (ix *Index) SearchBatchContext(ctx context.Context, queries *vec.Matrix, o SearchOptions) ([][]engine.Result, error) {
	return ix.SearchBatchWorkers(ctx, queries, o, engine.Cores())
}

// SearchBatchWorkers is SearchBatchContext on the given number of
// goroutines (≤ 0: engine.Cores()).
func (ix *Index) SearchBatchWorkers(ctx context.Context, queries *vec.Matrix, o SearchOptions, workers int) ([][]engine.Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if queries == nil {
		return nil, fmt.Errorf("ivf: nil query matrix: %w", engine.ErrInvalidArgument)
	}
	if queries.Dim != ix.dim {
		return nil, fmt.Errorf("ivf: queries have %d dims, index has %d: %w", queries.Dim, ix.dim, engine.ErrDimension)
	}
	if workers <= 0 {
		workers = engine.Cores()
	}
	out := make([][]engine.Result, queries.N)
	done, err := batch.Run(ctx, queries.N, workers, batchChunk, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			res, _, err := ix.SearchWith(queries.Row(i), o)
			if err != nil {
				return fmt.Errorf("ivf: query %d: %w", i, err)
			}
			out[i] = res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if done < queries.N {
		return nil, fmt.Errorf("ivf: %w", engine.Stopped(ctx, "search of a batch", done, queries.N))
	}
	return out, nil
}
