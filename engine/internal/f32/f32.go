package f32

import "github.com/veclab/veclab/engine/internal/simdenv"

// Dot returns Σ a[i]*b[i] over len(a) elements; len(b) must be ≥ len(a).
var Dot = DotGeneric

// L2Sq returns Σ (a[i]-b[i])² over len(a) elements; len(b) must be ≥ len(a).
var L2Sq = L2SqGeneric

// Dot4 returns Dot(q, a), Dot(q, b), Dot(q, c), Dot(q, d) over len(q)
// elements; every row must have at least len(q).
var Dot4 = Dot4Generic

// L2Sq4 returns L2Sq(q, a), L2Sq(q, b), L2Sq(q, c), L2Sq(q, d) over len(q)
// elements; every row must have at least len(q).
var L2Sq4 = L2Sq4Generic

// DotRows sets out[j] = Dot(q, data[j*stride:j*stride+len(q)]) for every
// j < len(out), bit-identical to what Dot4 returns for the same row; len(out)
// must be a multiple of 4 and data must hold (len(out)-1)*stride+len(q)
// elements. It is the scan of a row-major slab in one call.
var DotRows = DotRowsGeneric

// L2SqRows is DotRows for L2Sq4.
var L2SqRows = L2SqRowsGeneric

// DotRowsQ3 is DotRows for three queries at once: for j < 3 and i < n (n a
// multiple of 4), out[j*ostride+i] is what DotRows gives for the query
// q[j*qstride : j*qstride+dim] and row i of data, bit for bit. The AVX-512
// kernel loads each row once for the three queries; elsewhere it is three
// DotRows calls.
var DotRowsQ3 = DotRowsQ3Generic

// L2SqRowsQ3 is DotRowsQ3 for L2SqRows.
var L2SqRowsQ3 = L2SqRowsQ3Generic

// DotIDs sets out[j] = Dot(q, data[ids[j]*stride : ids[j]*stride+len(q)])
// for every j < len(ids) (len(out) ≥ len(ids)): the rows of a list of ids,
// the batch the beam search scores per expanded node. Blocks of four
// rows are bit-identical to what Dot4 gives for them, the last
// len(ids) mod 4 rows to what Dot gives. On js/wasm ("simd128") the list
// is one crossing into engine/internal/wasmsimd.
var DotIDs = DotIDsGeneric

// L2SqIDs is DotIDs for L2Sq4 and L2Sq.
var L2SqIDs = L2SqIDsGeneric

// Cols256 sets out[c] = Σ x[d]·cols[d*256+c] over d < len(x), in order of
// d, for every c < 256 (cols holds len(x)*256 elements, out 256): a
// vector times a matrix stored column by column, the distance table row
// of a product quantizer's sub-space from its transposed codebook. Each
// product is rounded to float32 before it is added, so every kernel set
// gives the same bits as Cols256Generic. Only the AVX-512 set has a
// kernel of its own ([Cols256Fast]); elsewhere it is the pure-Go loop,
// slower than a dot product per centroid (DotRows), which callers then use.
var Cols256 = Cols256Generic

// cols256Fast reports whether Cols256 is a SIMD kernel.
var cols256Fast bool

// Cols256Fast reports whether the kernel set in use has its own Cols256
// (AVX-512), so that a table built column by column is the fast way.
func Cols256Fast() bool { return cols256Fast }

// Cols256Generic is the pure-Go twin of Cols256.
func Cols256Generic(x, cols, out []float32) {
	out = out[:256]
	clear(out)
	for d, xd := range x {
		col := (*[256]float32)(cols[d*256 : d*256+256])
		for c := range out {
			out[c] += float32(xd * col[c]) // the explicit conversion forbids fusing into an FMA
		}
	}
}

// Kernel is one complete set of kernels, named after the instruction set it needs.
type Kernel struct {
	Name  string // "generic", "avx2" or "avx512"
	Dot   func(a, b []float32) float32
	L2Sq  func(a, b []float32) float32
	Dot4  func(q, a, b, c, d []float32) (float32, float32, float32, float32)
	L2Sq4 func(q, a, b, c, d []float32) (float32, float32, float32, float32)
	// DotRows and L2SqRows score consecutive rows of a slab, four at a
	// time, each bit-identical to Dot4 / L2Sq4 of the same set.
	DotRows  func(q, data []float32, stride int, out []float32)
	L2SqRows func(q, data []float32, stride int, out []float32)
	// DotRowsQ3 and L2SqRowsQ3 score three queries against consecutive
	// rows, each distance bit-identical to DotRows / L2SqRows of the set.
	DotRowsQ3  func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int)
	L2SqRowsQ3 func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int)
	// DotIDs and L2SqIDs score the rows of a list of ids, each block of
	// four bit-identical to Dot4 / L2Sq4 of the set and the rest to Dot /
	// L2Sq.
	DotIDs  func(q, data []float32, stride int, ids []uint32, out []float32)
	L2SqIDs func(q, data []float32, stride int, ids []uint32, out []float32)
	// Cols256 is the set's own Cols256 kernel, bit-identical to
	// Cols256Generic; nil when the set has none (the pure-Go loop is used).
	Cols256 func(x, cols, out []float32)
}

