package main

// The f32 generator: float32 dot product and squared Euclidean distance,
// one vector against one (Dot, L2Sq) and one query against four rows (Dot4,
// L2Sq4), for AVX2+FMA (8 lanes) and AVX-512F (16 lanes).
//
// Shape of every kernel (after gonum's internal/asm/f32 and the usual
// FMA reduction of e.g. simsimd / FAISS fvec_inner_product):
//   - a main loop over blocks of unroll×lanes elements, one independent
//     accumulator per unrolled step: two FMA pipes of latency 4 need eight
//     chains to stay busy. (On the Zen 5 this was written on, the in-cache
//     kernels are bound by two loads per FMA instead, and four or eight
//     accumulators measured the same.)
//   - straight-line steps of 4, 2 and 1 registers for what the loop leaves,
//     each into accumulators of its own;
//   - a masked tail of 1…lanes-1 elements (VMASKMOVPS for AVX2, zeroing
//     opmask loads for AVX-512), which never reads past the end of a slice:
//     masked-off lanes are neither loaded nor faulted on;
//   - a tree reduction of the accumulators and a horizontal sum.

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

func init() {
	register(&generator{
		name:       "f32",
		pkg:        "f32",
		asm:        "dist_amd64.s",
		stubs:      "stubs_amd64.go",
		constraint: "!purego",
		build:      genF32,
	})
}

type metric int

const (
	dot metric = iota
	l2sq
)

// isa describes one vector width.
type isa struct {
	name   string // suffix of the function names: AVX2, AVX512
	lanes  int    // float32 lanes per register
	unroll int    // independent accumulators in the main loop of the 1×1 kernels
	vec    func(c *build.Context) reg.VecVirtual
}

var (
	avx2   = isa{name: "AVX2", lanes: 8, unroll: 8, vec: func(c *build.Context) reg.VecVirtual { return c.YMM() }}
	avx512 = isa{name: "AVX512", lanes: 16, unroll: 8, vec: func(c *build.Context) reg.VecVirtual { return c.ZMM() }}
)

func (m metric) name() string {
	if m == dot {
		return "Dot"
	}
	return "L2Sq"
}

// loop is the body of the reference loop, one line per element.
func (m metric) loop() []string {
	if m == dot {
		return []string{"\t\ts += a[i] * b[i]"}
	}
	return []string{"\t\td := a[i] - b[i]", "\t\ts += d * d"}
}

// tables holds the static masks of the tails.
type tables struct {
	avx2   operand.Mem // 8×0xffffffff then 8×0: the 8 dwords at [8-r] enable lanes 0…r-1
	avx512 operand.Mem // 16 words: word r is (1<<r)-1
}

func genF32(c *build.Context) {
	var t tables
	t.avx2 = c.StaticGlobal("avx2tail")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 16; i++ {
		v := uint32(0)
		if i < 8 {
			v = 0xffffffff
		}
		c.AppendDatum(operand.U32(v))
	}
	t.avx512 = c.StaticGlobal("avx512tail")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 16; i++ {
		c.AppendDatum(operand.U16(uint16(1)<<i - 1))
	}

	for _, s := range []isa{avx2, avx512} {
		for _, m := range []metric{dot, l2sq} {
			pair(c, s, m, t)
		}
	}
	for _, s := range []isa{avx2, avx512} {
		for _, m := range []metric{dot, l2sq} {
			batch4(c, s, m, t)
		}
	}
	for _, s := range []isa{avx2, avx512} {
		for _, m := range []metric{dot, l2sq} {
			batchRows(c, s, m, t)
		}
	}
	for _, m := range []metric{dot, l2sq} {
		batchRowsQ3(c, avx512, m, t)
	}
	cols256(c)
}

