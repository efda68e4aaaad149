package main

// The bitsx generator: exact integer kernels on quantized codes for the
// engine/internal/bitsx package.
//
//   - DotBytes / SqDiffBytes (int7/int8 codes, one unsigned byte per
//     component): every byte is zero-extended to a 16-bit word (VPMOVZXBW),
//     differences are taken on words (|a−b| ≤ 255 fits), and VPMADDWD
//     multiplies word pairs and adds adjacent products into 32-bit lanes
//     (≤ 2·255² each), so the result is exact for 8-bit values too. This
//     is the layout of e.g. simsimd's u8 kernels; the faster VPMADDUBSW
//     (unsigned × signed bytes with a saturating 16-bit pair sum) would
//     be wrong for 8-bit values and is not used on bytes.
//   - DotNibbles / SqDiffNibbles (int4 codes, two per byte): the low
//     nibbles are isolated with VPAND 0x0f, the high ones with VPSRLW 4
//     and VPAND; both operands are then ≤ 15, so VPMADDUBSW is exact
//     (pair sums ≤ 2·15² = 450, far from int16 saturation), and for the
//     squared difference |x−y| ≤ 15 comes from VPSUBB and VPABSB. A
//     VPMADDWD by ones widens the 16-bit sums into 32-bit accumulators.
//   - AndPopCount / Dot1x4 / DotPlanes (bit-planes, the RaBitQ/BBQ
//     kernel Σ 2^(p+r)·popcount(X_p AND Y_r)): AVX-512 VPANDQ and
//     VPOPCNTQ (AVX512_VPOPCNTDQ) on eight 64-bit words per register,
//     64-bit lane accumulators, the plane weights applied by shifts once
//     at the end (Dot1x4) or once per plane pair (DotPlanes). Without
//     VPOPCNTDQ: AVX2 with the VPSHUFB nibble-table popcount of Muła, Kurz
//     and Lemire (2018), the four 1×4 plane counts weighted 1, 2, 4, 8 in
//     bytes before one VPSADBW; and scalar POPCNT kernels, unrolled by four.
//
// AVX2 kernels process 16 (bytes) or 32 (nibbles) bytes per register and
// finish the last few bytes with a scalar loop; AVX-512 kernels finish with
// one zeroing opmask load (VMOVDQU8/VMOVDQU64 {z}), whose masked-off
// elements are neither read nor faulted on. No kernel reads past len(a) (or
// the planes' words·8 bytes).

