package flat_test

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
)

// TestContract runs the conformance suite through engine.Index's Query.
// Exact search is the suite's own oracle, so recall must be exactly 1.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		n       int // rows; a split scan needs ≥ 2·4096 of them
	}{
		{"serial", 1, 0},
		{"split", 3, 9000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.RunWith(t, indextest.Options{MinRecall: 1, N: tc.n}, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
				x, err := flat.New(vs, flat.Config{Metric: m, Workers: tc.workers})
				if err != nil {
					t.Fatal(err)
				}
				return indextest.Contract(x, 0)
			})
		})
	}
}