// cols256 generates func Cols256AVX512(x, cols, out []float32): out[c] =
// Σ_d x[d]·cols[d·256+c] for every c < 256, the sum over d < len(x) in
// order, each product rounded to float32 and then added (VMULPS, VADDPS:
// no FMA, so that the pure-Go twin, which Go may not fuse across its
// explicit float32 conversion, is bit-identical). The 256 sums stay in 16
// ZMM registers for the whole loop: a column is one broadcast, 16
// multiplies and 16 adds, with no horizontal reduction — the shape of a
// product quantizer's distance table of one query from its transposed
// codebook, where a kernel per centroid spends most of its time reducing
// a short dot product.
func cols256(c *build.Context) {
	const name = "Cols256AVX512"
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(x, cols, out []float32)")
	c.Doc(
		name+" is the AVX-512 kernel of Cols256: for every c < 256,",
		"out[c] = Σ x[d]·cols[d*256+c] over d < len(x), in order of d, each product",
		"rounded to float32 before it is added (no FMA). cols must hold len(x)*256",
		"elements and out 256. The CPU must have AVX-512F (see Available). Its",
		"pure-Go twin is the loop",
		"",
		"\tclear(out[:256])",
		"\tfor d, xd := range x {",
		"\t\tfor c := range 256 {",
		"\t\t\tout[c] += float32(xd * cols[d*256+c])",
		"\t\t}",
		"\t}",
	)
	xp := c.Load(c.Param("x").Base(), c.GP64())
	n := c.Load(c.Param("x").Len(), c.GP64())
	cp := c.Load(c.Param("cols").Base(), c.GP64())
	op := c.Load(c.Param("out").Base(), c.GP64())
	acc := make([]reg.VecVirtual, 16)
	for i := range acc {
		acc[i] = c.ZMM()
		c.VPXORD(acc[i], acc[i], acc[i])
	}
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_done"))
	c.Label(name + "_loop")
	b := c.ZMM()
	c.VBROADCASTSS(operand.Mem{Base: xp}, b)
	for i := range acc {
		p := c.ZMM()
		c.VMULPS(operand.Mem{Base: cp, Disp: 64 * i}, b, p)
		c.VADDPS(p, acc[i], acc[i])
	}
	c.ADDQ(operand.U32(4), xp)
	c.ADDQ(operand.U32(1024), cp)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_done")
	for i := range acc {
		c.VMOVUPS(acc[i], operand.Mem{Base: op, Disp: 64 * i})
	}
	c.VZEROUPPER()
	c.RET()
}

// zero clears v; for ZMM it uses VPXORD (AVX-512F), since VXORPS on ZMM needs DQ.
func zero(c *build.Context, s isa, v reg.VecVirtual) {
	if s.lanes == 16 {
		c.VPXORD(v, v, v)
	} else {
		c.VXORPS(v, v, v)
	}
}

// accumulate adds the contribution of x (already loaded from a) and the
// memory or register operand bv (from b) into acc, clobbering x.
func accumulate(c *build.Context, m metric, x reg.VecVirtual, bv operand.Op, acc reg.VecVirtual) {
	if m == dot {
		c.VFMADD231PS(bv, x, acc)
		return
	}
	c.VSUBPS(bv, x, x)
	c.VFMADD231PS(x, x, acc)
}

// tailMask loads the mask enabling the first r (1…lanes-1) lanes; r is
// clobbered. It returns the YMM mask for AVX2 or the opmask for AVX-512.
func tailMask(c *build.Context, s isa, t tables, r reg.Register) reg.Register {
	tbl := c.GP64()
	if s.lanes == 8 {
		c.LEAQ(t.avx2, tbl)
		c.NEGQ(r)
		c.ADDQ(operand.U32(8), r)
		mk := c.YMM()
		c.VMOVDQU(operand.Mem{Base: tbl, Index: r, Scale: 4}, mk)
		return mk
	}
	c.LEAQ(t.avx512, tbl)
	k := c.K()
	c.KMOVW(operand.Mem{Base: tbl, Index: r, Scale: 2}, k)
	return k
}

// maskedLoad loads the enabled lanes of p[i:] into a new register, zeroing the others.
func maskedLoad(c *build.Context, s isa, mk reg.Register, p, i reg.Register) reg.VecVirtual {
	v := s.vec(c)
	mem := operand.Mem{Base: p, Index: i, Scale: 1}
	if s.lanes == 8 {
		c.VMASKMOVPS(mem, mk, v)
	} else {
		c.VMOVUPS_Z(mem, mk, v)
	}
	return v
}

// hsum reduces v (YMM or ZMM) to its horizontal sum in lane 0 of v's XMM.
func hsum(c *build.Context, s isa, v reg.VecVirtual) reg.Register {
	y := v.AsY()
	if s.lanes == 16 {
		hi := c.YMM()
		c.VEXTRACTF64X4(operand.U8(1), v, hi)
		c.VADDPS(hi, y, y)
	}
	x := v.AsX()
	hi := c.XMM()
	c.VEXTRACTF128(operand.U8(1), y, hi)
	c.VADDPS(hi, x, x)
	c.VMOVHLPS(x, x, hi)
	c.VADDPS(hi, x, x)
	c.VMOVSHDUP(x, hi)
	c.VADDSS(hi, x, x)
	return x
}