import (
	"fmt"
	"math/bits"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

func init() {
	register(&generator{
		name:       "bitsx",
		pkg:        "bitsx",
		asm:        "codes_amd64.s",
		stubs:      "stubs_amd64.go",
		constraint: "!purego",
		build:      genBitsx,
	})
}

// codeISA is one vector width of the byte and nibble kernels.
type codeISA struct {
	name  string // AVX2 or AVX512
	bytes int    // bytes per vector register
	needs string // CPU features, for the doc comments
}

var (
	codeAVX2   = codeISA{name: "AVX2", bytes: 32, needs: "AVX2"}
	codeAVX512 = codeISA{name: "AVX512", bytes: 64, needs: "AVX-512F, BW and VL"}
)

func (s codeISA) vec(c *build.Context) reg.VecVirtual {
	if s.bytes == 64 {
		return c.ZMM()
	}
	return c.YMM()
}

// vzero clears v (VPXORD for ZMM, which VEX VPXOR cannot encode).
func (s codeISA) vzero(c *build.Context, v reg.Register) {
	if s.bytes == 64 {
		c.VPXORD(v, v, v)
	} else {
		c.VPXOR(v, v, v)
	}
}

// codeKind names the four byte/nibble kernels.
type codeKind struct {
	name   string
	nibble bool
	sq     bool
	loop   []string // the reference loop of the doc comment
}

var codeKinds = []codeKind{
	{name: "DotBytes", loop: []string{
		"\tvar s int32",
		"\tfor i := range a {",
		"\t\ts += int32(a[i]) * int32(b[i])",
		"\t}",
	}},
	{name: "SqDiffBytes", sq: true, loop: []string{
		"\tvar s int32",
		"\tfor i := range a {",
		"\t\td := int32(a[i]) - int32(b[i])",
		"\t\ts += d * d",
		"\t}",
	}},
	{name: "DotNibbles", nibble: true, loop: []string{
		"\tvar s int32",
		"\tfor i := range a {",
		"\t\ts += int32(a[i]&15)*int32(b[i]&15) + int32(a[i]>>4)*int32(b[i]>>4)",
		"\t}",
	}},
	{name: "SqDiffNibbles", nibble: true, sq: true, loop: []string{
		"\tvar s int32",
		"\tfor i := range a {",
		"\t\td0, d1 := int32(a[i]&15)-int32(b[i]&15), int32(a[i]>>4)-int32(b[i]>>4)",
		"\t\ts += d0*d0 + d1*d1",
		"\t}",
	}},
}

// codeTables are the constants of the nibble kernels, 64 bytes each so that
// the AVX2 kernels load their lower half.
type codeTables struct {
	low  operand.Mem // 64 × 0x0f
	ones operand.Mem // 32 × int16(1)
	lut  operand.Mem // popcount of 0…15, twice (32 bytes)
}

func genBitsx(c *build.Context) {
	var t codeTables
	t.low = c.StaticGlobal("nibblemask")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 64; i++ {
		c.AppendDatum(operand.U8(0x0f))
	}
	t.ones = c.StaticGlobal("wordones")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 32; i++ {
		c.AppendDatum(operand.U16(1))
	}
	t.lut = c.StaticGlobal("nibblepop")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 32; i++ {
		c.AppendDatum(operand.U8(bits.OnesCount8(uint8(i & 15))))
	}
	for _, s := range []codeISA{codeAVX2, codeAVX512} {
		for _, k := range codeKinds {
			codeKernel(c, s, k, t)
		}
	}
	andPopCount512(c)
	dot1x4512(c)
	dotPlanes512(c)
	dotQ4Batch512(c)
	andPopCountScalar(c)
	dot1x4Scalar(c)
	popAVX2(c, t.lut, t.low)
}

// lowMask sets k to the low n bits (1 ≤ n ≤ 63) of a 64-bit opmask; n is
// clobbered.
func lowMask(c *build.Context, n reg.Register) reg.Register {
	m := c.GP64()
	c.MOVQ(n, reg.RCX)
	c.MOVQ(operand.U32(1), m)
	c.SHLQ(reg.CL, m)
	c.DECQ(m)
	k := c.K()
	c.KMOVQ(m, k)
	return k
}

// hsum32 reduces the 32-bit lanes of v (YMM or ZMM) into a new GP32.
func hsum32(c *build.Context, v reg.VecVirtual, zmm bool) reg.GPVirtual {
	y := v.AsY()
	if zmm {
		hi := c.YMM()
		c.VEXTRACTI64X4(operand.U8(1), v, hi)
		c.VPADDD(hi, y, y)
	}
	x := v.AsX()
	hi := c.XMM()
	c.VEXTRACTI128(operand.U8(1), y, hi)
	c.VPADDD(hi, x, x)
	c.VPSHUFD(operand.U8(0x4e), x, hi)
	c.VPADDD(hi, x, x)
	c.VPSHUFD(operand.U8(0xb1), x, hi)
	c.VPADDD(hi, x, x)
	r := c.GP32()
	c.VMOVD(x, r)
	return r
}

// hsum64 reduces the 64-bit lanes of the ZMM v into a new GP64.
func hsum64(c *build.Context, v reg.VecVirtual) reg.GPVirtual {
	y := v.AsY()
	hy := c.YMM()
	c.VEXTRACTI64X4(operand.U8(1), v, hy)
	c.VPADDQ(hy, y, y)
	x := v.AsX()
	hx := c.XMM()
	c.VEXTRACTI128(operand.U8(1), y, hx)
	c.VPADDQ(hx, x, x)
	c.VPSHUFD(operand.U8(0x4e), x, hx)
	c.VPADDQ(hx, x, x)
	r := c.GP64()
	c.VMOVQ(x, r)
	return r
}

// codeKernel generates func <Kind><ISA>(a, b []byte) int32 over len(a).
func codeKernel(c *build.Context, s codeISA, k codeKind, t codeTables) {
	name := k.name + s.name
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(a, b []byte) int32")
	doc := []string{
		fmt.Sprintf("%s is the %s kernel of %s; len(b) must be at least len(a) and", name, s.name, k.name),
		"no byte past len(a) is read. The CPU must have " + s.needs + " (see Available).",
		"Its result equals, exactly, that of the pure-Go loop (" + k.name + "Generic)",
		"",
	}
	doc = append(doc, k.loop...)
	doc = append(doc, "\treturn s")
	c.Doc(doc...)

	a := c.Load(c.Param("a").Base(), c.GP64())
	b := c.Load(c.Param("b").Base(), c.GP64())
	n := c.Load(c.Param("a").Len(), c.GP64())
	i := c.GP64()
	c.XORQ(i, i)
	lbl := func(l string) string { return name + "_" + l }
	zmm := s.bytes == 64

	acc := []reg.VecVirtual{s.vec(c), s.vec(c)}
	for _, v := range acc {
		s.vzero(c, v)
	}
	var low, ones reg.VecVirtual
	if k.nibble {
		low, ones = s.vec(c), s.vec(c)
		if zmm {
			c.VMOVDQU64(t.low, low)
			c.VMOVDQU64(t.ones, ones)
		} else {
			c.VMOVDQU(t.low, low)
			c.VMOVDQU(t.ones, ones)
		}
	}

	// in is how many input bytes one step consumes: a register of bytes for
	// nibbles, half a register (widened to words) for bytes.
	in := s.bytes
	if !k.nibble {
		in = s.bytes / 2
	}

	// bytesStep adds the contribution of the words wa, wb (zero-extended
	// bytes of a and b) into dst.
	bytesStep := func(wa, wb reg.VecVirtual, dst reg.VecVirtual) {
		if k.sq {
			c.VPSUBW(wb, wa, wa)
			c.VPMADDWD(wa, wa, wa)
		} else {
			c.VPMADDWD(wb, wa, wa)
		}
		c.VPADDD(wa, dst, dst)
	}
	// nibbleStep returns the 32-bit lane sums of the contribution of the
	// packed bytes va and vb (clobbered); x128 runs it on XMM registers (the
	// AVX2 16-byte step), whose VEX writes leave the upper lanes zero.
	nibbleStep := func(va, vb reg.VecVirtual, x128 bool) reg.VecVirtual {
		lm, om := reg.Register(low), reg.Register(ones)
		v := func() reg.VecVirtual { return s.vec(c) }
		if x128 {
			lm, om = low.AsX(), ones.AsX()
			v = func() reg.VecVirtual { return c.XMM() }
		}
		and := func(x, y, z reg.Register) {
			if zmm {
				c.VPANDD(x, y, z)
			} else {
				c.VPAND(x, y, z)
			}
		}
		ha, hb := v(), v()
		c.VPSRLW(operand.U8(4), va, ha)
		c.VPSRLW(operand.U8(4), vb, hb)
		and(lm, va, va)
		and(lm, vb, vb)
		and(lm, ha, ha)
		and(lm, hb, hb)
		if k.sq {
			c.VPSUBB(vb, va, va)
			c.VPABSB(va, va)
			c.VPSUBB(hb, ha, ha)
			c.VPABSB(ha, ha)
			c.VPMADDUBSW(va, va, va)
			c.VPMADDUBSW(ha, ha, ha)
		} else {
			c.VPMADDUBSW(vb, va, va)
			c.VPMADDUBSW(hb, ha, ha)
		}
		c.VPADDW(ha, va, va)
		c.VPMADDWD(om, va, va)
		return va
	}
	full := func(disp int, dst reg.VecVirtual) {
		if k.nibble {
			va, vb := s.vec(c), s.vec(c)
			if zmm {
				c.VMOVDQU64(operand.Mem{Base: a, Index: i, Scale: 1, Disp: disp}, va)
				c.VMOVDQU64(operand.Mem{Base: b, Index: i, Scale: 1, Disp: disp}, vb)
			} else {
				c.VMOVDQU(operand.Mem{Base: a, Index: i, Scale: 1, Disp: disp}, va)
				c.VMOVDQU(operand.Mem{Base: b, Index: i, Scale: 1, Disp: disp}, vb)
			}
			c.VPADDD(nibbleStep(va, vb, false), dst, dst)
			return
		}
		wa, wb := s.vec(c), s.vec(c)
		c.VPMOVZXBW(operand.Mem{Base: a, Index: i, Scale: 1, Disp: disp}, wa)
		c.VPMOVZXBW(operand.Mem{Base: b, Index: i, Scale: 1, Disp: disp}, wb)
		bytesStep(wa, wb, dst)
	}

	// Main loop: two steps per iteration into two accumulators.
	c.CMPQ(n, operand.U32(2*in))
	c.JL(operand.LabelRef(lbl("one")))
	c.Label(lbl("loop"))
	full(0, acc[0])
	full(in, acc[1])
	c.ADDQ(operand.U32(2*in), i)
	c.SUBQ(operand.U32(2*in), n)
	c.CMPQ(n, operand.U32(2*in))
	c.JGE(operand.LabelRef(lbl("loop")))

	c.Label(lbl("one"))
	c.CMPQ(n, operand.U32(in))
	c.JL(operand.LabelRef(lbl("tail")))
	full(0, acc[0])
	c.ADDQ(operand.U32(in), i)
	c.SUBQ(operand.U32(in), n)

	c.Label(lbl("tail"))
	if zmm {
		// 1…in-1 bytes left: one zeroing masked load. Zero bytes add
		// nothing to either a dot product or a squared difference.
		c.TESTQ(n, n)
		c.JZ(operand.LabelRef(lbl("reduce")))
		km := lowMask(c, n)
		if k.nibble {
			va, vb := c.ZMM(), c.ZMM()
			c.VMOVDQU8_Z(operand.Mem{Base: a, Index: i, Scale: 1}, km, va)
			c.VMOVDQU8_Z(operand.Mem{Base: b, Index: i, Scale: 1}, km, vb)
			c.VPADDD(nibbleStep(va, vb, false), acc[1], acc[1])
		} else {
			ya, yb := c.YMM(), c.YMM()
			c.VMOVDQU8_Z(operand.Mem{Base: a, Index: i, Scale: 1}, km, ya)
			c.VMOVDQU8_Z(operand.Mem{Base: b, Index: i, Scale: 1}, km, yb)
			wa, wb := c.ZMM(), c.ZMM()
			c.VPMOVZXBW(ya, wa)
			c.VPMOVZXBW(yb, wb)
			bytesStep(wa, wb, acc[1])
		}
		c.Label(lbl("reduce"))
		c.VPADDD(acc[1], acc[0], acc[0])
		r := hsum32(c, acc[0], true)
		c.VZEROUPPER()
		c.Store(r, c.ReturnIndex(0))
		c.RET()
		return
	}

	// AVX2: one half-width step (XMM), then a scalar loop of < in/2 bytes.
	half := in / 2
	c.CMPQ(n, operand.U32(half))
	c.JL(operand.LabelRef(lbl("scalar")))
	if k.nibble {
		xa, xb := c.XMM(), c.XMM()
		c.VMOVDQU(operand.Mem{Base: a, Index: i, Scale: 1}, xa)
		c.VMOVDQU(operand.Mem{Base: b, Index: i, Scale: 1}, xb)
		r := nibbleStep(xa, xb, true)
		c.VPADDD(r.AsY(), acc[1], acc[1])
	} else {
		xa, xb := c.XMM(), c.XMM()
		c.VPMOVZXBW(operand.Mem{Base: a, Index: i, Scale: 1}, xa)
		c.VPMOVZXBW(operand.Mem{Base: b, Index: i, Scale: 1}, xb)
		if k.sq {
			c.VPSUBW(xb, xa, xa)
			c.VPMADDWD(xa, xa, xa)
		} else {
			c.VPMADDWD(xb, xa, xa)
		}
		// A VEX write to the XMM half of acc[1] would zero its upper
		// half: add the (upper-zero) YMM of the step instead.
		c.VPADDD(xa.AsY(), acc[1], acc[1])
	}
	c.ADDQ(operand.U32(half), i)
	c.SUBQ(operand.U32(half), n)

	c.Label(lbl("scalar"))
	s32 := c.GP32()
	c.XORL(s32, s32)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(lbl("reduce")))
	c.Label(lbl("sloop"))
	xa, xb := c.GP32(), c.GP32()
	c.MOVBLZX(operand.Mem{Base: a, Index: i, Scale: 1}, xa)
	c.MOVBLZX(operand.Mem{Base: b, Index: i, Scale: 1}, xb)
	term := func(x, y reg.GPVirtual) {
		if k.sq {
			c.SUBL(y, x)
			c.IMULL(x, x)
		} else {
			c.IMULL(y, x)
		}
		c.ADDL(x, s32)
	}
	if k.nibble {
		la, lb := c.GP32(), c.GP32()
		c.MOVL(xa, la)
		c.MOVL(xb, lb)
		c.ANDL(operand.U32(15), la)
		c.ANDL(operand.U32(15), lb)
		term(la, lb)
		c.SHRL(operand.U8(4), xa)
		c.SHRL(operand.U8(4), xb)
	}
	term(xa, xb)
	c.INCQ(i)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(lbl("sloop")))

	c.Label(lbl("reduce"))
	c.VPADDD(acc[1], acc[0], acc[0])
	r := hsum32(c, acc[0], false)
	c.ADDL(s32, r)
	c.VZEROUPPER()
	c.Store(r, c.ReturnIndex(0))
	c.RET()
}

