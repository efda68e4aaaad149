// Package batch is the worker pool of the engine's batch searches (flat,
// hnsw, ivf SearchBatch): a fixed number of goroutines take consecutive
// chunks of a query matrix from an atomic counter, write each query's
// answer at its own index (so the output order is the input order whatever
// the schedule), and stop taking chunks once a context is done.
package batch

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls fn(w, lo, hi) for consecutive chunks [lo, hi) of [0, n), at
// most chunk long, on workers goroutines (w in [0, workers) names the
// goroutine, for per-worker state). Before taking a chunk a goroutine
// checks ctx (nil: never done); once ctx is done no chunk is started, the
// running ones finish. It returns how many leading indexes were covered by
// finished chunks (n when ctx never ended) and the error of the lowest
// chunk whose fn failed; a failing chunk stops the handing out too. A panic
// in fn is re-raised on the calling goroutine.
func Run(ctx context.Context, n, workers, chunk int, fn func(w, lo, hi int) error) (done int, err error) {
	if n <= 0 {
		return 0, nil
	}
	chunk = max(chunk, 1)
	chunks := (n + chunk - 1) / chunk
	workers = max(1, min(workers, chunks))
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, chunks)
	finished := make([]bool, chunks)
	var mu sync.Mutex
	var panicked any
	var wg sync.WaitGroup
	var doneCh <-chan struct{}
	if ctx != nil {
		doneCh = ctx.Done()
	}
	work := func(w int) {
		defer wg.Done()
		defer func() {
			if p := recover(); p != nil {
				mu.Lock()
				if panicked == nil {
					panicked = p
				}
				mu.Unlock()
				stop.Store(true)
			}
		}()
		for !stop.Load() {
			if doneCh != nil {
				select {
				case <-doneCh:
					stop.Store(true)
					return
				default:
				}
			}
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			lo := c * chunk
			hi := min(lo+chunk, n)
			if e := fn(w, lo, hi); e != nil {
				errs[c] = e
				stop.Store(true)
			}
			finished[c] = true
		}
	}
	if workers == 1 {
		wg.Add(1)
		work(0)
	} else {
		wg.Add(workers)
		for w := range workers {
			go work(w)
		}
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	for c := range chunks {
		if errs[c] != nil {
			return min(c*chunk, n), errs[c]
		}
		if !finished[c] {
			return c * chunk, nil
		}
	}
	return n, nil
}
