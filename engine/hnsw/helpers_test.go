package hnsw

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// clustered returns n unit vectors of dim components around c Gaussian
// centres (the shape of the article's data set), seeded.
func clustered(n, dim, c int, spread float64, seed uint64) *vec.Matrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, c)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
	}
	m := vec.NewMatrix(n, dim)
	for i := 0; i < n; i++ {
		ctr := centres[rng.IntN(c)]
		row := m.Row(i)
		var s float64
		for j := range row {
			x := ctr[j] + spread*rng.NormFloat64()
			row[j] = float32(x)
			s += x * x
		}
		inv := 1 / math.Sqrt(s)
		for j := range row {
			row[j] = float32(float64(row[j]) * inv)
		}
	}
	return m
}

// bruteForce returns the ids of the k nearest rows of base to q (allowed
// by allow, if set), under metric.
func bruteForce(base *vec.Matrix, q []float32, k int, metric engine.Metric, allow engine.Filter) []engine.ID {
	qq := append([]float32(nil), q...)
	if metric == engine.Cosine {
		normalize(qq)
	}
	type r struct {
		id engine.ID
		d  float64
	}
	rs := make([]r, 0, base.N)
	for i := 0; i < base.N; i++ {
		if allow != nil && !allow.Allowed(engine.ID(i)) {
			continue
		}
		row := base.Row(i)
		var d, na float64
		for j := range row {
			a, b := float64(row[j]), float64(qq[j])
			switch metric {
			case engine.L2:
				d += (a - b) * (a - b)
			default:
				d -= a * b
				na += a * a
			}
		}
		if metric == engine.Cosine {
			d = 1 + d/math.Sqrt(na)
		}
		rs = append(rs, r{engine.ID(i), d})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].d < rs[j].d || rs[i].d == rs[j].d && rs[i].id < rs[j].id })
	out := make([]engine.ID, 0, k)
	for i := 0; i < k && i < len(rs); i++ {
		out = append(out, rs[i].id)
	}
	return out
}

func recallOf(got []engine.Result, truth []engine.ID) float64 {
	if len(truth) == 0 {
		return 1
	}
	set := make(map[engine.ID]bool, len(truth))
	for _, id := range truth {
		set[id] = true
	}
	hit := 0
	for _, r := range got {
		if set[r.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(truth))
}

func seqKeys(n int) []uint64 {
	k := make([]uint64, n)
	for i := range k {
		k[i] = uint64(i)
	}
	return k
}
