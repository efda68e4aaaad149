package engine

import (
	"context"
	"fmt"
	"sync/atomic"
)

// ambient holds the context set by SetContext (nil: context.Background()).
var ambient atomic.Pointer[ctxBox]

type ctxBox struct{ ctx context.Context }

// Context is the context that the engine's and the lab's long operations
// consult when they are called without one (hnsw's AddBatch, flat's
// SearchBatch, k-means, the lab's truth, generators and experiment runs):
// context.Background() unless the host set another with SetContext.
//
// Why an ambient context: notebook cells call the context-less API, and
// gomacro cannot call generic helpers that would thread one through; the
// Jupyter kernel sets the running cell's context here, so an interrupt
// reaches a compiled index build without the cell passing anything. Each
// long operation also has a …Context variant taking one explicitly.
func Context() context.Context {
	if b := ambient.Load(); b != nil {
		return b.ctx
	}
	return context.Background()
}

// SetContext makes Context return ctx (nil: context.Background()) and
// returns the previous one. The setting is process-wide: it is meant for a
// host that runs one thing at a time (a kernel's cell), not for passing
// contexts between concurrent callers.
func SetContext(ctx context.Context) context.Context {
	old := Context()
	if ctx == nil {
		ambient.Store(nil)
	} else {
		ambient.Store(&ctxBox{ctx})
	}
	return old
}

// Stopped is the error a long operation returns when ctx ended it: it
// names the operation and how far it got, and wraps ctx's error (and its
// cause), so errors.Is(err, context.Canceled) holds for an interrupt.
func Stopped(ctx context.Context, op string, done, total int) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%s stopped after %d of %d: %w (%w)", op, done, total, err, cause)
	}
	return fmt.Errorf("%s stopped after %d of %d: %w", op, done, total, err)
}

// Done reports whether ctx has ended, without blocking (a nil Done channel,
// as context.Background's, never ends). On js/wasm it first lets other
// goroutines run (yield_js.go).
func Done(ctx context.Context) bool {
	yield()
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