// pair generates func <Metric><ISA>(a, b []float32) float32 over len(a).
func pair(c *build.Context, s isa, m metric, t tables) {
	name := m.name() + s.name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(a, b []float32) float32")
	doc := []string{
		fmt.Sprintf("%s is the %s kernel of %s, %d lanes, %d accumulators.", name, s.name, m.name(), s.lanes, s.unroll),
		"len(b) must be at least len(a); no element past len(a) is read.",
		"The CPU must have " + map[int]string{8: "AVX2 and FMA", 16: "AVX-512F"}[s.lanes] + " (see Available). Its pure-Go twin is the loop",
		"",
		"\tvar s float32",
		"\tfor i := range a {",
	}
	doc = append(doc, m.loop()...)
	doc = append(doc, "\t}", "\treturn s", "", "with the terms summed in another order ("+m.name()+"Generic).")
	c.Doc(doc...)
	a := c.Load(c.Param("a").Base(), c.GP64())
	b := c.Load(c.Param("b").Base(), c.GP64())
	n := c.Load(c.Param("a").Len(), c.GP64())
	i := c.GP64() // byte offset
	c.XORQ(i, i)

	acc := make([]reg.VecVirtual, s.unroll)
	for j := range acc {
		acc[j] = s.vec(c)
		zero(c, s, acc[j])
	}
	lbl := func(l string) string { return name + "_" + l }
	width := 4 * s.lanes // bytes per register

	// steps accumulates k registers' worth of a and b at byte offset i into
	// acc[first:first+k] and advances i and n past them.
	steps := func(first, k int) {
		for j := 0; j < k; j++ {
			x := s.vec(c)
			c.VMOVUPS(operand.Mem{Base: a, Index: i, Scale: 1, Disp: j * width}, x)
			accumulate(c, m, x, operand.Mem{Base: b, Index: i, Scale: 1, Disp: j * width}, acc[first+j])
		}
		c.ADDQ(operand.U32(width*k), i)
		c.SUBQ(operand.U32(s.lanes*k), n)
	}

	// Main loop: unroll registers per iteration, one accumulator each.
	c.CMPQ(n, operand.U32(s.lanes*s.unroll))
	c.JL(operand.LabelRef(lbl("rest")))
	c.Label(lbl("loop"))
	steps(0, s.unroll)
	c.CMPQ(n, operand.U32(s.lanes*s.unroll))
	c.JGE(operand.LabelRef(lbl("loop")))

	// The remaining n < unroll×lanes elements: a ladder of straight-line
	// steps of unroll/2, unroll/4, …, 1 registers, each into accumulators of
	// its own so that no FMA waits on another, then the masked tail.
	c.Label(lbl("rest"))
	first := 0
	for k := s.unroll / 2; k >= 1; k /= 2 {
		skip := lbl(fmt.Sprintf("lt%d", k))
		c.CMPQ(n, operand.U32(s.lanes*k))
		c.JL(operand.LabelRef(skip))
		steps(first, k)
		c.Label(skip)
		first += k
	}
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(lbl("reduce")))
	mk := tailMask(c, s, t, n)
	xa := maskedLoad(c, s, mk, a, i)
	xb := maskedLoad(c, s, mk, b, i)
	accumulate(c, m, xa, xb, acc[first%s.unroll])

	c.Label(lbl("reduce"))
	for w := 1; w < s.unroll; w *= 2 {
		for j := 0; j+w < s.unroll; j += 2 * w {
			c.VADDPS(acc[j+w], acc[j], acc[j])
		}
	}
	r := hsum(c, s, acc[0])
	c.VZEROUPPER()
	c.Store(r, c.ReturnIndex(0))
	c.RET()
}

