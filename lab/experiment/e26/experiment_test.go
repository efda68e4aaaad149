package e26

import (
	"sync"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// The small-scale environment is shared by the tests of this file (its
// stores take a few seconds to build on a busy machine).
var (
	smallOnce sync.Once
	smallEnv  *experiment.Env
	smallErr  error
)

func small(t *testing.T) *experiment.Env {
	t.Helper()
	smallOnce.Do(func() { smallEnv, smallErr = experiment.NewEnv(experiment.Small, 1) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallEnv
}

// lab returns the lab's float in row/column of t.
func lab(t *testing.T, tb *table.Table, row, col string) float64 {
	t.Helper()
	c, ok := tb.Lookup(row, col)
	if !ok || c.Kind != table.FloatKind {
		t.Fatalf("table %q has no float at (%s, %s): %v", tb.Title, row, col, c)
	}
	return c.Float
}
