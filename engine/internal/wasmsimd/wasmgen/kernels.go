package wasmgen

// The kernels. Every exported function takes byte addresses into the Go
// program's linear memory and element counts as i32 (no i64: an i64
// crossing JavaScript becomes a BigInt), and returns an f32, an i32, an f64
// holding an exact integer (below 2^53), or writes its results to memory.
// Each is the SIMD form of a pure-Go twin in engine/internal/f32 or
// engine/internal/bitsx, named in its comment; the twins are the
// specification and the tests of both packages compare every kernel with
// them under js/wasm.

// Export is one exported kernel as the JavaScript loader binds it.
type Export struct {
	Name   string
	Params int // number of i32 parameters
}

type kernels struct {
	fns []*fn
}

func (k *kernels) add(export string, params, results []byte) *fn {
	f := &fn{export: export, params: params, results: results, index: uint32(len(k.fns))}
	k.fns = append(k.fns, f)
	return f
}

func i32s(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = i32
	}
	return b
}

// hsum32 leaves the sum of the four i32 lanes of v on the stack.
func (f *fn) hsum32(v uint32) *fn {
	f.get(v).lane(simdI32x4Extract, 0).get(v).lane(simdI32x4Extract, 1).op(opI32Add)
	f.get(v).lane(simdI32x4Extract, 2).op(opI32Add)
	return f.get(v).lane(simdI32x4Extract, 3).op(opI32Add)
}

// f32Dist builds the one-pair float32 kernel: Σ a[i]·b[i] (l2 false) or
// Σ (a[i]−b[i])² (l2 true) over n elements, the SIMD form of DotGeneric /
// L2SqGeneric. Four v128 accumulators take sixteen elements per step
// (accumulator k the elements 16t+4k…16t+4k+3), a four-wide step adds to
// the first, the last n mod 4 go to a scalar sum; the result is
// ((A0+A1)+(A2+A3)) reduced as (l0+l1)+(l2+l3), plus the scalar sum. Wasm
// SIMD has no fused multiply-add, so every product is rounded before its
// sum, as in Go.
func (k *kernels) f32Dist(l2 bool) *fn {
	f := k.add("", i32s(3), []byte{f32})
	a, b, n := uint32(0), uint32(1), uint32(2)
	acc := [4]uint32{f.local(v128), f.local(v128), f.local(v128), f.local(v128)}
	d := f.local(v128)
	i := f.local(i32)
	s := f.local(f32)
	for _, x := range acc {
		f.vzero().set(x)
	}
	term := func(x uint32, off uint32) {
		f.get(x)
		f.get(a).vmem(simdLoad, off).get(b).vmem(simdLoad, off)
		if l2 {
			f.simd(simdF32x4Sub).tee(d).get(d)
		}
		f.simd(simdF32x4Mul).simd(simdF32x4Add).set(x)
	}
	f.whileLE(i, n, 16, func() {
		for j, x := range acc {
			term(x, uint32(16*j))
		}
		f.get(a).i32c(64).op(opI32Add).set(a)
		f.get(b).i32c(64).op(opI32Add).set(b)
	})
	f.whileLE(i, n, 4, func() {
		term(acc[0], 0)
		f.get(a).i32c(16).op(opI32Add).set(a)
		f.get(b).i32c(16).op(opI32Add).set(b)
	})
	f.whileLT(i, n, 1, func() {
		f.get(s)
		f.get(a).mem(opF32Load, 0).get(b).mem(opF32Load, 0)
		if l2 {
			sd := f.local(f32)
			f.op(opF32Sub).tee(sd).get(sd)
		}
		f.op(opF32Mul).op(opF32Add).set(s)
		f.get(a).i32c(4).op(opI32Add).set(a)
		f.get(b).i32c(4).op(opI32Add).set(b)
	})
	f.get(acc[0]).get(acc[1]).simd(simdF32x4Add)
	f.get(acc[2]).get(acc[3]).simd(simdF32x4Add)
	f.simd(simdF32x4Add).set(d)
	f.get(d).lane(simdF32x4Extract, 0).get(d).lane(simdF32x4Extract, 1).op(opF32Add)
	f.get(d).lane(simdF32x4Extract, 2).get(d).lane(simdF32x4Extract, 3).op(opF32Add)
	f.op(opF32Add).get(s).op(opF32Add)
	return f
}

