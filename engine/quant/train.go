package quant

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// minTrain is the smallest training sample any quantizer accepts.
const minTrain = 2

// trainingRows checks a training sample and returns its rows to learn
// from: at most maxRows, drawn by reservoir sampling with seed when the
// sample is larger (Lucene samples 25,000 vectors the same way, with a
// fixed seed), in increasing row order. Under Cosine every row is copied
// and unit-normalised, as the engine normalises documents on insert.
func trainingRows(sample *vec.Matrix, metric engine.Metric, maxRows int, seed uint64) ([][]float32, error) {
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if sample == nil {
		return nil, fmt.Errorf("quant: training sample is nil: %w", engine.ErrInvalidArgument)
	}
	if sample.Dim <= 0 {
		return nil, fmt.Errorf("quant: training sample dimension is %d: %w", sample.Dim, engine.ErrDimension)
	}
	if sample.N < minTrain {
		return nil, fmt.Errorf("quant: training sample has %d vectors, need at least %d: %w", sample.N, minTrain, engine.ErrInvalidArgument)
	}
	if sample.Stride < sample.Dim || len(sample.Data) < (sample.N-1)*sample.Stride+sample.Dim {
		return nil, fmt.Errorf("quant: training sample slab is malformed (N=%d Dim=%d Stride=%d, %d floats): %w", sample.N, sample.Dim, sample.Stride, len(sample.Data), engine.ErrInvalidArgument)
	}
	idx := make([]int, 0, min(sample.N, maxRows))
	if maxRows <= 0 || sample.N <= maxRows {
		for i := 0; i < sample.N; i++ {
			idx = append(idx, i)
		}
	} else {
		// Algorithm R (Vitter): keep the first maxRows, then replace with
		// decreasing probability.
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		for i := 0; i < maxRows; i++ {
			idx = append(idx, i)
		}
		for i := maxRows; i < sample.N; i++ {
			if j := r.IntN(i + 1); j < maxRows {
				idx[j] = i
			}
		}
		slices.Sort(idx)
	}
	rows := make([][]float32, len(idx))
	for k, i := range idx {
		row := sample.Row(i)
		if err := engine.CheckVector(row, sample.Dim, metric); err != nil {
			return nil, fmt.Errorf("training vector %d: %w", i, err)
		}
		if metric == engine.Cosine {
			row = slices.Clone(row)
			if err := vec.Normalize(row); err != nil {
				return nil, fmt.Errorf("training vector %d: %w", i, err)
			}
		}
		rows[k] = row
	}
	return rows, nil
}
