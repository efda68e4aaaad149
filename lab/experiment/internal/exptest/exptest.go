// Package exptest holds what the experiment packages' tests share: one
// small-scale Env per test binary (its stores take seconds to build on a
// busy machine) and a reader of a table's float cells.
package exptest

import (
	"sync"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

var (
	smallOnce sync.Once
	smallEnv  *experiment.Env
	smallErr  error
)

// Small returns the test binary's shared small-scale Env (seed 1).
func Small(t testing.TB) *experiment.Env {
	t.Helper()
	smallOnce.Do(func() { smallEnv, smallErr = experiment.NewEnv(experiment.Small, 1) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallEnv
}

// Float returns the lab's float in row/column of tb.
func Float(t testing.TB, tb *table.Table, row, col string) float64 {
	t.Helper()
	c, ok := tb.Lookup(row, col)
	if !ok || c.Kind != table.FloatKind {
		t.Fatalf("table %q has no float at (%s, %s): %v", tb.Title, row, col, c)
	}
	return c.Float
}