// popLoop emits a loop adding popcount(x[i:] AND y[i:]) for the n bytes
// (a multiple of 8) at x and y into the 64-bit lanes of acc, two registers
// per iteration, then one, then a zeroing masked load of the last 1…7 words.
// n and i are clobbered; i must start at 0.
func popLoop(c *build.Context, prefix string, x, y reg.Register, n, i reg.Register, acc reg.VecVirtual) {
	lbl := func(l string) string { return prefix + "_" + l }
	step := func(disp int, dst reg.VecVirtual) {
		v := c.ZMM()
		c.VMOVDQU64(operand.Mem{Base: x, Index: i, Scale: 1, Disp: disp}, v)
		c.VPANDQ(operand.Mem{Base: y, Index: i, Scale: 1, Disp: disp}, v, v)
		c.VPOPCNTQ(v, v)
		c.VPADDQ(v, dst, dst)
	}
	acc2 := c.ZMM()
	c.VPXORQ(acc2, acc2, acc2)
	c.CMPQ(n, operand.U32(128))
	c.JL(operand.LabelRef(lbl("one")))
	c.Label(lbl("loop"))
	step(0, acc)
	step(64, acc2)
	c.ADDQ(operand.U32(128), i)
	c.SUBQ(operand.U32(128), n)
	c.CMPQ(n, operand.U32(128))
	c.JGE(operand.LabelRef(lbl("loop")))
	c.Label(lbl("one"))
	c.CMPQ(n, operand.U32(64))
	c.JL(operand.LabelRef(lbl("tail")))
	step(0, acc)
	c.ADDQ(operand.U32(64), i)
	c.SUBQ(operand.U32(64), n)
	c.Label(lbl("tail"))
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef(lbl("done")))
	km := lowMask(c, n)
	vx, vy := c.ZMM(), c.ZMM()
	c.VMOVDQU64_Z(operand.Mem{Base: x, Index: i, Scale: 1}, km, vx)
	c.VMOVDQU64_Z(operand.Mem{Base: y, Index: i, Scale: 1}, km, vy)
	c.VPANDQ(vy, vx, vx)
	c.VPOPCNTQ(vx, vx)
	c.VPADDQ(vx, acc2, acc2)
	c.Label(lbl("done"))
	c.VPADDQ(acc2, acc, acc)
}

