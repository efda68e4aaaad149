package hnsw

import (
	"context"
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Chunk bounds of an interruptible build: a chunk is sized so that it takes
// about chunkTarget, which bounds how long a cancelled build runs on.
const (
	minChunk    = 64
	maxChunk    = 1 << 16
	chunkTarget = 100 * time.Millisecond
)

// AddBatchContext is AddBatch that stops when ctx is done. The whole batch
// is validated first, as by AddBatch; then the rows are linked in chunks
// (in row order, each chunk as AddBatch would link it) and ctx is checked
// between chunks, so a cancelled build returns within about a tenth of a
// second with an error wrapping ctx.Err() (errors.Is(err,
// context.Canceled) after an interrupt). The index then holds the first
// rows of the batch, fully linked and searchable; the error says how many.
//
// With one worker the chunked build gives the same graph as one AddBatch;
// with a ctx that can never be done (context.Background) it is AddBatch.
func (ix *Index) AddBatchContext(ctx context.Context, keys []uint64, vs *vec.Matrix) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ix.checkShape(keys, vs); err != nil {
		return err
	}
	if ctx.Done() == nil || vs.N <= minChunk {
		if err := ctx.Err(); err != nil {
			return ix.stopped(ctx, 0, vs.N)
		}
		return ix.add(keys, vs.Row, ix.cfg.Workers)
	}
	ix.mu.RLock()
	err := ix.checkLocked(keys, vs.Row)
	ix.mu.RUnlock()
	if err != nil {
		return err
	}
	chunk := 4 * minChunk
	for lo := 0; lo < vs.N; {
		if engine.Done(ctx) {
			return ix.stopped(ctx, lo, vs.N)
		}
		hi := min(lo+chunk, vs.N)
		start := time.Now()
		if err := ix.add(keys[lo:hi], func(i int) []float32 { return vs.Row(lo + i) }, ix.cfg.Workers); err != nil {
			return fmt.Errorf("hnsw: rows %d…%d: %w", lo, hi-1, err)
		}
		lo = hi
		switch d := time.Since(start); {
		case d < chunkTarget/2 && chunk < maxChunk:
			chunk *= 2
		case d > 2*chunkTarget && chunk > minChunk:
			chunk /= 2
		}
	}
	return nil
}

func (ix *Index) stopped(ctx context.Context, done, total int) error {
	return &stoppedError{engine.Stopped(ctx, "hnsw: AddBatch", done, total), done}
}

// stoppedError is engine.Stopped's error ("hnsw: AddBatch stopped after …:
// context canceled") followed by what the index holds; it unwraps to it.
type stoppedError struct {
	err  error
	done int
}

func (e *stoppedError) Error() string {
	return fmt.Sprintf("%v; the index holds the first %d rows of the batch, linked and searchable", e.err, e.done)
}

func (e *stoppedError) Unwrap() error { return e.err }