// Generic is the pure-Go kernel set, available everywhere.
var Generic = Kernel{Name: "generic", Dot: DotGeneric, L2Sq: L2SqGeneric, Dot4: Dot4Generic, L2Sq4: L2Sq4Generic,
	DotRows: DotRowsGeneric, L2SqRows: L2SqRowsGeneric, DotRowsQ3: DotRowsQ3Generic, L2SqRowsQ3: L2SqRowsQ3Generic,
	DotIDs: DotIDsGeneric, L2SqIDs: L2SqIDsGeneric}

var (
	// available lists the sets this CPU runs, generic first and best last,
	// capped by VECLAB_SIMD (engine/internal/simdenv) so that one machine
	// can stand in for one with fewer instructions.
	available, settingErr = simdenv.Cap(append([]Kernel{Generic}, archKernels()...), func(k Kernel) string { return k.Name })
	current               = Generic
)

// SettingErr reports a VECLAB_SIMD value the package did not understand
// (it then keeps every set this CPU runs); nil when the value is fine.
func SettingErr() error { return settingErr }

func init() { SetAccelerated(true) }

// Available returns every kernel set this CPU can run, the pure-Go one first
// and the one chosen by SetAccelerated(true) last. The slice is a copy.
func Available() []Kernel { return append([]Kernel(nil), available...) }

// SetAccelerated installs the best kernel set of this CPU (true) or the pure-Go
// twins (false) into Dot, L2Sq, Dot4, L2Sq4 and the Rows kernels. It is not safe to call while
// other goroutines use the kernels.
func SetAccelerated(on bool) {
	k := Generic
	if on {
		k = available[len(available)-1]
	}
	current = k
	Dot, L2Sq, Dot4, L2Sq4 = k.Dot, k.L2Sq, k.Dot4, k.L2Sq4
	DotRows, L2SqRows = k.DotRows, k.L2SqRows
	DotRowsQ3, L2SqRowsQ3 = k.DotRowsQ3, k.L2SqRowsQ3
	DotIDs, L2SqIDs = k.DotIDs, k.L2SqIDs
	Cols256, cols256Fast = Cols256Generic, false
	if k.Cols256 != nil {
		Cols256, cols256Fast = k.Cols256, true
	}
}

// Impl names the kernel set in use: "avx512", "avx2", "simd128" (js/wasm)
// or "generic".
func Impl() string { return current.Name }