// andPop builds Σ popcount(a AND b) over n bytes (n a multiple of 8):
// i8x16.popcnt per byte, widened pairwise to i32 lanes, sixteen bytes per
// step and a last eight through v128.load64_zero. Exact, as
// AndPopCountGeneric.
func (k *kernels) andPop() *fn {
	f := k.add("", i32s(3), []byte{i32})
	a, b, n := uint32(0), uint32(1), uint32(2)
	acc := f.local(v128)
	i := f.local(i32)
	f.vzero().set(acc)
	step := func(load uint32) {
		f.get(acc)
		f.get(a).vmem(load, 0).get(b).vmem(load, 0).simd(simdAnd)
		f.simd(simdI8x16Popcnt).simd(simdI16x8ExtAddU).simd(simdI32x4ExtAddU)
		f.simd(simdI32x4Add).set(acc)
	}
	f.whileLE(i, n, 16, func() {
		step(simdLoad)
		f.get(a).i32c(16).op(opI32Add).set(a)
		f.get(b).i32c(16).op(opI32Add).set(b)
	})
	f.whileLE(i, n, 8, func() {
		step(simdLoad64Zero)
		f.get(a).i32c(8).op(opI32Add).set(a)
		f.get(b).i32c(8).op(opI32Add).set(b)
	})
	f.hsum32(acc)
	return f
}

// planes builds DotPlanesGeneric's value as an i64: Σ_p Σ_r 2^(p+r) ·
// AndPopCount(X_p, Y_r) over planes of words·8 bytes, one AND+popcount
// pass per plane pair (exact; the pure-Go twin's word-major order gives
// the same integer).
func (k *kernels) planes(andPop *fn) *fn {
	f := k.add("", i32s(5), []byte{i64})
	x, xb, y, yb, words := uint32(0), uint32(1), uint32(2), uint32(3), uint32(4)
	pb := f.local(i32)
	p := f.local(i32)
	r := f.local(i32)
	total := f.local(i64)
	f.get(words).i32c(3).op(opI32Shl).set(pb)
	f.whileLT(p, xb, 1, func() {
		f.i32c(0).set(r)
		f.whileLT(r, yb, 1, func() {
			f.get(total)
			f.get(x).get(p).get(pb).op(opI32Mul).op(opI32Add)
			f.get(y).get(r).get(pb).op(opI32Mul).op(opI32Add)
			f.get(pb).call(andPop).op(opI64ExtendI32U)
			f.get(p).get(r).op(opI32Add).op(opI64ExtendI32U).op(opI64Shl)
			f.op(opI64Add).set(total)
		})
	})
	f.get(total)
	return f
}

// bytesKernel builds the byte-code kernels (DotBytesGeneric,
// SqDiffBytesGeneric, DotNibblesGeneric, SqDiffNibblesGeneric) over n
// bytes: bytes (or each nibble) widened to i16 lanes, then i32x4.dot_i16x8_s
// of the two codes (dot) or of their difference with itself (squared
// differences); the last n mod 16 bytes in scalar code. The i32 lanes wrap
// as Go's int32 sum does, so the result is the twin's, bit for bit.
func (k *kernels) bytesKernel(export string, sq, nibbles bool) *fn {
	f := k.add(export, i32s(3), []byte{i32})
	a, b, n := uint32(0), uint32(1), uint32(2)
	acc := f.local(v128)
	va, vb := f.local(v128), f.local(v128)
	d := f.local(v128)
	i := f.local(i32)
	s := f.local(i32)
	x, y, t := f.local(i32), f.local(i32), f.local(i32)
	f.vzero().set(acc)
	// pair adds the dot (or squared difference) of the u8 lanes of u and w.
	pair := func(u, w uint32) {
		for _, ext := range []uint32{simdI16x8ExtLowU, simdI16x8ExtHighU} {
			f.get(acc)
			f.get(u).simd(ext).get(w).simd(ext)
			if sq {
				f.simd(simdI16x8Sub).tee(d).get(d)
			}
			f.simd(simdI32x4Dot16).simd(simdI32x4Add).set(acc)
		}
	}
	f.whileLE(i, n, 16, func() {
		f.get(a).vmem(simdLoad, 0).set(va)
		f.get(b).vmem(simdLoad, 0).set(vb)
		if nibbles {
			lo, hi := f.local(v128), f.local(v128)
			mask := func(v uint32) { f.get(v).i32c(15).simd(simdI8x16Splat).simd(simdAnd) }
			mask(va)
			f.set(lo)
			mask(vb)
			f.set(hi)
			pair(lo, hi)
			f.get(va).i32c(4).simd(simdI8x16ShrU).set(va)
			f.get(vb).i32c(4).simd(simdI8x16ShrU).set(vb)
		}
		pair(va, vb)
		f.get(a).i32c(16).op(opI32Add).set(a)
		f.get(b).i32c(16).op(opI32Add).set(b)
	})
	// term adds the scalar term of the values on locals x and y to s.
	term := func() {
		f.get(s).get(x).get(y)
		if sq {
			f.op(opI32Sub).tee(t).get(t)
		}
		f.op(opI32Mul).op(opI32Add).set(s)
	}
	f.whileLT(i, n, 1, func() {
		if nibbles {
			f.get(a).mem(opI32Load8U, 0).i32c(15).op(opI32And).set(x)
			f.get(b).mem(opI32Load8U, 0).i32c(15).op(opI32And).set(y)
			term()
			f.get(a).mem(opI32Load8U, 0).i32c(4).op(opI32ShrU).set(x)
			f.get(b).mem(opI32Load8U, 0).i32c(4).op(opI32ShrU).set(y)
			term()
		} else {
			f.get(a).mem(opI32Load8U, 0).set(x)
			f.get(b).mem(opI32Load8U, 0).set(y)
			term()
		}
		f.get(a).i32c(1).op(opI32Add).set(a)
		f.get(b).i32c(1).op(opI32Add).set(b)
	})
	f.hsum32(acc).get(s).op(opI32Add)
	return f
}

