package e21

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// e21 is SIMD distance kernels (Elastic's reply to Qdrant, the Lucene/Panama post).
var e21 = experiment.Experiment{
	ID:      "E21",
	Claims:  claims,
	Title:   "SIMD distance kernels: ns per distance by dimension (scalar Go loop vs the engine's kernels) and build throughput",
	Article: "the Lucene post on the Panama vector API cited by Elastic's reply: large speed-ups on dot product; indexing throughput rose from about 900 to about 1,300 docs/s",
	Figures: []experiment.Figure{
		{Row: "scalar", Measure: "indexing", Value: 900, Unit: "docs/s"},
		{Row: "SIMD", Measure: "indexing", Value: 1300, Unit: "docs/s"},
		{Row: "SIMD/scalar", Measure: "indexing speed-up", Value: 1300.0 / 900, Unit: "×"},
	},
}

func init() { e21.Run, e21.Notebook = runE21, "11-lucene-quantization.ipynb"; experiment.Register(e21) }

// Dims is the kernel sweep.
var Dims = []int{64, 128, 384, 768, 1536}

// scalarDot is the plain one-accumulator loop a compiler without
// vectorisation runs: the "scalar" side of the comparison (Go does not
// auto-vectorise it).
func ScalarDot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

var e21Sink float32

// kernelRounds is the number of timed rounds behind each ns figure; the
// median round is kept, so one stall of a shared machine (a GC, another
// job) does not become the figure.
const kernelRounds = 5

// timeKernel returns ns per call of f over pairs of vectors cycling
// through a small pool (in cache): kernelRounds rounds of budget/rounds
// each, the median round's ns per call.
func timeKernel(f func(a, b []float32) float32, pool [][]float32, budget time.Duration) float64 {
	var s float32
	rounds := make([]float64, kernelRounds)
	for r := range rounds {
		calls := 0
		start := time.Now()
		for time.Since(start) < budget/kernelRounds || calls == 0 {
			for i := 0; i+1 < len(pool); i++ {
				s += f(pool[i], pool[i+1])
			}
			calls += len(pool) - 1
		}
		rounds[r] = float64(time.Since(start).Nanoseconds()) / float64(calls)
	}
	e21Sink = s
	sort.Float64s(rounds)
	return rounds[len(rounds)/2]
}

// Kernels measures ns per dot product at each dimension for the
// scalar Go loop and for vec.Dot (the engine's kernels, see
// vec.KernelName), with budget of timing per cell (the median of
// kernelRounds rounds).
func Kernels(env *experiment.Env, dims []int, budget time.Duration) (*table.Table, error) {
	if len(dims) == 0 || budget <= 0 {
		return nil, fmt.Errorf("experiment: E21: need dimensions and a positive time budget: %w", experiment.ErrBadArgument)
	}
	rng := rand.New(rand.NewPCG(env.Seed, 21))
	t := table.New(fmt.Sprintf("E21 ns per dot product (in cache, one goroutine); engine kernels: %s", vec.KernelName()),
		table.Col("dim", ""),
		table.Column{Header: "scalar Go loop", Unit: "ns", Source: table.Lab, Prec: 1},
		table.Column{Header: "engine pure-Go twin", Unit: "ns", Source: table.Lab, Prec: 1},
		table.Column{Header: "engine vec.Dot", Unit: "ns", Source: table.Lab, Prec: 1},
		table.Column{Header: "speed-up over scalar", Unit: "×", Source: table.Lab, Prec: 1},
		table.Column{Header: "engine", Unit: "GFLOP/s", Source: table.Lab, Prec: 1})
	for i, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("experiment: E21: dimension %d: %w", d, experiment.ErrBadArgument)
		}
		env.Step(i, len(dims), "E21 kernels")
		pool := make([][]float32, 16)
		for j := range pool {
			pool[j] = make([]float32, d)
			for x := range pool[j] {
				pool[j][x] = rng.Float32()*2 - 1
			}
		}
		sc := timeKernel(ScalarDot, pool, budget)
		vec.SetAccelerated(false)
		gen := timeKernel(vec.Dot, pool, budget)
		vec.SetAccelerated(true)
		si := timeKernel(vec.Dot, pool, budget)
		_ = t.AddValues(fmt.Sprint(d), sc, gen, si, sc/si, 2*float64(d)/si)
	}
	env.Step(len(dims), len(dims), "E21 kernels")
	t.Note("scalar = a one-accumulator Go loop in the lab (Go does not vectorise it); engine = vec.Dot, the kernel the engine selected for this CPU (%s); pure-Go twin = the same call with vec.SetAccelerated(false), the unrolled fallback wasm and other architectures run", vec.KernelName())
	return t, nil
}

