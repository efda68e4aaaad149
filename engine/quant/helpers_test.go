package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// clustered returns n unit vectors (for Cosine; raw for other metrics)
// around nc Gaussian centres, like the articles' 40-cluster data set.
func clustered(n, dim, nc int, seed uint64) *vec.Matrix {
	r := rand.New(rand.NewPCG(seed, 99))
	centres := make([][]float32, nc)
	for c := range centres {
		centres[c] = make([]float32, dim)
		for i := range centres[c] {
			centres[c][i] = float32(r.NormFloat64())
		}
	}
	m := vec.NewMatrix(n, dim)
	for j := 0; j < n; j++ {
		c := centres[r.IntN(nc)]
		row := m.Row(j)
		for i := range row {
			row[i] = c[i] + float32(r.NormFloat64())*0.8
		}
		_ = vec.Normalize(row)
	}
	return m
}

// exactTopK is brute force under metric.
func exactTopK(data *vec.Matrix, q []float32, k int, metric engine.Metric) []engine.Result {
	dist := vec.Distance(metric)
	res := make([]engine.Result, data.N)
	for i := 0; i < data.N; i++ {
		res[i] = engine.Result{ID: engine.ID(i), Dist: dist(q, data.Row(i))}
	}
	sort.Slice(res, func(a, b int) bool { return res[a].Dist < res[b].Dist })
	return res[:k]
}

func recall(got, want []engine.Result) float64 {
	hit := 0
	for _, w := range want {
		for _, g := range got {
			if g.ID == w.ID {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(len(want))
}

// rerank rescores candidates with full vectors and keeps k.
func rerank(data *vec.Matrix, q []float32, cands []engine.Result, k int, metric engine.Metric) []engine.Result {
	dist := vec.Distance(metric)
	out := slices.Clone(cands)
	for i := range out {
		out[i].Dist = dist(q, data.Row(int(out[i].ID)))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Dist < out[b].Dist })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func trueDistance(a, b []float32, metric engine.Metric) float64 {
	var s float64
	for i := range a {
		if metric == engine.L2 {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		} else {
			s += float64(a[i]) * float64(b[i])
		}
	}
	switch metric {
	case engine.L2:
		return s
	case engine.Dot:
		return -s
	}
	return 1 - s
}

var _ = math.Abs
