package ivf

import (
	"math"
	"math/rand/v2"

	"github.com/veclab/veclab/engine/vec"
)

// spreadData draws n + nq unit vectors around c unit centres with an
// isotropic Gaussian offset of expected norm spread, as lab/dataset's
// generator does (its default spread is 1: the offset as long as the
// centre), which makes neighbours harder to rank from 1-bit codes than
// clustered's.
func spreadData(n, nq, dim, c int, spread float64, seed uint64) (*vec.Matrix, *vec.Matrix) {
	rng := rand.New(rand.NewPCG(seed, 5))
	centres := vec.NewMatrix(c, dim)
	for i := range centres.Data {
		centres.Data[i] = float32(rng.NormFloat64())
	}
	for i := 0; i < c; i++ {
		_ = vec.Normalize(centres.Row(i))
	}
	sigma := spread / math.Sqrt(float64(dim))
	gen := func(m int) *vec.Matrix {
		x := vec.NewMatrix(m, dim)
		for i := 0; i < m; i++ {
			ctr := centres.Row(rng.IntN(c))
			for d := range x.Row(i) {
				x.Row(i)[d] = ctr[d] + float32(sigma*rng.NormFloat64())
			}
			_ = vec.Normalize(x.Row(i))
		}
		return x
	}
	return gen(n), gen(nq)
}