// batch4 generates func <Metric>4<ISA>(q, a, b, c, d []float32) (da, db, dc, dd float32):
// the four distances of q to a, b, c, d over len(q), loading q once per block.
func batch4(c *build.Context, s isa, m metric, t tables) {
	name := m.name() + "4" + s.name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q, a, b, c, d []float32) (da, db, dc, dd float32)")
	doc := []string{
		fmt.Sprintf("%s is the %s kernel of %s4: the distances of q to four rows,", name, s.name, m.name()),
		"loading q once per block. Every row must have at least len(q) elements;",
		"none past len(q) is read. The CPU must have " + map[int]string{8: "AVX2 and FMA", 16: "AVX-512F"}[s.lanes] + " (see Available).",
		"Its pure-Go twin (" + m.name() + "4Generic) is, for each row x in a, b, c, d,",
		"",
		"\tvar s float32",
		"\tfor i := range q {",
	}
	for _, l := range m.loop() {
		doc = append(doc, strings.NewReplacer("a[i]", "q[i]", "b[i]", "x[i]").Replace(l))
	}
	doc = append(doc, "\t}", "\treturn s", "", "with the terms summed in another order.")
	c.Doc(doc...)
	q := c.Load(c.Param("q").Base(), c.GP64())
	rows := []reg.Register{
		c.Load(c.Param("a").Base(), c.GP64()),
		c.Load(c.Param("b").Base(), c.GP64()),
		c.Load(c.Param("c").Base(), c.GP64()),
		c.Load(c.Param("d").Base(), c.GP64()),
	}
	n := c.Load(c.Param("q").Len(), c.GP64())
	x := quad(c, s, m, t, name, q, rows, n, 0)
	c.VZEROUPPER()
	for r := 0; r < 4; r++ {
		ret, err := c.ReturnIndex(r).Resolve()
		if err != nil {
			panic(err)
		}
		if r == 0 {
			c.VMOVSS(x, ret.Addr)
		} else {
			c.VEXTRACTPS(operand.U8(r), x, ret.Addr)
		}
	}
	c.RET()
}

// quad emits the body of a four-row kernel: the distances of q (n elements,
// n is clobbered) to the four rows, returned as lanes 0…3 of an XMM
// register. Labels are prefixed with lbl. prefetch > 0 adds, per cache line
// of each row, a PREFETCHT0 of the same line prefetch bytes further on (the
// rows of a later block in a row-major slab).
func quad(c *build.Context, s isa, m metric, t tables, lbl string, q reg.Register, rows []reg.Register, n reg.Register, prefetch int) reg.Register {
	i := c.GP64()
	c.XORQ(i, i)
	const unroll = 2
	var acc [unroll][4]reg.VecVirtual
	for u := range acc {
		for r := range acc[u] {
			acc[u][r] = s.vec(c)
			zero(c, s, acc[u][r])
		}
	}
	label := func(l string) string { return lbl + "_" + l }
	width := 4 * s.lanes

	step := func(u, disp int) {
		x := s.vec(c)
		c.VMOVUPS(operand.Mem{Base: q, Index: i, Scale: 1, Disp: disp}, x)
		for r, row := range rows {
			mem := operand.Mem{Base: row, Index: i, Scale: 1, Disp: disp}
			if prefetch > 0 && disp%64 == 0 {
				c.PREFETCHT0(operand.Mem{Base: row, Index: i, Scale: 1, Disp: disp + prefetch})
			}
			if m == dot {
				c.VFMADD231PS(mem, x, acc[u][r])
			} else {
				d := s.vec(c)
				c.VSUBPS(mem, x, d)
				c.VFMADD231PS(d, d, acc[u][r])
			}
		}
	}

	c.Label(label("loop"))
	c.CMPQ(n, operand.U32(s.lanes*unroll))
	c.JL(operand.LabelRef(label("block")))
	for u := 0; u < unroll; u++ {
		step(u, u*width)
	}
	c.ADDQ(operand.U32(width*unroll), i)
	c.SUBQ(operand.U32(s.lanes*unroll), n)
	c.JMP(operand.LabelRef(label("loop")))

	c.Label(label("block"))
	c.CMPQ(n, operand.U32(s.lanes))
	c.JL(operand.LabelRef(label("tail")))
	step(0, 0)
	c.ADDQ(operand.U32(width), i)
	c.SUBQ(operand.U32(s.lanes), n)

	c.Label(label("tail"))
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(label("reduce")))
	mk := tailMask(c, s, t, n)
	xq := maskedLoad(c, s, mk, q, i)
	for r, row := range rows {
		xr := maskedLoad(c, s, mk, row, i)
		if m == dot {
			c.VFMADD231PS(xr, xq, acc[1][r])
		} else {
			c.VSUBPS(xr, xq, xr)
			c.VFMADD231PS(xr, xr, acc[1][r])
		}
	}

	c.Label(label("reduce"))
	var y [4]reg.Register
	for r := 0; r < 4; r++ {
		c.VADDPS(acc[1][r], acc[0][r], acc[0][r])
		if s.lanes == 16 {
			hi := c.YMM()
			c.VEXTRACTF64X4(operand.U8(1), acc[0][r], hi)
			c.VADDPS(hi, acc[0][r].AsY(), acc[0][r].AsY())
		}
		y[r] = acc[0][r].AsY()
	}
	// Per 128-bit lane: hadd(a, b) = [a0+a1, a2+a3, b0+b1, b2+b3], then
	// hadd of the two pairs gives [Σa, Σb, Σc, Σd] in each half.
	c.VHADDPS(y[1], y[0], y[0])
	c.VHADDPS(y[3], y[2], y[2])
	c.VHADDPS(y[2], y[0], y[0])
	hi := c.XMM()
	c.VEXTRACTF128(operand.U8(1), y[0], hi)
	x := acc[0][0].AsX()
	c.VADDPS(hi, x, x)
	return x
}