const popNeeds = "AVX-512F, VL and VPOPCNTDQ"

// andPopCount512 generates AndPopCountAVX512(a, b []byte) int.
func andPopCount512(c *build.Context) {
	c.Function("AndPopCountAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(a, b []byte) int")
	c.Doc(
		"AndPopCountAVX512 is the AVX-512 kernel of AndPopCount over the len(a)/8",
		"64-bit words of a and b; len(b) must be at least len(a) and no byte past",
		"the last whole word of a is read. The CPU must have "+popNeeds+" (see",
		"Available). Its result equals that of the pure-Go loop (AndPopCountGeneric)",
		"",
		"\tn := 0",
		"\tfor i := 0; i+8 <= len(a); i += 8 {",
		"\t\tn += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) & binary.LittleEndian.Uint64(b[i:]))",
		"\t}",
		"\treturn n",
	)
	a := c.Load(c.Param("a").Base(), c.GP64())
	b := c.Load(c.Param("b").Base(), c.GP64())
	n := c.Load(c.Param("a").Len(), c.GP64())
	c.ANDQ(operand.I32(-8), n)
	i := c.GP64()
	c.XORQ(i, i)
	acc := c.ZMM()
	c.VPXORQ(acc, acc, acc)
	popLoop(c, "AndPopCountAVX512", a, b, n, i, acc)
	r := hsum64(c, acc)
	c.VZEROUPPER()
	c.Store(r, c.ReturnIndex(0))
	c.RET()
}

// dot1x4512 generates Dot1x4AVX512(q, d []byte, words int) int64: one load of
// d per block of eight words, four popcounts against the query planes.
func dot1x4512(c *build.Context) {
	c.Function("Dot1x4AVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q, d []byte, words int) int64")
	c.Doc(
		"Dot1x4AVX512 is the AVX-512 kernel of Dot1x4: a 1-bit document d (words",
		"64-bit words) against a 4-bit query q stored as four planes of words words",
		"each. It reads exactly words·8 bytes of d and 4·words·8 of q. The CPU must",
		"have "+popNeeds+" (see Available). Its result equals that of the pure-Go",
		"loop (Dot1x4Generic), with pb = words·8 and Qr = q[r·pb:],",
		"",
		"\tvar c [4]int",
		"\tfor i := 0; i+8 <= pb; i += 8 {",
		"\t\tw := binary.LittleEndian.Uint64(d[i:])",
		"\t\tfor r := range c {",
		"\t\t\tc[r] += bits.OnesCount64(w & binary.LittleEndian.Uint64(Qr[i:]))",
		"\t\t}",
		"\t}",
		"\treturn int64(c[0]) + int64(c[1])<<1 + int64(c[2])<<2 + int64(c[3])<<3",
	)
	q0 := c.Load(c.Param("q").Base(), c.GP64())
	d := c.Load(c.Param("d").Base(), c.GP64())
	n := c.Load(c.Param("words"), c.GP64())
	c.SHLQ(operand.U8(3), n)
	q := []reg.Register{q0, c.GP64(), c.GP64(), c.GP64()}
	for r := 1; r < 4; r++ {
		c.LEAQ(operand.Mem{Base: q[r-1], Index: n, Scale: 1}, q[r])
	}
	i := c.GP64()
	c.XORQ(i, i)
	acc := []reg.VecVirtual{c.ZMM(), c.ZMM(), c.ZMM(), c.ZMM()}
	for _, v := range acc {
		c.VPXORQ(v, v, v)
	}
	add := func(w reg.VecVirtual, qs []operand.Op) {
		for r, qm := range qs {
			v := c.ZMM()
			c.VPANDQ(qm, w, v)
			c.VPOPCNTQ(v, v)
			c.VPADDQ(v, acc[r], acc[r])
		}
	}
	c.CMPQ(n, operand.U32(64))
	c.JL(operand.LabelRef("Dot1x4AVX512_tail"))
	c.Label("Dot1x4AVX512_loop")
	w := c.ZMM()
	c.VMOVDQU64(operand.Mem{Base: d, Index: i, Scale: 1}, w)
	var qs []operand.Op
	for r := range q {
		qs = append(qs, operand.Mem{Base: q[r], Index: i, Scale: 1})
	}
	add(w, qs)
	c.ADDQ(operand.U32(64), i)
	c.SUBQ(operand.U32(64), n)
	c.CMPQ(n, operand.U32(64))
	c.JGE(operand.LabelRef("Dot1x4AVX512_loop"))

	c.Label("Dot1x4AVX512_tail")
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef("Dot1x4AVX512_reduce"))
	km := lowMask(c, n)
	wt := c.ZMM()
	c.VMOVDQU64_Z(operand.Mem{Base: d, Index: i, Scale: 1}, km, wt)
	qs = qs[:0]
	for r := range q {
		v := c.ZMM()
		c.VMOVDQU64_Z(operand.Mem{Base: q[r], Index: i, Scale: 1}, km, v)
		qs = append(qs, v)
	}
	add(wt, qs)

	c.Label("Dot1x4AVX512_reduce")
	for r := 1; r < 4; r++ {
		c.VPSLLQ(operand.U8(r), acc[r], acc[r])
	}
	c.VPADDQ(acc[1], acc[0], acc[0])
	c.VPADDQ(acc[3], acc[2], acc[2])
	c.VPADDQ(acc[2], acc[0], acc[0])
	r := hsum64(c, acc[0])
	c.VZEROUPPER()
	c.Store(r, c.ReturnIndex(0))
	c.RET()
}

