package experiment

import (
	"context"

	"github.com/veclab/veclab/engine"
)

// runContext is Run that stops when ctx (or engine.Context(), the
// kernel's cell) is done: the engine's and the lab's long operations the
// experiment calls (index builds, exact truth, k-means, data set
// generation) return an error wrapping context.Canceled, which becomes the
// report's Err with Status Failed.
//
// It works by making ctx the process's engine.Context() for the length of
// the run, so concurrent runContext calls with different contexts see
// each other's; run experiments one at a time.
func runContext(ctx context.Context, env *Env, e Experiment) *Report {
	defer withContext(ctx)()
	return Run(env, e)
}

// runAllContext is runAll that stops when ctx is done: the experiment
// running then fails as in runContext and the ones after it are not run
// (the reports end with the interrupted one).
func runAllContext(ctx context.Context, env *Env, exps []Experiment) []*Report {
	defer withContext(ctx)()
	return runAll(env, exps)
}

// withContext makes the ambient engine.Context() one that is done when
// ctx or the previous ambient context is, until restore is called.
func withContext(ctx context.Context) (restore func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	outer := engine.Context()
	merged, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(outer, func() { cancel(context.Cause(outer)) })
	old := engine.SetContext(merged)
	return func() {
		engine.SetContext(old)
		stop()
		cancel(nil)
	}
}

// interrupted reports whether engine.Context() is done (runAll stops).
func interrupted() bool { return engine.Done(engine.Context()) }