// rowsPrefetch is how far ahead the slab kernels prefetch, in bytes: about
// 1 µs of streaming at this machine's ~40 GB/s would be far too much for L1;
// a few KB (the rows of the next block or two) is what hides the latency of
// a page-crossing stream the hardware prefetcher restarts on.
const rowsPrefetch = 4096

// batchRows generates func <Metric>Rows<ISA>(q, data []float32, stride int, out []float32):
// out[j] is the distance of q to the row data[j*stride : j*stride+len(q)],
// four rows per pass exactly as <Metric>4<ISA> (the same instructions, so
// every distance is bit-identical to that kernel's), for len(out)/4 blocks.
func batchRows(c *build.Context, s isa, m metric, t tables) {
	name := m.name() + "Rows" + s.name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q, data []float32, stride int, out []float32)")
	c.Doc(
		fmt.Sprintf("%s is the %s kernel of %sRows: out[j] is the distance of q to the", name, s.name, m.name()),
		"row data[j*stride : j*stride+len(q)] for every j < len(out), which must be a",
		"multiple of 4; data must hold (len(out)-1)*stride+len(q) elements. Rows are",
		fmt.Sprintf("scored four at a time by the instructions of %s4%s, so each distance is", m.name(), s.name),
		fmt.Sprintf("bit-identical to that kernel's, and prefetched %d bytes ahead.", rowsPrefetch),
		"The CPU must have "+map[int]string{8: "AVX2 and FMA", 16: "AVX-512F"}[s.lanes]+" (see Available).",
		"Its pure-Go twin is "+m.name()+"RowsGeneric.",
	)
	q := c.Load(c.Param("q").Base(), c.GP64())
	r0 := c.Load(c.Param("data").Base(), c.GP64())
	dim := c.Load(c.Param("q").Len(), c.GP64())
	stride := c.Load(c.Param("stride"), c.GP64())
	out := c.Load(c.Param("out").Base(), c.GP64())
	cnt := c.Load(c.Param("out").Len(), c.GP64())
	c.SHLQ(operand.U8(2), stride) // bytes per row
	c.SHRQ(operand.U8(2), cnt)    // blocks of four rows
	rows := []reg.Register{r0, c.GP64(), c.GP64(), c.GP64()}
	c.LEAQ(operand.Mem{Base: r0, Index: stride, Scale: 1}, rows[1])
	c.LEAQ(operand.Mem{Base: r0, Index: stride, Scale: 2}, rows[2])
	c.LEAQ(operand.Mem{Base: rows[1], Index: stride, Scale: 2}, rows[3])
	c.SHLQ(operand.U8(2), stride) // bytes per block of four rows
	label := func(l string) string { return name + "_" + l }
	c.TESTQ(cnt, cnt)
	c.JZ(operand.LabelRef(label("done")))
	c.Label(label("next"))
	n := c.GP64()
	c.MOVQ(dim, n)
	x := quad(c, s, m, t, name, q, rows, n, rowsPrefetch)
	c.VMOVUPS(x, operand.Mem{Base: out})
	c.ADDQ(operand.U32(16), out)
	for _, r := range rows {
		c.ADDQ(stride, r)
	}
	c.DECQ(cnt)
	c.JNZ(operand.LabelRef(label("next")))
	c.Label(label("done"))
	c.VZEROUPPER()
	c.RET()
}

