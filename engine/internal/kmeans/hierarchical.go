package kmeans

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// HierConfig parameterises Hierarchical, after Elasticsearch's
// HierarchicalKMeans (elastic/elasticsearch
// server/src/main/java/org/elasticsearch/index/codec/vectors/cluster/HierarchicalKMeans.java).
type HierConfig struct {
	TargetSize  int     // vectors per cluster; 0 → 384 (DiskBBQ cluster_size)
	MaxK        int     // clusters per split; 0 → 128
	SamplePerK  int     // training sample per split = k·SamplePerK; 0 → 64
	MaxIter     int     // Lloyd iterations per split; 0 → 6
	SplitFactor float64 // split again clusters above SplitFactor·TargetSize; 0 → 1.34
	RefineIter  int     // global Lloyd passes over all centroids at the end; 0 → 2, < 0 → none
	Seed        uint64
	Spherical   bool
	Workers     int
}

// WithDefaults fills zero fields.
func (c HierConfig) WithDefaults() HierConfig {
	if c.TargetSize == 0 {
		c.TargetSize = 384
	}
	if c.MaxK == 0 {
		c.MaxK = 128
	}
	if c.SamplePerK == 0 {
		c.SamplePerK = 64
	}
	if c.MaxIter == 0 {
		c.MaxIter = 6
	}
	if c.SplitFactor == 0 {
		c.SplitFactor = 1.34
	}
	if c.RefineIter == 0 {
		c.RefineIter = 2
	}
	return c
}

// Validate reports invalid fields.
func (c HierConfig) Validate() error {
	if c.TargetSize < 1 || c.MaxK < 2 || c.SamplePerK < 1 || c.MaxIter < 1 || !(c.SplitFactor >= 1) {
		return fmt.Errorf("kmeans: hierarchical kmeans config: TargetSize=%d MaxK=%d SamplePerK=%d MaxIter=%d SplitFactor=%g (want ≥1, ≥2, ≥1, ≥1, ≥1): %w", c.TargetSize, c.MaxK, c.SamplePerK, c.MaxIter, c.SplitFactor, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration.
func (c HierConfig) String() string {
	return fmt.Sprintf("hkmeans{TargetSize:%d MaxK:%d SamplePerK:%d MaxIter:%d SplitFactor:%g RefineIter:%d Seed:%d Spherical:%t}",
		c.TargetSize, c.MaxK, c.SamplePerK, c.MaxIter, c.SplitFactor, c.RefineIter, c.Seed, c.Spherical)
}

// Hierarchical clusters data into roughly n/TargetSize clusters by
// recursive splitting: a set of n ≤ TargetSize vectors is one cluster (its
// mean); otherwise k = clamp(round(n/TargetSize), 2, MaxK) clusters are
// trained on a sample of k·SamplePerK vectors, every member is assigned,
// empty clusters are dropped and clusters larger than
// SplitFactor·TargetSize are split again. A final global Lloyd refinement
// (RefineIter passes over all centroids) stands in for Elasticsearch's
// neighbourhood-local refinement; empty clusters are dropped after it.
func Hierarchical(data *vec.Matrix, cfg HierConfig) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := CheckData(data); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x632be59bd9b4e019))
	all := make([]int32, data.N)
	for i := range all {
		all[i] = int32(i)
	}
	var cents [][]float32
	var split func(members []int32)
	split = func(members []int32) {
		n := len(members)
		if n <= cfg.TargetSize {
			cents = append(cents, mean(data, members, cfg.Spherical))
			return
		}
		k := int(math.Round(float64(n) / float64(cfg.TargetSize)))
		k = max(2, min(k, cfg.MaxK, n))
		sub := gather(data, members)
		m, err := Train(sub, Config{K: k, MaxIter: cfg.MaxIter, Seed: rng.Uint64(), MaxPointsPerCentroid: cfg.SamplePerK,
			Init: PlusPlus, Spherical: cfg.Spherical, Workers: cfg.Workers, Tol: -1})
		if err != nil { // cannot happen: k ≤ n and data checked
			cents = append(cents, mean(data, members, cfg.Spherical))
			return
		}
		assign, _ := AssignAll(sub, m.Centroids, cfg.Workers)
		groups := make([][]int32, k)
		for i, a := range assign {
			groups[a] = append(groups[a], members[i])
		}
		for c, g := range groups {
			switch {
			case len(g) == 0: // dropped
			case len(g) == n: // no progress: keep as one cluster
				cents = append(cents, mean(data, g, cfg.Spherical))
			case float64(len(g)) > cfg.SplitFactor*float64(cfg.TargetSize):
				split(g)
			default:
				cents = append(cents, append([]float32(nil), m.Centroids.Row(c)...))
			}
		}
	}
	split(all)
	out := vec.NewMatrix(len(cents), data.Dim)
	for i, c := range cents {
		copy(out.Row(i), c)
	}
	model := &Model{Centroids: out, Trained: data.N}
	for it := 0; it < max(cfg.RefineIter, 0); it++ {
		out = refine(data, out, cfg)
		model.Iters++
	}
	model.Centroids = out
	assign, dist := AssignAll(data, out, cfg.Workers)
	model.Sizes = make([]int, out.N)
	for i, a := range assign {
		model.Sizes[a]++
		model.Objective += float64(dist[i])
	}
	model.Objective /= float64(data.N)
	return model, nil
}

// refine runs one global Lloyd step and drops clusters left empty.
func refine(data, cents *vec.Matrix, cfg HierConfig) *vec.Matrix {
	assign, _ := AssignAll(data, cents, cfg.Workers)
	dim := data.Dim
	sums := make([]float64, cents.N*dim)
	sizes := make([]int, cents.N)
	for i, a := range assign {
		sizes[a]++
		s := sums[int(a)*dim : int(a)*dim+dim]
		for d, x := range data.Row(i) {
			s[d] += float64(x)
		}
	}
	kept := 0
	for c := range sizes {
		if sizes[c] > 0 {
			kept++
		}
	}
	out := vec.NewMatrix(kept, dim)
	r := 0
	for c, sz := range sizes {
		if sz == 0 {
			continue
		}
		row := out.Row(r)
		for d := range row {
			row[d] = float32(sums[c*dim+d] / float64(sz))
		}
		if cfg.Spherical {
			_ = vec.Normalize(row)
		}
		r++
	}
	return out
}

func gather(data *vec.Matrix, members []int32) *vec.Matrix {
	out := vec.NewMatrix(len(members), data.Dim)
	for i, m := range members {
		copy(out.Row(i), data.Row(int(m)))
	}
	return out
}

func mean(data *vec.Matrix, members []int32, spherical bool) []float32 {
	s := make([]float64, data.Dim)
	for _, m := range members {
		for d, x := range data.Row(int(m)) {
			s[d] += float64(x)
		}
	}
	out := make([]float32, data.Dim)
	for d := range s {
		out[d] = float32(s[d] / float64(len(members)))
	}
	if spherical {
		_ = vec.Normalize(out)
	}
	return out
}
