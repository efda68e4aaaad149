package f32

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The reference loops, accumulated in float64. refDot also returns Σ|a_i·b_i|
// and refL2Sq Σ(a_i-b_i)², the scales of the rounding error of a float32 sum.
func refDot(a, b []float32) (s, scale float64) {
	for i := range a {
		t := float64(a[i]) * float64(b[i])
		s += t
		scale += math.Abs(t)
	}
	return s, scale
}

func refL2Sq(a, b []float32) (s, scale float64) {
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s, s
}

// dotRef4 and l2SqRef4 are the plain four-accumulator loops whose order the
// pure-Go twins keep: s_k sums the terms of the elements i ≡ k (mod 4) in
// order, the tail past the last multiple of four goes to s_0, and the result
// is (s_0+s_1)+(s_2+s_3). They were the twins' own code before the twins
// took sixteen elements per iteration.
func dotRef4(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func l2SqRef4(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// TestGenericIsFourAccumulatorLoop requires the pure-Go twins, whose main
// loop takes sixteen elements at a time, to give bit for bit what the plain
// four-accumulator loops give, for every length up to 100 (each remainder of
// 16 and of 4, and none), a few long ones, and inputs with mixed signs and
// magnitudes, so that any change of the summation order shows; Dot4Generic
// and L2Sq4Generic, and through them the slab kernels of the generic set,
// are held to it row by row, so the distances of the pure-Go build (wasm)
// are those of before.
func TestGenericIsFourAccumulatorLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lens := []int{384, 768, 1535, 1536}
	for n := 0; n <= 100; n++ {
		lens = append(lens, n)
	}
	for _, n := range lens {
		for trial := range 4 {
			a, b := make([]float32, n), make([]float32, n+3)
			for i := range a {
				a[i] = float32(r.NormFloat64() * math.Exp(4*r.NormFloat64()))
			}
			for i := range b {
				b[i] = float32(r.NormFloat64() * math.Exp(4*r.NormFloat64()))
			}
			var d4, l4 [4]float32
			d4[0], d4[1], d4[2], d4[3] = Dot4Generic(a, b, b[1:], b[2:], b[trial:])
			l4[0], l4[1], l4[2], l4[3] = L2Sq4Generic(a, b, b[1:], b[2:], b[trial:])
			for _, c := range []struct {
				name      string
				got, want float32
			}{
				{"Dot", DotGeneric(a, b), dotRef4(a, b)},
				{"L2Sq", L2SqGeneric(a, b), l2SqRef4(a, b)},
				{"Dot4 row 0", d4[0], dotRef4(a, b)},
				{"Dot4 row 3", d4[3], dotRef4(a, b[trial:])},
				{"L2Sq4 row 1", l4[1], l2SqRef4(a, b[1:])},
				{"L2Sq4 row 2", l4[2], l2SqRef4(a, b[2:])},
			} {
				if math.Float32bits(c.got) != math.Float32bits(c.want) {
					t.Fatalf("%sGeneric n=%d trial %d: %v, the four-accumulator loop gives %v", c.name, n, trial, c.got, c.want)
				}
			}
		}
	}
}

// tolerance bounds the error of a float32 sum of n terms in any order, with
// or without FMA: γ_n·Σ|t| with γ_n ≈ n·2⁻²⁴ (Higham, Accuracy and Stability
// of Numerical Algorithms, §3.1), plus one ulp for the final rounding and an
// absolute term for products that underflow to subnormals.
func tolerance(n int, scale float64) float64 {
	return float64(n+2)*0x1p-24*scale + float64(n)*0x1p-126
}

type pairFunc = func(a, b []float32) float32
type quadFunc = func(q, a, b, c, d []float32) (float32, float32, float32, float32)

type pairCase struct {
	name string
	fn   pairFunc
	ref  func(a, b []float32) (float64, float64)
}

type quadCase struct {
	name string
	fn   quadFunc
	ref  func(a, b []float32) (float64, float64)
}

func pairCases() []pairCase {
	var cs []pairCase
	for _, k := range Available() {
		cs = append(cs,
			pairCase{"Dot/" + k.Name, k.Dot, refDot},
			pairCase{"L2Sq/" + k.Name, k.L2Sq, refL2Sq})
	}
	return cs
}

func quadCases() []quadCase {
	var cs []quadCase
	for _, k := range Available() {
		cs = append(cs,
			quadCase{"Dot4/" + k.Name, k.Dot4, refDot},
			quadCase{"L2Sq4/" + k.Name, k.L2Sq4, refL2Sq})
	}
	return cs
}

const maxLen = 1024

// guarded returns a slice of n elements starting at offset off of a buffer
// whose other elements are NaN guards, filled by fill(i).
func guarded(n, off int, fill func(i int) float32) (s, buf []float32) {
	buf = make([]float32, off+n+19)
	for i := range buf {
		buf[i] = float32(math.NaN())
	}
	for i := 0; i < n; i++ {
		buf[off+i] = fill(i)
	}
	return buf[off : off+n], buf
}

// checkGuards fails if a guard of buf around [off, off+n) is no longer NaN.
func checkGuards(t *testing.T, buf []float32, off, n int) {
	t.Helper()
	for _, r := range [][2]int{{0, off}, {off + n, len(buf)}} {
		for i := r[0]; i < r[1]; i++ {
			if !math.IsNaN(float64(buf[i])) {
				t.Fatalf("guard %d overwritten with %v", i, buf[i])
			}
		}
	}
}

// normals returns n standard normal float32s from a seeded generator.
func normals(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestPairRandom holds every 1×1 kernel equal to the float64 reference loop
// for every length 1…1024 and sub-slices starting at offsets 0…3, with NaN
// guards before and after both slices: reading one guard makes the result NaN.
func TestPairRandom(t *testing.T) {
	pool := normals(3*maxLen, 1)
	for _, c := range pairCases() {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= maxLen; n++ {
				offA, offB := n%4, (n/4)%4 // every pair of offsets recurs
				a, bufA := guarded(n, offA, func(i int) float32 { return pool[i+n] })
				b, bufB := guarded(n, offB, func(i int) float32 { return pool[2*maxLen-i] })
				got := c.fn(a, b)
				want, scale := c.ref(a, b)
				if math.IsNaN(float64(got)) || math.IsInf(float64(got), 0) {
					t.Fatalf("n=%d offsets %d,%d: got %v, a guard was read", n, offA, offB, got)
				}
				if d := math.Abs(float64(got) - want); d > tolerance(n, scale) {
					t.Fatalf("n=%d offsets %d,%d: got %v, want %v (|Δ|=%g > %g)", n, offA, offB, got, want, d, tolerance(n, scale))
				}
				checkGuards(t, bufA, offA, n)
				checkGuards(t, bufB, offB, n)
			}
		})
	}
}

