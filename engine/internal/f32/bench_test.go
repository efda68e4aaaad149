package f32

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var benchDims = []int{96, 128, 384, 768, 1536}

// sink keeps results alive so the compiler cannot drop the calls.
var sink float32

func benchVectors(dim int) (a, b []float32) {
	rng := rand.New(rand.NewPCG(uint64(dim), 7))
	a, b = make([]float32, dim), make([]float32, dim)
	for i := range a {
		a[i], b[i] = rng.Float32(), rng.Float32()
	}
	return a, b
}

// benchPair measures one distance between two in-cache vectors. Hypothesis:
// the SIMD kernels are bound by the two loads per FMA (L1 bandwidth), so the
// AVX-512 kernel should approach twice the AVX2 rate at large dims, and both
// should beat the pure-Go twin by 4–10× at 384 dims.
func benchPair(b *testing.B, pick func(Kernel) pairFunc) {
	for _, k := range Available() {
		for _, dim := range benchDims {
			b.Run(fmt.Sprintf("kernel=%s/dim=%d", k.Name, dim), func(b *testing.B) {
				x, y := benchVectors(dim)
				fn := pick(k)
				b.SetBytes(int64(2 * 4 * dim))
				var s float32
				for b.Loop() {
					s += fn(x, y)
				}
				sink = s
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/dist")
			})
		}
	}
}

func BenchmarkDot(b *testing.B)  { benchPair(b, func(k Kernel) pairFunc { return k.Dot }) }
func BenchmarkL2Sq(b *testing.B) { benchPair(b, func(k Kernel) pairFunc { return k.L2Sq }) }

// slab is a 64 MiB row-major matrix of rows of dim floats, far larger than
// the last-level cache, so reading it once measures memory bandwidth.
const slabBytes = 64 << 20

func benchSlab(dim int) (q, slab []float32, rows int) {
	rows = slabBytes / 4 / dim
	rng := rand.New(rand.NewPCG(1, 1))
	slab = make([]float32, rows*dim)
	for i := range slab {
		slab[i] = rng.Float32()
	}
	q, _ = benchVectors(dim)
	return q, slab, rows
}

// BenchmarkBandwidth streams a 64 MiB slab once per op, scoring every row
// against one query with the Dot kernel (one row at a time, and four at a
// time with Dot4), on one goroutine and on all GOMAXPROCS. The GB/s it
// reports is the floor of exact search: a scan cannot go faster than this.
// Hypothesis: with SIMD the scan is memory-bound, so the kernels reach the
// same GB/s and the one-core figure is the single-thread memory bandwidth.
func BenchmarkBandwidth(b *testing.B) {
	const dim = 384
	q, slab, rows := benchSlab(dim)
	for _, k := range Available() {
		for _, mode := range []string{"dot", "dot4"} {
			for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
				b.Run(fmt.Sprintf("kernel=%s/%s/threads=%d", k.Name, mode, threads), func(b *testing.B) {
					b.SetBytes(int64(rows * dim * 4))
					for b.Loop() {
						scanSlab(k, mode == "dot4", q, slab, dim, rows, threads)
					}
					sec := b.Elapsed().Seconds() / float64(b.N)
					b.ReportMetric(float64(rows*dim*4)/sec/1e9, "GB/s")
					b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(rows), "ns/dist")
				})
			}
		}
	}
}

func scanSlab(k Kernel, four bool, q, slab []float32, dim, rows, threads int) {
	var wg sync.WaitGroup
	per := (rows + threads - 1) / threads
	sums := make([]float32, threads)
	for t := 0; t < threads; t++ {
		lo, hi := t*per, min(rows, (t+1)*per)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s float32
			i := lo
			if four {
				for ; i+4 <= hi; i += 4 {
					o := i * dim
					d0, d1, d2, d3 := k.Dot4(q, slab[o:o+dim], slab[o+dim:o+2*dim], slab[o+2*dim:o+3*dim], slab[o+3*dim:o+4*dim])
					s += d0 + d1 + d2 + d3
				}
			}
			for ; i < hi; i++ {
				s += k.Dot(q, slab[i*dim:(i+1)*dim])
			}
			sums[t] = s
		}()
	}
	wg.Wait()
	for _, s := range sums {
		sink += s
	}
}

