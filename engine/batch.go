package engine

import (
	"context"
	"fmt"

	"github.com/veclab/veclab/engine/internal/batch"
)

// batchChunk is how many consecutive queries a QueryBatch worker takes
// at a time: large enough that handing out costs nothing next to the
// searches, small enough that the workers finish together.
const batchChunk = 8

// QueryBatch runs ix.Query(row(i), r) for i = 0…n−1 on workers
// goroutines (≤ 0: Cores()) and returns one result list per query, in
// order, each exactly what that single Query returns (a query does not
// depend on the others; Query is safe for concurrent use). The first bad
// query (lowest i) fails the batch with an error naming it. Once ctx is
// done (nil: Context()) no more queries are handed out: the ones running
// finish and the error wraps ctx.Err(), naming how many were answered.
//
// It is the one batch search of every index, as faiss::Index::search
// takes n queries whatever the index; a shared r.Bound is shared by the
// whole batch.
func QueryBatch(ctx context.Context, ix Index, n int, row func(i int) []float32, r Request, workers int) ([][]Result, error) {
	if ctx == nil {
		ctx = Context()
	}
	if ix == nil || row == nil {
		return nil, fmt.Errorf("engine: query batch: nil index or row function: %w", ErrInvalidArgument)
	}
	if n < 0 {
		return nil, fmt.Errorf("engine: query batch: %d queries: %w", n, ErrInvalidArgument)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("engine: query batch: %w", err)
	}
	if workers <= 0 {
		workers = Cores()
	}
	out := make([][]Result, n)
	done, err := batch.Run(ctx, n, workers, batchChunk, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			res, _, err := ix.Query(row(i), r)
			if err != nil {
				return fmt.Errorf("query %d: %w", i, err)
			}
			out[i] = res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if done < n {
		return nil, fmt.Errorf("engine: %w", Stopped(ctx, "search of a batch", done, n))
	}
	return out, nil
}