// TestPairExact uses integer data whose every partial sum is exact in float32,
// so any kernel, in any summation order, must return the exact value: a
// dropped, repeated or shifted element shows as a wrong integer.
func TestPairExact(t *testing.T) {
	for _, c := range pairCases() {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= maxLen; n++ {
				offA, offB := n%4, (n/4)%4 // every pair of offsets recurs
				// a_i = i mod 13 + 1, b_i = (i mod 5) − 2: products ≤ 26 in magnitude,
				// squares of differences ≤ 225, sums < 2^24.
				a, _ := guarded(n, offA, func(i int) float32 { return float32(i%13 + 1) })
				b, _ := guarded(n, offB, func(i int) float32 { return float32(i%5 - 2) })
				want, _ := c.ref(a, b)
				if got := c.fn(a, b); float64(got) != want {
					t.Fatalf("n=%d offsets %d,%d: got %v, want exactly %v", n, offA, offB, got, want)
				}
			}
		})
	}
}

// TestPairLongerB checks that only len(a) elements of b are used.
func TestPairLongerB(t *testing.T) {
	for _, c := range pairCases() {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= 70; n++ {
				a, _ := guarded(n, 1, func(i int) float32 { return float32(i%3 + 1) })
				b := make([]float32, n+20)
				for i := range b {
					b[i] = float32(math.NaN())
					if i < n {
						b[i] = 1
					}
				}
				want, _ := c.ref(a, b[:n])
				if got := c.fn(a, b); float64(got) != want {
					t.Fatalf("n=%d: got %v, want %v", n, got, want)
				}
			}
		})
	}
}

