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
	Name    string
	Params  int    // number of i32 parameters
	Results []byte // value types of the results (none, or one)
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

// f32Block builds the float32 kernel of a query against rows rows at once:
// params (q, n, row_0 … row_{rows-1}) and, unless ret, out, where it
// stores the rows' values as f32 (ret: the one row's value is returned).
// For each row it computes Σ q[i]·x[i] (l2 false) or Σ (q[i]−x[i])² (l2
// true), the SIMD form of DotGeneric / L2SqGeneric: two v128 accumulators
// per row take eight elements per step (A the elements 8t…8t+3, B
// 8t+4…8t+7), a four-wide step adds to A, the last n mod 4 go to a scalar
// sum; the value is (A+B) reduced as (l0+l1)+(l2+l3), plus the scalar sum.
// Each q block is loaded once for all the rows (the four-row form is what
// the slab, id-list and Dot4 kernels run), and a row gets the same
// operations in the same order whatever the number of rows beside it, so
// the one-row and four-row kernels agree bit for bit. Wasm SIMD has no
// fused multiply-add: every product is rounded before its sum, as in Go.
func (k *kernels) f32Block(l2 bool, rows int, ret bool) *fn {
	params := 2 + rows
	if !ret {
		params++
	}
	var results []byte
	if ret {
		results = []byte{f32}
	}
	f := k.add("", i32s(params), results)
	q, n := uint32(0), uint32(1)
	row := func(r int) uint32 { return uint32(2 + r) }
	out := uint32(2 + rows)
	A, B, S := make([]uint32, rows), make([]uint32, rows), make([]uint32, rows)
	for r := range rows {
		A[r], B[r], S[r] = f.local(v128), f.local(v128), f.local(f32)
		f.vzero().set(A[r])
		f.vzero().set(B[r])
	}
	qa, qb, d := f.local(v128), f.local(v128), f.local(v128)
	qs, ds := f.local(f32), f.local(f32)
	i := f.local(i32)
	// term adds the term of the query block on local qv and row r's block
	// at offset off to accumulator acc.
	term := func(acc, qv uint32, r int, off uint32) {
		f.get(acc).get(qv).get(row(r)).vmem(simdLoad, off)
		if l2 {
			f.simd(simdF32x4Sub).tee(d).get(d)
		}
		f.simd(simdF32x4Mul).simd(simdF32x4Add).set(acc)
	}
	advance := func(by int32) {
		f.get(q).i32c(by).op(opI32Add).set(q)
		for r := range rows {
			f.get(row(r)).i32c(by).op(opI32Add).set(row(r))
		}
	}
	f.whileLE(i, n, 8, func() {
		f.get(q).vmem(simdLoad, 0).set(qa)
		f.get(q).vmem(simdLoad, 16).set(qb)
		for r := range rows {
			term(A[r], qa, r, 0)
			term(B[r], qb, r, 16)
		}
		advance(32)
	})
	f.whileLE(i, n, 4, func() {
		f.get(q).vmem(simdLoad, 0).set(qa)
		for r := range rows {
			term(A[r], qa, r, 0)
		}
		advance(16)
	})
	f.whileLT(i, n, 1, func() {
		f.get(q).mem(opF32Load, 0).set(qs)
		for r := range rows {
			f.get(S[r]).get(qs).get(row(r)).mem(opF32Load, 0)
			if l2 {
				f.op(opF32Sub).tee(ds).get(ds)
			}
			f.op(opF32Mul).op(opF32Add).set(S[r])
		}
		advance(4)
	})
	for r := range rows {
		if !ret {
			f.get(out)
		}
		f.get(A[r]).get(B[r]).simd(simdF32x4Add).set(d)
		f.get(d).lane(simdF32x4Extract, 0).get(d).lane(simdF32x4Extract, 1).op(opF32Add)
		f.get(d).lane(simdF32x4Extract, 2).get(d).lane(simdF32x4Extract, 3).op(opF32Add)
		f.op(opF32Add).get(S[r]).op(opF32Add)
		if !ret {
			f.mem(opF32Store, uint32(4*r))
		}
	}
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

// q4Batch builds dot_q4_batch(dst, codes, strideBytes, xBits, q, words,
// n): the i64 dst[j] = DotPlanes(codes + j·stride, xBits, q, 4, words) for
// j < n (DotQ4Batch), written to memory, so no i64 crosses JavaScript. One
// pass per code, word-major as DotPlanesGeneric's loop is: each sixteen
// bytes (eight with v128.load64_zero at an odd word count) of every
// document plane p is ANDed with the same bytes of the four query planes r,
// and popcount(…)·2^(p+r) is added to one i32x4 accumulator (a shift per
// pair; exact while a code's sum stays below 2^31, i.e. for every code of
// up to 8 bits and 2^16 dimensions).
func (k *kernels) q4Batch() *fn {
	f := k.add("dot_q4_batch", i32s(7), nil)
	dst, codes, stride, xb, q, words, n := uint32(0), uint32(1), uint32(2), uint32(3), uint32(4), uint32(5), uint32(6)
	pb := f.local(i32)
	j := f.local(i32)
	c := f.local(i32) // byte offset within a plane
	p := f.local(i32)
	x := f.local(v128)
	acc := f.local(v128)
	f.get(words).i32c(3).op(opI32Shl).set(pb)
	f.whileLT(j, n, 1, func() {
		f.vzero().set(acc)
		f.i32c(0).set(c)
		body := func(load uint32) {
			f.i32c(0).set(p)
			f.whileLT(p, xb, 1, func() {
				f.get(codes).get(p).get(pb).op(opI32Mul).op(opI32Add).get(c).op(opI32Add).vmem(load, 0).set(x)
				for r := int32(0); r < 4; r++ {
					f.get(acc)
					f.get(x)
					f.get(q).get(pb).i32c(r).op(opI32Mul).op(opI32Add).get(c).op(opI32Add).vmem(load, 0)
					f.simd(simdAnd).simd(simdI8x16Popcnt).simd(simdI16x8ExtAddU).simd(simdI32x4ExtAddU)
					f.get(p).i32c(r).op(opI32Add).simd(simdI32x4Shl)
					f.simd(simdI32x4Add).set(acc)
				}
			})
		}
		f.whileLE(c, pb, 16, func() { body(simdLoad) })
		f.whileLE(c, pb, 8, func() { body(simdLoad64Zero) })
		f.get(dst)
		f.hsum32(acc).op(opI64ExtendI32U)
		f.mem(opI64Store, 0)
		f.get(dst).i32c(8).op(opI32Add).set(dst)
		f.get(codes).get(stride).op(opI32Add).set(codes)
	})
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
	andPop := k.andPop()
	planes := k.planes(andPop)

	for _, l2 := range []bool{false, true} {
		name := "dot"
		if l2 {
			name = "l2sq"
		}
		one, four := k.f32Block(l2, 1, true), k.f32Block(l2, 4, false)

		// NAME(a, b, n) → f32: one pair (Dot / L2Sq).
		f := k.add(name, i32s(3), []byte{f32})
		f.get(0).get(2).get(1).call(one)

		// NAME4(q, n, a, b, c, d, out): out[0…3] = NAME(q, a), …, NAME(q, d)
		// (Dot4 / L2Sq4).
		f = k.add(name+"4", i32s(7), nil)
		for p := uint32(0); p < 7; p++ {
			f.get(p)
		}
		f.call(four)

		// NAME_rows(q, n, data, strideBytes, rows, out): out[j] = NAME(q,
		// row j) for j < rows, row j at data + j·strideBytes (DotRows /
		// L2SqRows, any number of rows): four rows per block, then one by
		// one.
		f = k.add(name+"_rows", i32s(6), nil)
		q, n, data, stride, rows, out := uint32(0), uint32(1), uint32(2), uint32(3), uint32(4), uint32(5)
		j := f.local(i32)
		f.whileLE(j, rows, 4, func() {
			f.get(q).get(n)
			for r := int32(0); r < 4; r++ {
				f.get(data).get(stride).i32c(r).op(opI32Mul).op(opI32Add)
			}
			f.get(out).call(four)
			f.get(data).get(stride).i32c(2).op(opI32Shl).op(opI32Add).set(data)
			f.get(out).i32c(16).op(opI32Add).set(out)
		})
		f.whileLT(j, rows, 1, func() {
			f.get(out).get(q).get(n).get(data).call(one).mem(opF32Store, 0)
			f.get(data).get(stride).op(opI32Add).set(data)
			f.get(out).i32c(4).op(opI32Add).set(out)
		})

		// NAME_ids(q, n, data, strideBytes, ids, count, out): out[j] =
		// NAME(q, row ids[j]) for j < count, ids u32 (the beam search's
		// batch: one expanded node's unvisited neighbours), four per block.
		f = k.add(name+"_ids", i32s(7), nil)
		q, n, data, stride = 0, 1, 2, 3
		ids, count := uint32(4), uint32(5)
		out = 6
		j = f.local(i32)
		rowOf := func(off uint32) {
			f.get(data).get(ids).mem(opI32Load, off).get(stride).op(opI32Mul).op(opI32Add)
		}
		f.whileLE(j, count, 4, func() {
			f.get(q).get(n)
			for r := uint32(0); r < 4; r++ {
				rowOf(4 * r)
			}
			f.get(out).call(four)
			f.get(ids).i32c(16).op(opI32Add).set(ids)
			f.get(out).i32c(16).op(opI32Add).set(out)
		})
		f.whileLT(j, count, 1, func() {
			f.get(out).get(q).get(n)
			rowOf(0)
			f.call(one).mem(opF32Store, 0)
			f.get(ids).i32c(4).op(opI32Add).set(ids)
			f.get(out).i32c(4).op(opI32Add).set(out)
		})
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

	k.q4Batch()

	var exports []Export
	for _, f := range k.fns {
		if f.export != "" {
			exports = append(exports, Export{Name: f.export, Params: len(f.params), Results: f.results})
		}
	}
	return module(k.fns, "mem", importMem), exports
}

// forwarder builds the module that stands between the Go program and the
// kernels: one export per kernel, of the kernel's type, whose body passes
// its parameters on through call_indirect to entry i of the table it
// imports (env.table), where the loader puts the kernel once the kernels'
// instance exists. The Go module's imports must exist before it is
// instantiated, and the kernels need its memory, which exists only after:
// the table breaks that cycle while keeping every call wasm-to-wasm (an
// imported JavaScript function would put a JavaScript frame in each call).
func forwarder(exports []Export) []byte {
	k := &kernels{}
	for i, e := range exports {
		f := k.add(e.Name, i32s(e.Params), e.Results)
		for p := range e.Params {
			f.get(uint32(p))
		}
		f.i32c(int32(i))
		// call_indirect of the function's own type (the type section has
		// one type per function, in function order) through table 0.
		f.code = uleb(append(f.code, opCallIndirect), uint64(f.index))
		f.code = append(f.code, 0x00)
	}
	return module(k.fns, "table", importTable)
}
