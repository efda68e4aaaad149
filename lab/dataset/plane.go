package dataset

import (
	"fmt"
	"math/rand/v2"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Plane returns n points of the plane in clusters Gaussian clusters
// (centres uniform in [−1, 1]², standard deviation 0.15), seeded: data
// small enough to draw every point and every edge of a graph over it. The
// notebooks' pictures (lab/picture) and the explorer page draw it.
func Plane(n, clusters int, seed uint64) (*vec.Matrix, error) {
	if n < 1 || clusters < 1 {
		return nil, fmt.Errorf("dataset: Plane: n = %d, clusters = %d (want ≥ 1 each): %w", n, clusters, engine.ErrInvalidArgument)
	}
	r := rand.New(rand.NewPCG(seed, 0x2d))
	cx := make([]float64, clusters)
	cy := make([]float64, clusters)
	for i := range cx {
		cx[i], cy[i] = 2*r.Float64()-1, 2*r.Float64()-1
	}
	m := vec.NewMatrix(n, 2)
	for i := 0; i < n; i++ {
		c := r.IntN(clusters)
		row := m.Row(i)
		row[0] = float32(cx[c] + 0.15*r.NormFloat64())
		row[1] = float32(cy[c] + 0.15*r.NormFloat64())
	}
	return m, nil
}