func TestPairEmpty(t *testing.T) {
	for _, c := range pairCases() {
		if got := c.fn(nil, nil); got != 0 {
			t.Errorf("%s(nil, nil) = %v, want 0", c.name, got)
		}
	}
	for _, c := range quadCases() {
		if a, b, cc, d := c.fn(nil, nil, nil, nil, nil); a != 0 || b != 0 || cc != 0 || d != 0 {
			t.Errorf("%s(nil…) = %v %v %v %v, want zeros", c.name, a, b, cc, d)
		}
	}
}

// TestQuad holds every 1×4 kernel equal to the reference loop for every
// length 1…1024, each row at its own offset 0…3 with NaN guards, and checks
// that the four results come back in argument order.
func TestQuad(t *testing.T) {
	pool := normals(6*maxLen, 3)
	for _, c := range quadCases() {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= maxLen; n++ {
				q, bufQ := guarded(n, n%4, func(i int) float32 { return pool[i+n%97] })
				var rows [4][]float32
				var bufs [4][]float32
				for r := range rows {
					scale := float32(r + 1) // distinct magnitudes expose swapped outputs
					base := (r+1)*maxLen + n%89
					rows[r], bufs[r] = guarded(n, (n+r+1)%4, func(i int) float32 { return scale * pool[base+i] })
				}
				var got [4]float32
				got[0], got[1], got[2], got[3] = c.fn(q, rows[0], rows[1], rows[2], rows[3])
				for r := range rows {
					want, scale := c.ref(q, rows[r])
					g := float64(got[r])
					if math.IsNaN(g) || math.IsInf(g, 0) {
						t.Fatalf("n=%d row %d: got %v, a guard was read", n, r, g)
					}
					if d := math.Abs(g - want); d > tolerance(n, scale) {
						t.Fatalf("n=%d row %d: got %v, want %v (|Δ|=%g > %g)", n, r, g, want, d, tolerance(n, scale))
					}
					checkGuards(t, bufs[r], (n+r+1)%4, n)
				}
				checkGuards(t, bufQ, n%4, n)
			}
		})
	}
}

// TestQuadExact is TestPairExact for the 1×4 kernels.
func TestQuadExact(t *testing.T) {
	for _, c := range quadCases() {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= maxLen; n++ {
				q, _ := guarded(n, n%4, func(i int) float32 { return float32(i%13 + 1) })
				var rows [4][]float32
				for r := range rows {
					rows[r], _ = guarded(n, r, func(i int) float32 { return float32((i+r)%5 - 2) })
				}
				var got [4]float32
				got[0], got[1], got[2], got[3] = c.fn(q, rows[0], rows[1], rows[2], rows[3])
				for r := range rows {
					if want, _ := c.ref(q, rows[r]); float64(got[r]) != want {
						t.Fatalf("n=%d row %d: got %v, want exactly %v", n, r, got[r], want)
					}
				}
			}
		})
	}
}

