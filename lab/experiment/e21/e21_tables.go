package e21

import (
	"fmt"
	"strconv"

	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// KernelChart draws the ns per dot product of [Kernels]' table
// against the dimension, one line per kernel, on log-log axes: a kernel's
// cost grows with the dimension, and the gap between lines is its
// speed-up. A row whose dimension does not parse is left out.
func KernelChart(kernels *table.Table) *chart.Line {
	var dims, nsScalar, nsTwin, nsSIMD []float64
	for r := range kernels.Rows {
		key := kernels.Cell(r, 0).String()
		d, err := strconv.Atoi(key)
		if err != nil {
			continue
		}
		a, _ := kernels.Lookup(key, "scalar Go loop ns (lab)")
		g, _ := kernels.Lookup(key, "engine pure-Go twin ns (lab)")
		s, _ := kernels.Lookup(key, "engine vec.Dot ns (lab)")
		dims = append(dims, float64(d))
		nsScalar, nsTwin, nsSIMD = append(nsScalar, a.Float), append(nsTwin, g.Float), append(nsSIMD, s.Float)
	}
	c := chart.NewLine("E21 ns per dot product by dimension (lab)", "dimensions", "ns per distance")
	c.LogX, c.LogY = true, true
	c.Add("scalar Go loop", dims, nsScalar)
	c.Add("engine pure-Go twin", dims, nsTwin)
	c.Add("engine "+vec.KernelName(), dims, nsSIMD)
	return c
}

// BuildTable puts the two build throughputs of [Build] over n
// vectors (the engine's pure-Go twins, then its SIMD kernels) beside the
// article's, with the speed-up: the docs/s measure different work (the
// article's are Lucene indexing through Elasticsearch), the ratio is
// what compares.
func BuildTable(env *experiment.Env, n int, scalarDPS, simdDPS float64) *table.Table {
	t := table.New(fmt.Sprintf("E21 indexing throughput (HNSW m=16, ef_construction 100, one goroutine, %d×%d)", n, env.Scale.Dim), table.Col("kernels", ""))
	t.AddColumns(table.Pair("indexing", "docs/s", -1)...)
	t.AddColumns(table.Pair("speed-up", "×", 2)...)
	_ = t.AddValues("scalar (pure-Go twins)", e21.ArticleValue("scalar", "indexing"), scalarDPS, nil, nil)
	_ = t.AddValues("SIMD ("+vec.KernelName()+")", e21.ArticleValue("SIMD", "indexing"), simdDPS,
		e21.ArticleValue("SIMD/scalar", "indexing speed-up"), simdDPS/scalarDPS)
	t.Note("article: Lucene indexing through Elasticsearch on its corpus; lab: the graph build alone — docs/s are not comparable, the ratio is")
	return t
}