// dotPlanes512 generates DotPlanesAVX512(x []byte, xBits int, y []byte,
// yBits int, words int) int64: one pass of popLoop per plane pair, its
// lanes shifted by p+r into a running vector total.
func dotPlanes512(c *build.Context) {
	c.Function("DotPlanesAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(x []byte, xBits int, y []byte, yBits int, words int) int64")
	c.Doc(
		"DotPlanesAVX512 is the AVX-512 kernel of DotPlanes: ⟨x, y⟩ for an xBits-bit",
		"code x and a yBits-bit code y stored as bit-planes of words 64-bit words",
		"each. It reads exactly xBits·words·8 bytes of x and yBits·words·8 of y.",
		"The CPU must have "+popNeeds+" (see Available). Its result equals that",
		"of the pure-Go loop (DotPlanesGeneric), with pb = words·8,",
		"",
		"\tvar total int64",
		"\tfor p := 0; p < xBits; p++ {",
		"\t\tfor r := 0; r < yBits; r++ {",
		"\t\t\ttotal += int64(AndPopCount(x[p*pb:(p+1)*pb], y[r*pb:(r+1)*pb])) << (p + r)",
		"\t\t}",
		"\t}",
		"\treturn total",
	)
	x := c.Load(c.Param("x").Base(), c.GP64())
	xBits := c.Load(c.Param("xBits"), c.GP64())
	y0 := c.Load(c.Param("y").Base(), c.GP64())
	yBits := c.Load(c.Param("yBits"), c.GP64())
	pb := c.Load(c.Param("words"), c.GP64())
	c.SHLQ(operand.U8(3), pb)
	total := c.ZMM()
	c.VPXORQ(total, total, total)
	p := c.GP64()
	c.XORQ(p, p)

	c.Label("DotPlanesAVX512_xplane")
	c.CMPQ(p, xBits)
	c.JGE(operand.LabelRef("DotPlanesAVX512_reduce"))
	y := c.GP64()
	c.MOVQ(y0, y)
	r := c.GP64()
	c.XORQ(r, r)
	c.Label("DotPlanesAVX512_yplane")
	c.CMPQ(r, yBits)
	c.JGE(operand.LabelRef("DotPlanesAVX512_next"))
	n, i := c.GP64(), c.GP64()
	c.MOVQ(pb, n)
	c.XORQ(i, i)
	acc := c.ZMM()
	c.VPXORQ(acc, acc, acc)
	popLoop(c, "DotPlanesAVX512", x, y, n, i, acc)
	sh := c.GP64()
	c.LEAQ(operand.Mem{Base: p, Index: r, Scale: 1}, sh)
	shx := c.XMM()
	c.VMOVQ(sh, shx)
	c.VPSLLQ(shx, acc, acc)
	c.VPADDQ(acc, total, total)
	c.ADDQ(pb, y)
	c.INCQ(r)
	c.JMP(operand.LabelRef("DotPlanesAVX512_yplane"))

	c.Label("DotPlanesAVX512_next")
	c.ADDQ(pb, x)
	c.INCQ(p)
	c.JMP(operand.LabelRef("DotPlanesAVX512_xplane"))

	c.Label("DotPlanesAVX512_reduce")
	res := hsum64(c, total)
	c.VZEROUPPER()
	c.Store(res, c.ReturnIndex(0))
	c.RET()
}

// scalarPopLoop emits a loop adding popcount(x[i:] AND y[i:]) over the n
// bytes at x and y (n a multiple of 8; n and i clobbered, i starting at 0)
// into cnt, with POPCNTQ on general-purpose registers: four words per
// iteration into four counters, then one word at a time.
func scalarPopLoop(c *build.Context, prefix string, x, y reg.Register, n, i reg.Register, cnt reg.Register) {
	lbl := func(l string) string { return prefix + "_" + l }
	var cs [4]reg.Register
	cs[0] = cnt
	for j := 1; j < 4; j++ {
		cs[j] = c.GP64()
		c.XORQ(cs[j], cs[j])
	}
	word := func(disp int, dst reg.Register) {
		t := c.GP64()
		c.MOVQ(operand.Mem{Base: x, Index: i, Scale: 1, Disp: disp}, t)
		c.ANDQ(operand.Mem{Base: y, Index: i, Scale: 1, Disp: disp}, t)
		c.POPCNTQ(t, t)
		c.ADDQ(t, dst)
	}
	c.CMPQ(n, operand.U32(32))
	c.JL(operand.LabelRef(lbl("one")))
	c.Label(lbl("loop4"))
	for j := 0; j < 4; j++ {
		word(8*j, cs[j])
	}
	c.ADDQ(operand.U32(32), i)
	c.SUBQ(operand.U32(32), n)
	c.CMPQ(n, operand.U32(32))
	c.JGE(operand.LabelRef(lbl("loop4")))
	c.Label(lbl("one"))
	c.CMPQ(n, operand.U32(8))
	c.JL(operand.LabelRef(lbl("done")))
	word(0, cs[0])
	c.ADDQ(operand.U32(8), i)
	c.SUBQ(operand.U32(8), n)
	c.JMP(operand.LabelRef(lbl("one")))
	c.Label(lbl("done"))
	c.ADDQ(cs[1], cs[0])
	c.ADDQ(cs[3], cs[2])
	c.ADDQ(cs[2], cs[0])
}

// andPopCountScalar generates AndPopCountPOPCNT(a, b []byte) int.
func andPopCountScalar(c *build.Context) {
	c.Function("AndPopCountPOPCNT")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(a, b []byte) int")
	c.Doc(
		"AndPopCountPOPCNT is the scalar POPCNT kernel of AndPopCount over the",
		"len(a)/8 64-bit words of a and b; len(b) must be at least len(a) and no",
		"byte past the last whole word of a is read. The CPU must have POPCNT (see",
		"Available). Its result equals that of the pure-Go loop (AndPopCountGeneric)",
		"",
		"\tn := 0",
		"\tfor i := 0; i+8 <= len(a); i += 8 {",
		"\t\tn += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) & binary.LittleEndian.Uint64(b[i:]))",
		"\t}",
		"\treturn n",
	)
	a := c.Load(c.Param("a").Base(), c.GP64())
	b := c.Load(c.Param("b").Base(), c.GP64())
	n := c.Load(c.Param("a").Len(), c.GP64())
	c.ANDQ(operand.I32(-8), n)
	i, cnt := c.GP64(), c.GP64()
	c.XORQ(i, i)
	c.XORQ(cnt, cnt)
	scalarPopLoop(c, "AndPopCountPOPCNT", a, b, n, i, cnt)
	c.Store(cnt, c.ReturnIndex(0))
	c.RET()
}