// BenchmarkDot4 compares Dot4 with four Dot calls on rows picked at random
// from a 64 MiB slab (the access pattern of graph-neighbour scoring) and on
// four in-cache rows. Hypothesis: loading the query once per block and
// having four independent row streams in flight helps most when the rows
// miss the cache; in cache the gain is the saved query loads.
func BenchmarkDot4(b *testing.B) {
	const dim = 384
	q, slab, rows := benchSlab(dim)
	rng := rand.New(rand.NewPCG(9, 9))
	idx := make([]int, 1<<16)
	for i := range idx {
		idx[i] = rng.IntN(rows)
	}
	row := func(i int) []float32 { return slab[i*dim : (i+1)*dim] }
	for _, k := range Available() {
		for _, where := range []string{"cache", "random"} {
			pickRow := func(j int) []float32 { return row(j % 4) }
			if where == "random" {
				pickRow = func(j int) []float32 { return row(idx[j&(len(idx)-1)]) }
			}
			b.Run(fmt.Sprintf("kernel=%s/%s/1x4", k.Name, where), func(b *testing.B) {
				j := 0
				var s float32
				for b.Loop() {
					d0, d1, d2, d3 := k.Dot4(q, pickRow(j), pickRow(j+1), pickRow(j+2), pickRow(j+3))
					s += d0 + d1 + d2 + d3
					j += 4
				}
				sink = s
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(4*b.N), "ns/dist")
			})
			b.Run(fmt.Sprintf("kernel=%s/%s/4x1", k.Name, where), func(b *testing.B) {
				j := 0
				var s float32
				for b.Loop() {
					s += k.Dot(q, pickRow(j)) + k.Dot(q, pickRow(j+1)) + k.Dot(q, pickRow(j+2)) + k.Dot(q, pickRow(j+3))
					j += 4
				}
				sink = s
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(4*b.N), "ns/dist")
			})
		}
	}
}

// BenchmarkTwin compares the pure-Go twins (sixteen elements per iteration
// through array pointers; Dot4Generic and L2Sq4Generic call them for each
// row) with the plain four-accumulator loops
// they replaced (dotRef4, l2SqRef4, and four calls of them for a block of
// four rows: the same sums, bit for bit), alternating blocks of calls of the
// two in one run, so the ratio is measured side by side on a shared machine.
// Each op is one block of each; twin/ref4 is the median of the blocks'
// paired ratios. Hypothesis: one bounds check per sixteen elements instead
// of one per element makes the twins faster under GOOS=js GOARCH=wasm (run
// it with engine/internal/wasmsimd's node_exec.js as the -exec runner; the
// toolchain's go_js_wasm_exec lacks the veclab_simd import), where every
// check is a branch, and no slower on
// amd64, where the loop is bound by the adds' latency over four accumulators
// either way. (Repeating the loop inside Dot4Generic's body instead of four
// calls was measured too: no faster under wasm, 8–10% slower on amd64 at
// 100–128 dimensions.)
func BenchmarkTwin(b *testing.B) {
	quad := func(f quadFunc) func(rows *[5][]float32) float32 {
		return func(r *[5][]float32) float32 {
			d0, d1, d2, d3 := f(r[0], r[1], r[2], r[3], r[4])
			return d0 + d1 + d2 + d3
		}
	}
	pair := func(f pairFunc) func(rows *[5][]float32) float32 {
		return func(r *[5][]float32) float32 { return f(r[0], r[1]) }
	}
	fourRef := func(ref pairFunc) quadFunc {
		return func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
			return ref(q, a), ref(q, b), ref(q, c), ref(q, d)
		}
	}
	for _, c := range []struct {
		name      string
		rows      int // distances per call
		twin, ref func(rows *[5][]float32) float32
	}{
		{"Dot", 1, pair(DotGeneric), pair(dotRef4)},
		{"L2Sq", 1, pair(L2SqGeneric), pair(l2SqRef4)},
		{"Dot4", 4, quad(Dot4Generic), quad(fourRef(dotRef4))},
		{"L2Sq4", 4, quad(L2Sq4Generic), quad(fourRef(l2SqRef4))},
	} {
		for _, dim := range []int{100, 128, 768} {
			b.Run(fmt.Sprintf("%s/dim=%d", c.name, dim), func(b *testing.B) {
				var rows [5][]float32
				for j := range rows {
					_, rows[j] = benchVectors(dim + j)
					rows[j] = rows[j][:dim]
				}
				calls := max(1, 100000/dim/c.rows)
				block := func(f func(rows *[5][]float32) float32) float64 {
					var s float32
					t0 := time.Now()
					for range calls {
						s += f(&rows)
					}
					sink += s
					return float64(time.Since(t0).Nanoseconds()) / float64(calls*c.rows)
				}
				var ratios, twin, ref []float64
				for b.Loop() {
					tn, tr := block(c.twin), block(c.ref)
					twin, ref = append(twin, tn), append(ref, tr)
					ratios = append(ratios, tn/tr)
				}
				b.ReportMetric(median(twin), "twin-ns/dist")
				b.ReportMetric(median(ref), "ref4-ns/dist")
				b.ReportMetric(median(ratios), "twin/ref4")
			})
		}
	}
}

// median returns the middle of xs (sorting a copy).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