func TestSetAccelerated(t *testing.T) {
	defer SetAccelerated(true)
	ptr := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	SetAccelerated(false)
	if Impl() != "generic" || ptr(Dot) != ptr(DotGeneric) || ptr(L2Sq) != ptr(L2SqGeneric) ||
		ptr(Dot4) != ptr(Dot4Generic) || ptr(L2Sq4) != ptr(L2Sq4Generic) ||
		ptr(DotRows) != ptr(DotRowsGeneric) || ptr(L2SqRows) != ptr(L2SqRowsGeneric) ||
		ptr(DotRowsQ3) != ptr(DotRowsQ3Generic) || ptr(L2SqRowsQ3) != ptr(L2SqRowsQ3Generic) {
		t.Fatalf("SetAccelerated(false): Impl()=%q and the variables are not the generic twins", Impl())
	}
	SetAccelerated(true)
	av := Available()
	best := av[len(av)-1]
	if Impl() != best.Name || ptr(Dot) != ptr(best.Dot) || ptr(L2Sq) != ptr(best.L2Sq) ||
		ptr(Dot4) != ptr(best.Dot4) || ptr(L2Sq4) != ptr(best.L2Sq4) ||
		ptr(DotRows) != ptr(best.DotRows) || ptr(L2SqRows) != ptr(best.L2SqRows) {
		t.Fatalf("SetAccelerated(true): Impl()=%q, want every variable from %q", Impl(), best.Name)
	}
	if av[0].Name != "generic" {
		t.Fatalf("Available()[0] = %q, want generic", av[0].Name)
	}
	av[0].Name = "mutated"
	if Available()[0].Name != "generic" {
		t.Fatal("Available returned the package's own slice")
	}
}

func ExampleImpl() {
	// The kernel set depends on the CPU (and, under js/wasm, on the
	// host's SIMD128); it is always one of four.
	switch Impl() {
	case "avx512", "avx2", "simd128", "generic":
		fmt.Println("known kernel")
	}
	// Output: known kernel
}

func ExampleDot4() {
	q := []float32{1, 2, 3}
	a, b, c, d := Dot4(q, []float32{1, 0, 0}, []float32{0, 1, 0}, []float32{0, 0, 1}, []float32{1, 1, 1})
	fmt.Println(a, b, c, d)
	// Output: 1 2 3 6
}

// TestRowsMatchQuad requires every slab kernel to give, bit for bit, what the
// four-row kernel of its own set gives for each block (the exact index relies
// on it: a row scores the same through either path), over dimensions that
// exercise every loop, step and tail, strides with padding, and a slab cut
// to exactly the elements the kernel may read. Entries of out past the
// blocks it was given stay untouched.
func TestRowsMatchQuad(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, k := range Available() {
		for _, dim := range []int{1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 384} {
			for _, pad := range []int{0, 1, 5} {
				stride := dim + pad
				for _, rows := range []int{0, 4, 8, 36} {
					q := make([]float32, dim)
					for i := range q {
						q[i] = r.Float32()*2 - 1
					}
					size := 0
					if rows > 0 {
						size = (rows-1)*stride + dim
					}
					data := make([]float32, size)
					for i := range data {
						data[i] = r.Float32()*2 - 1
					}
					out := make([]float32, rows+4)
					for _, c := range []struct {
						name string
						rows func(q, data []float32, stride int, out []float32)
						quad func(q, a, b, c, d []float32) (float32, float32, float32, float32)
					}{{"DotRows", k.DotRows, k.Dot4}, {"L2SqRows", k.L2SqRows, k.L2Sq4}} {
						for i := range out {
							out[i] = -7
						}
						c.rows(q, data, stride, out[:rows])
						row := func(j int) []float32 { return data[j*stride : j*stride+dim] }
						for j := 0; j < rows; j += 4 {
							var want [4]float32
							want[0], want[1], want[2], want[3] = c.quad(q, row(j), row(j+1), row(j+2), row(j+3))
							for u := range 4 {
								if math.Float32bits(out[j+u]) != math.Float32bits(want[u]) {
									t.Fatalf("%s/%s dim=%d stride=%d rows=%d: out[%d] = %v, %s4 gives %v",
										c.name, k.Name, dim, stride, rows, j+u, out[j+u], c.name[:len(c.name)-4], want[u])
								}
							}
						}
						for j := rows; j < len(out); j++ {
							if out[j] != -7 {
								t.Fatalf("%s/%s dim=%d rows=%d: out[%d] written past len(out)", c.name, k.Name, dim, rows, j)
							}
						}
					}
				}
			}
		}
	}
}