// dot1x4Scalar generates Dot1x4POPCNT(q, d []byte, words int) int64.
func dot1x4Scalar(c *build.Context) {
	c.Function("Dot1x4POPCNT")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q, d []byte, words int) int64")
	c.Doc(
		"Dot1x4POPCNT is the scalar POPCNT kernel of Dot1x4: a 1-bit document d",
		"(words 64-bit words) against a 4-bit query q stored as four planes of",
		"words words each, one load of each document word for four popcounts.",
		"It reads exactly words·8 bytes of d and 4·words·8 of q. The CPU must",
		"have POPCNT (see Available). Its result equals that of the pure-Go loop",
		"(Dot1x4Generic), with pb = words·8 and Qr = q[r·pb:],",
		"",
		"\tvar c [4]int",
		"\tfor i := 0; i+8 <= pb; i += 8 {",
		"\t\tw := binary.LittleEndian.Uint64(d[i:])",
		"\t\tfor r := range c {",
		"\t\t\tc[r] += bits.OnesCount64(w & binary.LittleEndian.Uint64(Qr[i:]))",
		"\t\t}",
		"\t}",
		"\treturn int64(c[0]) + int64(c[1])<<1 + int64(c[2])<<2 + int64(c[3])<<3",
	)
	q0 := c.Load(c.Param("q").Base(), c.GP64())
	d := c.Load(c.Param("d").Base(), c.GP64())
	n := c.Load(c.Param("words"), c.GP64())
	pb := c.GP64()
	c.MOVQ(n, pb)
	c.SHLQ(operand.U8(3), pb)
	q := []reg.Register{q0, c.GP64(), c.GP64(), c.GP64()}
	for r := 1; r < 4; r++ {
		c.LEAQ(operand.Mem{Base: q[r-1], Index: pb, Scale: 1}, q[r])
	}
	var cs [4]reg.Register
	for r := range cs {
		cs[r] = c.GP64()
		c.XORQ(cs[r], cs[r])
	}
	i := c.GP64()
	c.XORQ(i, i)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("Dot1x4POPCNT_done"))
	c.Label("Dot1x4POPCNT_loop")
	w := c.GP64()
	c.MOVQ(operand.Mem{Base: d, Index: i, Scale: 8}, w)
	for r := range q {
		t := c.GP64()
		c.MOVQ(operand.Mem{Base: q[r], Index: i, Scale: 8}, t)
		c.ANDQ(w, t)
		c.POPCNTQ(t, t)
		c.ADDQ(t, cs[r])
	}
	c.INCQ(i)
	c.CMPQ(i, n)
	c.JL(operand.LabelRef("Dot1x4POPCNT_loop"))
	c.Label("Dot1x4POPCNT_done")
	// c0 + 2·c1 + 4·c2 + 8·c3
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[1], Scale: 2}, cs[0])
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[2], Scale: 4}, cs[0])
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[3], Scale: 8}, cs[0])
	c.Store(cs[0], c.ReturnIndex(0))
	c.RET()
}

// lutPopcount returns the per-byte popcounts (0…8) of v (YMM), with
// VPSHUFB looking up each nibble in a 16-entry table (Muła, Kurz & Lemire,
// "Faster population counts using AVX2 instructions", 2018).
func lutPopcount(c *build.Context, v, low, lut reg.Register) reg.VecVirtual {
	hi := c.YMM()
	c.VPSRLW(operand.U8(4), v, hi)
	c.VPAND(low, v, v)
	c.VPAND(low, hi, hi)
	lo := c.YMM()
	c.VPSHUFB(v, lut, lo)
	c.VPSHUFB(hi, lut, hi)
	c.VPADDB(hi, lo, lo)
	return lo
}