// tileQueries is the number of queries the tiled slab kernels score at once:
// 4 rows × 3 queries × 2 accumulators = 24 of the 32 ZMM registers, plus
// three for the queries and one for the row (and one for the difference
// under L2).
const tileQueries = 3

// batchRowsQ3 generates func <Metric>RowsQ3<ISA>(q []float32, qstride, dim int,
// data []float32, stride, n int, out []float32, ostride int): for each of the
// three queries q[j*qstride : j*qstride+dim] and each of the n rows (n a
// multiple of 4) of data, out[j*ostride+i] is what <Metric>Rows<ISA> gives
// for that query and row. Each (query, row) pair gets its own two
// accumulators and the same FMAs in the same order as <Metric>4<ISA>, and
// the same reduction, so the distances are bit-identical; a row loaded once
// serves all three queries, which cuts loads per FMA from 5/4 to 7/12 and
// makes the in-cache kernel FMA-bound. AVX-512 only (AVX2 has 16 registers).
func batchRowsQ3(c *build.Context, s isa, m metric, t tables) {
	name := m.name() + "RowsQ3" + s.name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q []float32, qstride, dim int, data []float32, stride, n int, out []float32, ostride int)")
	c.Doc(
		fmt.Sprintf("%s is the %s kernel of %sRowsQ3: for each query j < 3,", name, s.name, m.name()),
		"q[j*qstride : j*qstride+dim], and each row i < n of data (row i at",
		"data[i*stride:]), out[j*ostride+i] is the distance "+m.name()+"Rows"+s.name+" gives for that",
		"query and row, bit for bit: every pair has its own accumulators and the",
		fmt.Sprintf("instructions of %s4%s, and each row, loaded once, serves the three queries.", m.name(), s.name),
		"n must be a multiple of 4; data must hold (n-1)*stride+dim elements, q",
		"2*qstride+dim and out 2*ostride+n. The CPU must have AVX-512F and AVX-512VL (see Available).",
		"Its pure-Go twin is "+m.name()+"RowsQ3Generic.",
	)
	outLocal := c.AllocLocal(8)
	cntLocal := c.AllocLocal(8)
	qb := c.Load(c.Param("q").Base(), c.GP64())
	qstride := c.Load(c.Param("qstride"), c.GP64())
	c.SHLQ(operand.U8(2), qstride)
	qs := []reg.Register{qb, c.GP64(), c.GP64()}
	c.LEAQ(operand.Mem{Base: qb, Index: qstride, Scale: 1}, qs[1])
	c.LEAQ(operand.Mem{Base: qb, Index: qstride, Scale: 2}, qs[2])
	dim := c.Load(c.Param("dim"), c.GP64())
	r0 := c.Load(c.Param("data").Base(), c.GP64())
	stride := c.Load(c.Param("stride"), c.GP64())
	c.SHLQ(operand.U8(2), stride)
	rows := []reg.Register{r0, c.GP64(), c.GP64(), c.GP64()}
	c.LEAQ(operand.Mem{Base: r0, Index: stride, Scale: 1}, rows[1])
	c.LEAQ(operand.Mem{Base: r0, Index: stride, Scale: 2}, rows[2])
	c.LEAQ(operand.Mem{Base: rows[1], Index: stride, Scale: 2}, rows[3])
	cnt := c.Load(c.Param("n"), c.GP64())
	c.SHRQ(operand.U8(2), cnt)
	c.MOVQ(cnt, cntLocal)
	out := c.Load(c.Param("out").Base(), c.GP64())
	c.MOVQ(out, outLocal)
	label := func(l string) string { return name + "_" + l }
	c.TESTQ(cnt, cnt)
	c.JZ(operand.LabelRef(label("done")))

	c.Label(label("next"))
	n := c.GP64()
	c.MOVQ(dim, n)
	i := c.GP64()
	c.XORQ(i, i)
	const unroll = 2
	var acc [unroll][tileQueries][4]reg.VecVirtual
	for u := range acc {
		for j := range acc[u] {
			for r := range acc[u][j] {
				acc[u][j][r] = s.vec(c)
				zero(c, s, acc[u][j][r])
			}
		}
	}
	width := 4 * s.lanes
	pair := func(rv, qv, a reg.VecVirtual) {
		if m == dot {
			c.VFMADD231PS(rv, qv, a)
		} else {
			d := s.vec(c)
			c.VSUBPS(rv, qv, d)
			c.VFMADD231PS(d, d, a)
		}
	}
	step := func(u, disp int) {
		var qv [tileQueries]reg.VecVirtual
		for j := range qv {
			qv[j] = s.vec(c)
			c.VMOVUPS(operand.Mem{Base: qs[j], Index: i, Scale: 1, Disp: disp}, qv[j])
		}
		for r, row := range rows {
			c.PREFETCHT0(operand.Mem{Base: row, Index: i, Scale: 1, Disp: disp + rowsPrefetch})
			rv := s.vec(c)
			c.VMOVUPS(operand.Mem{Base: row, Index: i, Scale: 1, Disp: disp}, rv)
			for j := range qv {
				pair(rv, qv[j], acc[u][j][r])
			}
		}
	}
	c.Label(label("loop"))
	c.CMPQ(n, operand.U32(s.lanes*unroll))
	c.JL(operand.LabelRef(label("block")))
	for u := 0; u < unroll; u++ {
		step(u, u*width)
	}
	c.ADDQ(operand.U32(width*unroll), i)
	c.SUBQ(operand.U32(s.lanes*unroll), n)
	c.JMP(operand.LabelRef(label("loop")))

	c.Label(label("block"))
	c.CMPQ(n, operand.U32(s.lanes))
	c.JL(operand.LabelRef(label("tail")))
	step(0, 0)
	c.ADDQ(operand.U32(width), i)
	c.SUBQ(operand.U32(s.lanes), n)

	c.Label(label("tail"))
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(label("reduce")))
	mk := tailMask(c, s, t, n)
	var xq [tileQueries]reg.VecVirtual
	for j := range xq {
		xq[j] = maskedLoad(c, s, mk, qs[j], i)
	}
	for r, row := range rows {
		xr := maskedLoad(c, s, mk, row, i)
		for j := range xq {
			pair(xr, xq[j], acc[1][j][r])
		}
	}

	c.Label(label("reduce"))
	ob := c.GP64()
	c.MOVQ(outLocal, ob)
	ostride := c.Load(c.Param("ostride"), c.GP64())
	c.SHLQ(operand.U8(2), ostride)
	for j := 0; j < tileQueries; j++ {
		var y [4]reg.Register
		for r := 0; r < 4; r++ {
			c.VADDPS(acc[1][j][r], acc[0][j][r], acc[0][j][r])
			hi := c.YMM()
			c.VEXTRACTF64X4(operand.U8(1), acc[0][j][r], hi)
			c.VADDPS(hi, acc[0][j][r].AsY(), acc[0][j][r].AsY())
			y[r] = acc[0][j][r].AsY()
		}
		// The registers may be Y16–Y31, which the VEX-only VHADDPS and
		// VEXTRACTF128 of Dot4 cannot name: the same sums come from EVEX
		// shuffles (AVX-512VL) — hadd(a, b) per 128-bit lane is
		// [a0+a1, a2+a3, b0+b1, b2+b3] = shuffle(a, b: evens) + shuffle(a,
		// b: odds), the same additions of the same operands.
		hadd := func(a, b reg.Register) {
			e, o := c.YMM(), c.YMM()
			c.VSHUFPS(operand.U8(0x88), b, a, e)
			c.VSHUFPS(operand.U8(0xdd), b, a, o)
			c.VADDPS(o, e, a)
		}
		hadd(y[0], y[1])
		hadd(y[2], y[3])
		hadd(y[0], y[2])
		hi := c.XMM()
		c.VEXTRACTF32X4(operand.U8(1), y[0], hi)
		x := acc[0][j][0].AsX()
		c.VADDPS(hi, x, x)
		c.VMOVUPS(x, operand.Mem{Base: ob})
		if j < tileQueries-1 {
			c.ADDQ(ostride, ob)
		}
	}
	c.ADDQ(operand.U32(16), outLocal)
	blk := c.Load(c.Param("stride"), c.GP64())
	c.SHLQ(operand.U8(4), blk) // bytes per block of four rows
	for _, r := range rows {
		c.ADDQ(blk, r)
	}
	c.DECQ(cntLocal)
	c.JNZ(operand.LabelRef(label("next")))
	c.Label(label("done"))
	c.VZEROUPPER()
	c.RET()
}