// build assembles every kernel and returns the module's bytes and its
// exports in order.
func build() ([]byte, []Export) {
	k := &kernels{}
	dotv, l2v := k.f32Dist(false), k.f32Dist(true)
	andPop := k.andPop()
	planes := k.planes(andPop)

	for _, m := range []struct {
		name string
		dist *fn
	}{{"dot", dotv}, {"l2sq", l2v}} {
		// NAME(a, b, n) → f32: one pair (Dot / L2Sq).
		f := k.add(m.name, i32s(3), []byte{f32})
		f.get(0).get(1).get(2).call(m.dist)

		// NAME_rows(q, n, data, strideBytes, rows, out): out[j] = NAME(q,
		// row j) for j < rows, row j at data + j·strideBytes (DotRows /
		// L2SqRows, any number of rows).
		f = k.add(m.name+"_rows", i32s(6), nil)
		q, n, data, stride, rows, out := uint32(0), uint32(1), uint32(2), uint32(3), uint32(4), uint32(5)
		j := f.local(i32)
		f.whileLT(j, rows, 1, func() {
			f.get(out).get(q).get(data).get(n).call(m.dist).mem(opF32Store, 0)
			f.get(data).get(stride).op(opI32Add).set(data)
			f.get(out).i32c(4).op(opI32Add).set(out)
		})

		// NAME_ids(q, n, data, strideBytes, ids, count, out): out[j] =
		// NAME(q, row ids[j]) for j < count, ids u32 (the beam search's
		// batch: one expanded node's unvisited neighbours).
		f = k.add(m.name+"_ids", i32s(7), nil)
		q, n, data, stride = 0, 1, 2, 3
		ids, count, out := uint32(4), uint32(5), uint32(6)
		j = f.local(i32)
		f.whileLT(j, count, 1, func() {
			f.get(out).get(q)
			f.get(data).get(ids).mem(opI32Load, 0).get(stride).op(opI32Mul).op(opI32Add)
			f.get(n).call(m.dist).mem(opF32Store, 0)
			f.get(ids).i32c(4).op(opI32Add).set(ids)
			f.get(out).i32c(4).op(opI32Add).set(out)
		})

		// NAME4(q, n, a, b, c, d, out): out[0…3] = NAME(q, a), …, NAME(q, d)
		// (Dot4 / L2Sq4).
		f = k.add(m.name+"4", i32s(7), nil)
		for r := uint32(0); r < 4; r++ {
			f.get(6).get(0).get(2+r).get(1).call(m.dist).mem(opF32Store, 4*r)
		}
	}

	k.bytesKernel("dot_bytes", false, false)
	k.bytesKernel("sqdiff_bytes", true, false)
	k.bytesKernel("dot_nibbles", false, true)
	k.bytesKernel("sqdiff_nibbles", true, true)

	// and_popcount(a, b, nbytes) → i32 (AndPopCount).
	f := k.add("and_popcount", i32s(3), []byte{i32})
	f.get(0).get(1).get(2).call(andPop)

	// dot_planes(x, xBits, y, yBits, words) → f64, an exact integer
	// (DotPlanes, Dot1x4 as dot_planes(d, 1, q, 4, words)).
	f = k.add("dot_planes", i32s(5), []byte{f64})
	f.get(0).get(1).get(2).get(3).get(4).call(planes).op(opF64ConvertI64S)

	// dot_q4_batch(dst, codes, strideBytes, xBits, q, words, n): the i64
	// dst[j] = DotPlanes(codes + j·stride, xBits, q, 4, words) for j < n
	// (DotQ4Batch), written to memory, no BigInt crossing.
	f = k.add("dot_q4_batch", i32s(7), nil)
	dst, codes, stride, xb, q, words, n := uint32(0), uint32(1), uint32(2), uint32(3), uint32(4), uint32(5), uint32(6)
	j := f.local(i32)
	f.whileLT(j, n, 1, func() {
		f.get(dst).get(codes).get(xb).get(q).i32c(4).get(words).call(planes).mem(opI64Store, 0)
		f.get(dst).i32c(8).op(opI32Add).set(dst)
		f.get(codes).get(stride).op(opI32Add).set(codes)
	})

	var exports []Export
	for _, f := range k.fns {
		if f.export != "" {
			exports = append(exports, Export{Name: f.export, Params: len(f.params)})
		}
	}
	return module(k.fns), exports
}