// popAVX2 generates AndPopCountAVX2(a, b []byte) int and Dot1x4AVX2(q, d
// []byte, words int) int64 with the VPSHUFB popcount.
func popAVX2(c *build.Context, lutMem, low operand.Mem) {
	// AndPopCountAVX2
	c.Function("AndPopCountAVX2")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(a, b []byte) int")
	c.Doc(
		"AndPopCountAVX2 is the AVX2 kernel of AndPopCount (nibble-table popcount",
		"with VPSHUFB on 32 bytes, the last 0…3 words with POPCNT) over the len(a)/8",
		"64-bit words of a and b; len(b) must be at least len(a) and no byte past",
		"the last whole word of a is read. The CPU must have AVX2 and POPCNT (see",
		"Available). Its result equals that of the pure-Go loop (AndPopCountGeneric)",
		"",
		"\tn := 0",
		"\tfor i := 0; i+8 <= len(a); i += 8 {",
		"\t\tn += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) & binary.LittleEndian.Uint64(b[i:]))",
		"\t}",
		"\treturn n",
	)
	{
		a := c.Load(c.Param("a").Base(), c.GP64())
		b := c.Load(c.Param("b").Base(), c.GP64())
		n := c.Load(c.Param("a").Len(), c.GP64())
		c.ANDQ(operand.I32(-8), n)
		i := c.GP64()
		c.XORQ(i, i)
		lut, lm, zero, acc := c.YMM(), c.YMM(), c.YMM(), c.YMM()
		c.VMOVDQU(lutMem, lut)
		c.VMOVDQU(low, lm)
		c.VPXOR(zero, zero, zero)
		c.VPXOR(acc, acc, acc)
		c.CMPQ(n, operand.U32(32))
		c.JL(operand.LabelRef("AndPopCountAVX2_rest"))
		c.Label("AndPopCountAVX2_loop")
		v := c.YMM()
		c.VMOVDQU(operand.Mem{Base: a, Index: i, Scale: 1}, v)
		c.VPAND(operand.Mem{Base: b, Index: i, Scale: 1}, v, v)
		p := lutPopcount(c, v, lm, lut)
		c.VPSADBW(zero, p, p)
		c.VPADDQ(p, acc, acc)
		c.ADDQ(operand.U32(32), i)
		c.SUBQ(operand.U32(32), n)
		c.CMPQ(n, operand.U32(32))
		c.JGE(operand.LabelRef("AndPopCountAVX2_loop"))
		c.Label("AndPopCountAVX2_rest")
		cnt := c.GP64()
		c.XORQ(cnt, cnt)
		scalarPopLoop(c, "AndPopCountAVX2", a, b, n, i, cnt)
		r := hsum64y(c, acc)
		c.ADDQ(cnt, r)
		c.VZEROUPPER()
		c.Store(r, c.ReturnIndex(0))
		c.RET()
	}

	c.Function("Dot1x4AVX2")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(q, d []byte, words int) int64")
	c.Doc(
		"Dot1x4AVX2 is the AVX2 kernel of Dot1x4: a 1-bit document d (words 64-bit",
		"words) against a 4-bit query q stored as four planes of words words each.",
		"Per 32 bytes the four byte popcounts (VPSHUFB nibble table) are weighted",
		"1, 2, 4, 8 in bytes (≤ 120) and summed by one VPSADBW; the last 0…3 words",
		"use POPCNT. It reads exactly words·8 bytes of d and 4·words·8 of q. The CPU",
		"must have AVX2 and POPCNT (see Available). Its result equals that of the",
		"pure-Go loop (Dot1x4Generic), with pb = words·8 and Qr = q[r·pb:],",
		"",
		"\tvar c [4]int",
		"\tfor i := 0; i+8 <= pb; i += 8 {",
		"\t\tw := binary.LittleEndian.Uint64(d[i:])",
		"\t\tfor r := range c {",
		"\t\t\tc[r] += bits.OnesCount64(w & binary.LittleEndian.Uint64(Qr[i:]))",
		"\t\t}",
		"\t}",
		"\treturn int64(c[0]) + int64(c[1])<<1 + int64(c[2])<<2 + int64(c[3])<<3",
	)
	q0 := c.Load(c.Param("q").Base(), c.GP64())
	d := c.Load(c.Param("d").Base(), c.GP64())
	n := c.Load(c.Param("words"), c.GP64())
	c.SHLQ(operand.U8(3), n)
	q := []reg.Register{q0, c.GP64(), c.GP64(), c.GP64()}
	for r := 1; r < 4; r++ {
		c.LEAQ(operand.Mem{Base: q[r-1], Index: n, Scale: 1}, q[r])
	}
	i := c.GP64()
	c.XORQ(i, i)
	lut, lm, zero, acc := c.YMM(), c.YMM(), c.YMM(), c.YMM()
	c.VMOVDQU(lutMem, lut)
	c.VMOVDQU(low, lm)
	c.VPXOR(zero, zero, zero)
	c.VPXOR(acc, acc, acc)
	c.CMPQ(n, operand.U32(32))
	c.JL(operand.LabelRef("Dot1x4AVX2_rest"))
	c.Label("Dot1x4AVX2_loop")
	w := c.YMM()
	c.VMOVDQU(operand.Mem{Base: d, Index: i, Scale: 1}, w)
	var cnt [4]reg.VecVirtual
	for r := range q {
		v := c.YMM()
		c.VPAND(operand.Mem{Base: q[r], Index: i, Scale: 1}, w, v)
		cnt[r] = lutPopcount(c, v, lm, lut)
	}
	// Horner: ((c3·2 + c2)·2 + c1)·2 + c0, every byte ≤ 8·15 = 120.
	h := cnt[3]
	for r := 2; r >= 0; r-- {
		c.VPADDB(h, h, h)
		c.VPADDB(cnt[r], h, h)
	}
	c.VPSADBW(zero, h, h)
	c.VPADDQ(h, acc, acc)
	c.ADDQ(operand.U32(32), i)
	c.SUBQ(operand.U32(32), n)
	c.CMPQ(n, operand.U32(32))
	c.JGE(operand.LabelRef("Dot1x4AVX2_loop"))

	c.Label("Dot1x4AVX2_rest")
	var cs [4]reg.Register
	for r := range cs {
		cs[r] = c.GP64()
		c.XORQ(cs[r], cs[r])
	}
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("Dot1x4AVX2_reduce"))
	c.Label("Dot1x4AVX2_sloop")
	wg := c.GP64()
	c.MOVQ(operand.Mem{Base: d, Index: i, Scale: 1}, wg)
	for r := range q {
		t := c.GP64()
		c.MOVQ(operand.Mem{Base: q[r], Index: i, Scale: 1}, t)
		c.ANDQ(wg, t)
		c.POPCNTQ(t, t)
		c.ADDQ(t, cs[r])
	}
	c.ADDQ(operand.U32(8), i)
	c.SUBQ(operand.U32(8), n)
	c.JNZ(operand.LabelRef("Dot1x4AVX2_sloop"))
	c.Label("Dot1x4AVX2_reduce")
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[1], Scale: 2}, cs[0])
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[2], Scale: 4}, cs[0])
	c.LEAQ(operand.Mem{Base: cs[0], Index: cs[3], Scale: 8}, cs[0])
	r := hsum64y(c, acc)
	c.ADDQ(cs[0], r)
	c.VZEROUPPER()
	c.Store(r, c.ReturnIndex(0))
	c.RET()
}

// hsum64y reduces the 64-bit lanes of the YMM v into a new GP64.
func hsum64y(c *build.Context, v reg.VecVirtual) reg.GPVirtual {
	x := v.AsX()
	hx := c.XMM()
	c.VEXTRACTI128(operand.U8(1), v, hx)
	c.VPADDQ(hx, x, x)
	c.VPSHUFD(operand.U8(0x4e), x, hx)
	c.VPADDQ(hx, x, x)
	r := c.GP64()
	c.VMOVQ(x, r)
	return r
}

