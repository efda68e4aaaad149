package dataset

import (
	"context"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
)

// ComputeTruthContext is ComputeTruth that stops when ctx is done: the
// queries already being searched finish, and the error wraps ctx.Err()
// and says how many of the queries were answered. (ComputeTruth and Truth
// consult engine.Context() the same way.)
func ComputeTruthContext(ctx context.Context, base, queries *vec.Matrix, k int, metric engine.Metric, allow engine.Filter) (*GroundTruth, error) {
	x, err := flat.New(base, flat.Config{Metric: metric, Workers: flat.AllCores()})
	if err != nil {
		return nil, fmt.Errorf("dataset: truth: %w", err)
	}
	res, err := x.SearchBatchContext(ctx, queries, k, allow)
	if err != nil {
		return nil, fmt.Errorf("dataset: truth: %w", err)
	}
	return truthOf(k, metric, res), nil
}