// DotGeneric is the pure-Go twin of Dot: four accumulators, s_k summing the
// products of the elements i ≡ k (mod 4) in order, the elements past the last
// multiple of four added to s_0, and the result (s_0+s_1)+(s_2+s_3).
//
// The main loop takes sixteen elements per iteration through array pointers
// ((*[16]float32)(a[i:i+16])), so the compiler checks the bounds once per
// block instead of once per element; that and the fewer loop branches make
// it 1.6–1.9 times as fast under GOARCH=wasm in Node (which has no SIMD, and
// where every bounds check is a branch of its own) and no slower on amd64
// (BenchmarkTwin). Eight accumulators were measured slower than four, on
// amd64 (1.3 times the time at 768 dimensions) and under wasm (1.17 times at
// 128). The four-wide and one-wide tails keep the
// order above, so the result is the same, bit for bit, as that of the plain
// four-accumulator loop (dotRef4 in the tests) for every length.
func DotGeneric(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+16 <= n; i += 16 {
		x := (*[16]float32)(a[i : i+16])
		y := (*[16]float32)(b[i : i+16])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s0 += x[4] * y[4]
		s1 += x[5] * y[5]
		s2 += x[6] * y[6]
		s3 += x[7] * y[7]
		s0 += x[8] * y[8]
		s1 += x[9] * y[9]
		s2 += x[10] * y[10]
		s3 += x[11] * y[11]
		s0 += x[12] * y[12]
		s1 += x[13] * y[13]
		s2 += x[14] * y[14]
		s3 += x[15] * y[15]
	}
	for ; i+4 <= n; i += 4 {
		x := (*[4]float32)(a[i : i+4])
		y := (*[4]float32)(b[i : i+4])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// L2SqGeneric is the pure-Go twin of L2Sq, in the order and the loop shape
// of DotGeneric: s_k sums the squared differences of the elements i ≡ k
// (mod 4) in order, the tail past the last multiple of four goes to s_0, and
// the result is (s_0+s_1)+(s_2+s_3), bit for bit that of the plain
// four-accumulator loop (l2SqRef4 in the tests).
func L2SqGeneric(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+16 <= n; i += 16 {
		x := (*[16]float32)(a[i : i+16])
		y := (*[16]float32)(b[i : i+16])
		d0 := x[0] - y[0]
		d1 := x[1] - y[1]
		d2 := x[2] - y[2]
		d3 := x[3] - y[3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		d0 = x[4] - y[4]
		d1 = x[5] - y[5]
		d2 = x[6] - y[6]
		d3 = x[7] - y[7]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		d0 = x[8] - y[8]
		d1 = x[9] - y[9]
		d2 = x[10] - y[10]
		d3 = x[11] - y[11]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		d0 = x[12] - y[12]
		d1 = x[13] - y[13]
		d2 = x[14] - y[14]
		d3 = x[15] - y[15]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i+4 <= n; i += 4 {
		x := (*[4]float32)(a[i : i+4])
		y := (*[4]float32)(b[i : i+4])
		d0 := x[0] - y[0]
		d1 := x[1] - y[1]
		d2 := x[2] - y[2]
		d3 := x[3] - y[3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < n; i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// Dot4Generic is the pure-Go twin of Dot4: four calls of DotGeneric.
func Dot4Generic(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	return DotGeneric(q, a), DotGeneric(q, b), DotGeneric(q, c), DotGeneric(q, d)
}

// L2Sq4Generic is the pure-Go twin of L2Sq4: four calls of L2SqGeneric.
func L2Sq4Generic(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	return L2SqGeneric(q, a), L2SqGeneric(q, b), L2SqGeneric(q, c), L2SqGeneric(q, d)
}

// DotRowsGeneric is the pure-Go twin of DotRows: Dot4Generic over each block
// of four rows.
func DotRowsGeneric(q, data []float32, stride int, out []float32) {
	n := len(q)
	for j := 0; j+4 <= len(out); j += 4 {
		o := j * stride
		out[j], out[j+1], out[j+2], out[j+3] = Dot4Generic(q, data[o:o+n],
			data[o+stride:o+stride+n], data[o+2*stride:o+2*stride+n], data[o+3*stride:o+3*stride+n])
	}
}

// L2SqRowsGeneric is the pure-Go twin of L2SqRows: L2Sq4Generic over each
// block of four rows.
func L2SqRowsGeneric(q, data []float32, stride int, out []float32) {
	n := len(q)
	for j := 0; j+4 <= len(out); j += 4 {
		o := j * stride
		out[j], out[j+1], out[j+2], out[j+3] = L2Sq4Generic(q, data[o:o+n],
			data[o+stride:o+stride+n], data[o+2*stride:o+2*stride+n], data[o+3*stride:o+3*stride+n])
	}
}

// rowsQ3 is a Q3 kernel made of three calls of a one-query slab kernel.
func rowsQ3(rows func(q, data []float32, stride int, out []float32)) func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int) {
	return func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int) {
		for j := range 3 {
			rows(q[j*qstride:j*qstride+dim], data, stride, out[j*ostride:j*ostride+n])
		}
	}
}

// DotRowsQ3Generic is the pure-Go twin of DotRowsQ3: DotRowsGeneric for each
// of the three queries.
func DotRowsQ3Generic(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int) {
	rowsQ3(DotRowsGeneric)(q, qstride, dim, data, stride, n, out, ostride)
}

// L2SqRowsQ3Generic is the pure-Go twin of L2SqRowsQ3: L2SqRowsGeneric for
// each of the three queries.
func L2SqRowsQ3Generic(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int) {
	rowsQ3(L2SqRowsGeneric)(q, qstride, dim, data, stride, n, out, ostride)
}

// idsVia returns an IDs kernel made of a set's four-row and one-row
// kernels: four rows per quad call, the rest one by one.
func idsVia(quad func(q, a, b, c, d []float32) (float32, float32, float32, float32), one func(a, b []float32) float32) func(q, data []float32, stride int, ids []uint32, out []float32) {
	return func(q, data []float32, stride int, ids []uint32, out []float32) {
		n := len(q)
		out = out[:len(ids)]
		row := func(id uint32) []float32 {
			o := int(id) * stride
			return data[o : o+n : o+n]
		}
		i := 0
		for ; i+4 <= len(ids); i += 4 {
			out[i], out[i+1], out[i+2], out[i+3] = quad(q, row(ids[i]), row(ids[i+1]), row(ids[i+2]), row(ids[i+3]))
		}
		for ; i < len(ids); i++ {
			out[i] = one(q, row(ids[i]))
		}
	}
}

// DotIDsGeneric is the pure-Go twin of DotIDs: Dot4Generic over each block
// of four ids, DotGeneric over the rest.
func DotIDsGeneric(q, data []float32, stride int, ids []uint32, out []float32) {
	idsVia(Dot4Generic, DotGeneric)(q, data, stride, ids, out)
}

// L2SqIDsGeneric is the pure-Go twin of L2SqIDs.
func L2SqIDsGeneric(q, data []float32, stride int, ids []uint32, out []float32) {
	idsVia(L2Sq4Generic, L2SqGeneric)(q, data, stride, ids, out)
}