// dotQ4Batch512 generates DotQ4BatchAVX512(dst []int64, codes []byte,
// stride, xBits int, q []byte, words int): DotPlanes of each of len(dst)
// codes, stride bytes apart, against one 4-bit query, in one call — a
// posting list's codes scored without a call, a kernel selection and a
// reduction setup per code. Planes are taken from the top one down
// (Horner: total = 2·total + Σ_r 2^r·popcount(X_p AND Q_r)). Up to eight
// words (512 dimensions) the query's planes are loaded once into four
// registers and each code plane is one masked load; wider codes go in
// blocks of eight words per plane, the last block loaded through an
// opmask of the words%8 low lanes computed once.
func dotQ4Batch512(c *build.Context) {
	c.Function("DotQ4BatchAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst []int64, codes []byte, stride int, xBits int, q []byte, words int)")
	c.Doc(
		"DotQ4BatchAVX512 is the AVX-512 kernel of DotQ4Batch: for every j <",
		"len(dst), dst[j] = ⟨x_j, q⟩ for the xBits-bit code x_j = codes[j·stride:]",
		"(xBits ≥ 1 planes of words ≥ 1 64-bit words) and the 4-bit query q (four",
		"planes of words words). It reads, of each code, exactly its xBits·words·8",
		"bytes, and 4·words·8 bytes of q. The CPU must have "+popNeeds+" (see",
		"Available). Its result equals that of the pure-Go loop (DotQ4BatchGeneric)",
		"",
		"\tfor j := range dst {",
		"\t\tdst[j] = DotPlanes(codes[j*stride:], xBits, q, 4, words)",
		"\t}",
	)
	dst := c.Load(c.Param("dst").Base(), c.GP64())
	n := c.Load(c.Param("dst").Len(), c.GP64())
	cp := c.Load(c.Param("codes").Base(), c.GP64())
	q := c.Load(c.Param("q").Base(), c.GP64())
	pb := c.Load(c.Param("words"), c.GP64())
	// The tail mask: the low words%8 lanes (none when words%8 == 0).
	tw := c.GP64()
	c.MOVQ(pb, tw)
	c.ANDQ(operand.U32(7), tw)
	m := c.GP64()
	c.MOVQ(tw, reg.RCX)
	c.MOVQ(operand.U32(1), m)
	c.SHLQ(reg.CL, m)
	c.DECQ(m)
	km := c.K()
	c.KMOVQ(m, km)
	c.SHLQ(operand.U8(3), pb) // bytes per plane
	pb3 := c.GP64()
	c.LEAQ(operand.Mem{Base: pb, Index: pb, Scale: 2}, pb3)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("DotQ4BatchAVX512_end"))
	c.CMPQ(pb, operand.U32(64))
	c.JG(operand.LabelRef("DotQ4BatchAVX512_doc"))

	// Up to eight words (512 dimensions): the query's four planes stay in
	// registers for the whole slab, and a code plane is one (masked) load.
	{
		wn := c.GP64()
		c.MOVQ(pb, wn)
		c.SHRQ(operand.U8(3), wn)
		m1 := c.GP64()
		c.MOVQ(wn, reg.RCX)
		c.MOVQ(operand.U32(1), m1)
		c.SHLQ(reg.CL, m1)
		c.DECQ(m1)
		k1 := c.K()
		c.KMOVQ(m1, k1)
		var qv [4]reg.VecVirtual
		for r, mem := range []operand.Mem{
			{Base: q},
			{Base: q, Index: pb, Scale: 1},
			{Base: q, Index: pb, Scale: 2},
			{Base: q, Index: pb3, Scale: 1},
		} {
			qv[r] = c.ZMM()
			c.VMOVDQU64_Z(mem, k1, qv[r])
		}
		c.Label("DotQ4BatchAVX512_sdoc")
		tot := c.ZMM()
		c.VPXORQ(tot, tot, tot)
		spl := c.Load(c.Param("xBits"), c.GP64())
		sx := c.GP64()
		c.MOVQ(spl, sx)
		c.DECQ(sx)
		c.IMULQ(pb, sx)
		c.ADDQ(cp, sx)
		c.Label("DotQ4BatchAVX512_splane")
		c.VPSLLQ(operand.U8(1), tot, tot)
		w := c.ZMM()
		c.VMOVDQU64_Z(operand.Mem{Base: sx}, k1, w)
		for r := 0; r < 4; r++ {
			v := c.ZMM()
			c.VPANDQ(qv[r], w, v)
			c.VPOPCNTQ(v, v)
			if r > 0 {
				c.VPSLLQ(operand.U8(uint8(r)), v, v)
			}
			c.VPADDQ(v, tot, tot)
		}
		c.SUBQ(pb, sx)
		c.DECQ(spl)
		c.JNZ(operand.LabelRef("DotQ4BatchAVX512_splane"))
		sres := hsum64(c, tot)
		c.MOVQ(sres, operand.Mem{Base: dst})
		c.ADDQ(operand.U32(8), dst)
		sstride := c.Load(c.Param("stride"), c.GP64())
		c.ADDQ(sstride, cp)
		c.DECQ(n)
		c.JNZ(operand.LabelRef("DotQ4BatchAVX512_sdoc"))
		c.JMP(operand.LabelRef("DotQ4BatchAVX512_end"))
	}

	c.Label("DotQ4BatchAVX512_doc")
	total := c.ZMM()
	c.VPXORQ(total, total, total)
	// x: the top plane of this code.
	pl := c.Load(c.Param("xBits"), c.GP64())
	x := c.GP64()
	c.MOVQ(pl, x)
	c.DECQ(x)
	c.IMULQ(pb, x)
	c.ADDQ(cp, x)

	c.Label("DotQ4BatchAVX512_plane")
	c.VPSLLQ(operand.U8(1), total, total)
	i, rem := c.GP64(), c.GP64()
	c.XORQ(i, i)
	c.MOVQ(pb, rem)
	block := func(w reg.VecVirtual, qs [4]operand.Op) {
		for r := 0; r < 4; r++ {
			v := c.ZMM()
			c.VPANDQ(qs[r], w, v)
			c.VPOPCNTQ(v, v)
			if r > 0 {
				c.VPSLLQ(operand.U8(uint8(r)), v, v)
			}
			c.VPADDQ(v, total, total)
		}
	}
	c.Label("DotQ4BatchAVX512_block")
	c.CMPQ(rem, operand.U32(64))
	c.JL(operand.LabelRef("DotQ4BatchAVX512_tail"))
	qi := c.GP64()
	c.LEAQ(operand.Mem{Base: q, Index: i, Scale: 1}, qi)
	w := c.ZMM()
	c.VMOVDQU64(operand.Mem{Base: x, Index: i, Scale: 1}, w)
	block(w, [4]operand.Op{
		operand.Mem{Base: qi},
		operand.Mem{Base: qi, Index: pb, Scale: 1},
		operand.Mem{Base: qi, Index: pb, Scale: 2},
		operand.Mem{Base: qi, Index: pb3, Scale: 1},
	})
	c.ADDQ(operand.U32(64), i)
	c.SUBQ(operand.U32(64), rem)
	c.JMP(operand.LabelRef("DotQ4BatchAVX512_block"))

	c.Label("DotQ4BatchAVX512_tail")
	c.TESTQ(rem, rem)
	c.JZ(operand.LabelRef("DotQ4BatchAVX512_planedone"))
	qt := c.GP64()
	c.LEAQ(operand.Mem{Base: q, Index: i, Scale: 1}, qt)
	wt := c.ZMM()
	c.VMOVDQU64_Z(operand.Mem{Base: x, Index: i, Scale: 1}, km, wt)
	var qs [4]operand.Op
	for r, mem := range []operand.Mem{
		{Base: qt},
		{Base: qt, Index: pb, Scale: 1},
		{Base: qt, Index: pb, Scale: 2},
		{Base: qt, Index: pb3, Scale: 1},
	} {
		v := c.ZMM()
		c.VMOVDQU64_Z(mem, km, v)
		qs[r] = v
	}
	block(wt, qs)

	c.Label("DotQ4BatchAVX512_planedone")
	c.SUBQ(pb, x)
	c.DECQ(pl)
	c.JNZ(operand.LabelRef("DotQ4BatchAVX512_plane"))

	res := hsum64(c, total)
	c.MOVQ(res, operand.Mem{Base: dst})
	c.ADDQ(operand.U32(8), dst)
	stride := c.Load(c.Param("stride"), c.GP64())
	c.ADDQ(stride, cp)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("DotQ4BatchAVX512_doc"))

	c.Label("DotQ4BatchAVX512_end")
	c.VZEROUPPER()
	c.RET()
}
