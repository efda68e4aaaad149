package e19

import (
	"sync"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
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