// Build measures HNSW build throughput (docs/s, one goroutine,
// hnswlib-style float32 graph, m = 16, ef_construction 100) over the first
// n vectors of the data set with the engine's current kernels.
func Build(env *experiment.Env, n int) (float64, error) {
	ds, err := env.Dataset()
	if err != nil {
		return 0, err
	}
	n = min(max(n, 1), ds.Base.N)
	ix, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: env.Metric(), M: 16, EfConstruction: 100, Seed: env.Seed, Workers: 1})
	if err != nil {
		return 0, err
	}
	sub := &vec.Matrix{N: n, Dim: ds.Base.Dim, Stride: ds.Base.Stride, Data: ds.Base.Data[:(n-1)*ds.Base.Stride+ds.Base.Dim]}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	t0 := time.Now()
	if err := ix.AddBatch(keys, sub); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(t0).Seconds(), nil
}

func runE21(env *experiment.Env) (*experiment.Report, error) {
	kt, err := Kernels(env, Dims, 40*time.Millisecond)
	if err != nil {
		return nil, err
	}
	n := min(env.Scale.N, 10000)
	vec.SetAccelerated(false)
	scalarDPS, err := Build(env, n)
	vec.SetAccelerated(true)
	if err != nil {
		return nil, err
	}
	dps, err := Build(env, n)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e21, env)
	r.AddTable(kt)
	bt := BuildTable(env, n, scalarDPS, dps)
	bt.Note("scalar = the same build with vec.SetAccelerated(false): the engine's pure-Go kernels")
	r.AddTable(bt)
	r.Note("the machine is shared with other jobs: ns figures are single timings and may vary by tens of percent")
	r.Verdicts = append(r.Verdicts, Verdicts(env, kt, scalarDPS, dps)...)
	return r, nil
}

// Verdicts compares the kernel table of [Kernels] and the two build
// throughputs of [Build] (pure-Go twins, then SIMD kernels) with the
// article's claims: SIMD kernels faster than scalar code on dot products,
// and indexing sped up from about 900 to about 1,300 docs/s (1.44×; the
// lab's build is nearly all distances, so at least that ratio, − 0.2).
func Verdicts(env *experiment.Env, kernels *table.Table, scalarDPS, simdDPS float64) experiment.Verdicts {
	faster, worst := true, math.Inf(1)
	ci := kernels.Column("speed-up over scalar × (lab)")
	for r := range kernels.Rows {
		if c := kernels.Cell(r, ci); c.Kind == table.FloatKind {
			worst = math.Min(worst, c.Float)
			faster = faster && c.Float > 1
		}
	}
	if math.IsInf(worst, 1) {
		faster, worst = false, math.NaN()
	}
	vs := experiment.Verdicts{
		experiment.Holds("E21", "SIMD kernels compute dot products faster than scalar code", "faster at every dimension",
			fmt.Sprintf("%.1f× or more at every dimension", worst), faster,
			fmt.Sprintf("the smallest speed-up over the scalar loop is %.1f×", worst)),
		experiment.AtLeast("E21", "SIMD kernels speed indexing up from about 900 to about 1,300 docs/s", 1300.0/900, simdDPS/scalarDPS, 0.2, "×"),
	}
	if k := vec.KernelName(); k == "generic" {
		// A run without SIMD kernels (VECLAB_SIMD=off, a CPU without
		// AVX2, wasm without SIMD128) times the pure-Go twins on both
		// sides: its figures say nothing about the claim either way.
		for i, v := range vs {
			vs[i] = experiment.Holds(v.ID, v.Claim, v.Article, v.Lab, false, v.Reason+
				"; this run has no SIMD kernels (kernels generic: VECLAB_SIMD=off or a CPU without them), so the 'SIMD' side is the pure-Go twins and the claim cannot be tested here")
		}
	}
	return vs
}