// TestRowsQ3MatchRows requires every three-query slab kernel to give, bit
// for bit, what the one-query slab kernel of its set gives for each of the
// three queries, with query and output strides of their own, padded rows
// and a slab cut to exactly what may be read; nothing past each output row
// is written.
func TestRowsQ3MatchRows(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, k := range Available() {
		for _, dim := range []int{1, 7, 15, 16, 17, 33, 48, 65, 384} {
			for _, n := range []int{0, 4, 16, 20} {
				stride, qstride, ostride := dim+dim%3, dim+2, n+5
				q := make([]float32, 2*qstride+dim)
				for i := range q {
					q[i] = r.Float32()*2 - 1
				}
				size := 0
				if n > 0 {
					size = (n-1)*stride + dim
				}
				data := make([]float32, size)
				for i := range data {
					data[i] = r.Float32()*2 - 1
				}
				out := make([]float32, 2*ostride+n+4)
				want := make([]float32, n)
				for _, c := range []struct {
					name string
					q3   func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int)
					rows func(q, data []float32, stride int, out []float32)
				}{{"DotRowsQ3", k.DotRowsQ3, k.DotRows}, {"L2SqRowsQ3", k.L2SqRowsQ3, k.L2SqRows}} {
					for i := range out {
						out[i] = -7
					}
					c.q3(q, qstride, dim, data, stride, n, out, ostride)
					for j := range 3 {
						c.rows(q[j*qstride:j*qstride+dim], data, stride, want)
						for i := range n {
							if math.Float32bits(out[j*ostride+i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s/%s dim=%d n=%d: query %d row %d = %v, one-query kernel %v", c.name, k.Name, dim, n, j, i, out[j*ostride+i], want[i])
							}
						}
						for i := n; i < ostride && j*ostride+i < len(out); i++ {
							if out[j*ostride+i] != -7 {
								t.Fatalf("%s/%s dim=%d n=%d: query %d wrote past row %d", c.name, k.Name, dim, n, j, n)
							}
						}
					}
				}
			}
		}
	}
}

// TestCols256MatchesGeneric requires every kernel set's Cols256 to give,
// bit for bit, what Cols256Generic gives, at lengths around the loop's
// edges (0 columns: all zeros), on values of mixed sign and scale (where a
// fused multiply-add would round differently), and to write nothing past
// out[255]; and checks the generic loop against a float64 sum.
func TestCols256MatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	kernels := 0
	for _, k := range Available() {
		f := k.Cols256
		if f == nil {
			continue
		}
		kernels++
		for _, n := range []int{0, 1, 2, 3, 12, 16, 24, 48, 96} {
			x := make([]float32, n)
			for i := range x {
				x[i] = (r.Float32()*2 - 1) * float32(math.Pow(10, float64(r.IntN(5)-2)))
			}
			cols := make([]float32, n*256)
			for i := range cols {
				cols[i] = (r.Float32()*2 - 1) * float32(math.Pow(10, float64(r.IntN(5)-2)))
			}
			got := make([]float32, 260)
			want := make([]float32, 256)
			for i := range got {
				got[i] = -7
			}
			f(x, cols, got)
			Cols256Generic(x, cols, want)
			for c := range want {
				if math.Float32bits(got[c]) != math.Float32bits(want[c]) {
					t.Fatalf("%s n=%d: out[%d] = %v, the generic loop gives %v", k.Name, n, c, got[c], want[c])
				}
			}
			for c := 256; c < len(got); c++ {
				if got[c] != -7 {
					t.Fatalf("%s n=%d: out[%d] written past 256", k.Name, n, c)
				}
			}
			for c := range want {
				var s, scale float64
				for d := range x {
					s += float64(x[d]) * float64(cols[d*256+c])
					scale += math.Abs(float64(x[d]) * float64(cols[d*256+c]))
				}
				if math.Abs(float64(want[c])-s) > 1e-5*scale+1e-30 {
					t.Fatalf("n=%d: out[%d] = %v, the float64 sum is %v", n, c, want[c], s)
				}
			}
		}
	}
	if avx512 := Available()[len(Available())-1].Name == "avx512"; avx512 && kernels == 0 {
		t.Fatal("the AVX-512 set has no Cols256 kernel")
	}
}
