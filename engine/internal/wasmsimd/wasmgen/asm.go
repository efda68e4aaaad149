package wasmgen

import (
	"encoding/binary"
	"math"
)

// This file is a small assembler for the WebAssembly binary format: just
// the sections, value types and instructions the kernels use, each written
// as the core specification (WebAssembly Core Specification 2.0, chapter 5
// "Binary Format") and the fixed-width SIMD proposal, merged into it,
// encode them. Everything is emitted in a fixed order, so the output is a
// function of this source only.

// Value types (§5.3.1; v128 from the SIMD proposal).
const (
	i32  byte = 0x7f
	i64  byte = 0x7e
	f32  byte = 0x7d
	f64  byte = 0x7c
	v128 byte = 0x7b
)

// Core opcodes (§5.4), only the ones used.
const (
	opBlock          = 0x02
	opLoop           = 0x03
	opIf             = 0x04
	opEnd            = 0x0b
	opBr             = 0x0c
	opBrIf           = 0x0d
	opCall           = 0x10
	opCallIndirect   = 0x11
	opLocalGet       = 0x20
	opLocalSet       = 0x21
	opLocalTee       = 0x22
	opI32Load        = 0x28
	opF32Load        = 0x2a
	opI32Load8U      = 0x2d
	opI64Store       = 0x37
	opF32Store       = 0x38
	opI32Const       = 0x41
	opI64Const       = 0x42
	opF32Const       = 0x43
	opI32Eqz         = 0x45
	opI32GtU         = 0x4b
	opI32GeU         = 0x4f
	opI32LtU         = 0x49
	opI32Add         = 0x6a
	opI32Sub         = 0x6b
	opI32Mul         = 0x6c
	opI32And         = 0x71
	opI32Shl         = 0x74
	opI32ShrU        = 0x76
	opI64Add         = 0x7c
	opI64Shl         = 0x86
	opF32Add         = 0x92
	opF32Sub         = 0x93
	opF32Mul         = 0x94
	opI64ExtendI32U  = 0xad
	opF64ConvertI64S = 0xb9
	opSIMD           = 0xfd // prefix of every SIMD instruction, then a LEB128 u32
)

// SIMD opcodes (the fixed-width SIMD proposal's final numbering, as merged
// into the 2.0 specification), only the ones used.
const (
	simdLoad          = 0x00
	simdStore         = 0x0b
	simdConst         = 0x0c
	simdI8x16Splat    = 0x0f
	simdI32x4Extract  = 0x1b
	simdF32x4Extract  = 0x1f
	simdAnd           = 0x4e
	simdLoad64Zero    = 0x5d
	simdI8x16Popcnt   = 0x62
	simdI8x16ShrU     = 0x6d
	simdI16x8ExtAddU  = 0x7d // i16x8.extadd_pairwise_i8x16_u
	simdI32x4ExtAddU  = 0x7f // i32x4.extadd_pairwise_i16x8_u
	simdI16x8ExtLowU  = 0x89 // i16x8.extend_low_i8x16_u
	simdI16x8ExtHighU = 0x8a // i16x8.extend_high_i8x16_u
	simdI16x8Sub      = 0x91
	simdI32x4Shl      = 0xab
	simdI32x4Add      = 0xae
	simdI32x4Dot16    = 0xba // i32x4.dot_i16x8_s
	simdF32x4Add      = 0xe4
	simdF32x4Sub      = 0xe5
	simdF32x4Mul      = 0xe6
)

// blockVoid is the empty block type (§5.4.1).
const blockVoid = 0x40

func uleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func sleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// name is a length-prefixed UTF-8 string (§5.2.4).
func name(b []byte, s string) []byte { return append(uleb(b, uint64(len(s))), s...) }

// fn is one function being assembled: its signature, its locals and its
// instruction bytes. Parameters are locals 0…len(params)-1.
type fn struct {
	export  string // "" for an internal function
	params  []byte
	results []byte
	locals  []byte // types of the locals after the parameters
	code    []byte
	index   uint32 // function index in the module (imports: none)
}

func (f *fn) local(t byte) uint32 {
	f.locals = append(f.locals, t)
	return uint32(len(f.params) + len(f.locals) - 1)
}

func (f *fn) op(b ...byte) *fn           { f.code = append(f.code, b...); return f }
func (f *fn) get(l uint32) *fn           { f.code = uleb(append(f.code, opLocalGet), uint64(l)); return f }
func (f *fn) set(l uint32) *fn           { f.code = uleb(append(f.code, opLocalSet), uint64(l)); return f }
func (f *fn) tee(l uint32) *fn           { f.code = uleb(append(f.code, opLocalTee), uint64(l)); return f }
func (f *fn) i32c(v int32) *fn           { f.code = sleb(append(f.code, opI32Const), int64(v)); return f }
func (f *fn) i64c(v int64) *fn           { f.code = sleb(append(f.code, opI64Const), v); return f }
func (f *fn) call(g *fn) *fn             { f.code = uleb(append(f.code, opCall), uint64(g.index)); return f }
func (f *fn) br(depth uint32) *fn        { f.code = uleb(append(f.code, opBr), uint64(depth)); return f }
func (f *fn) brIf(depth uint32) *fn      { f.code = uleb(append(f.code, opBrIf), uint64(depth)); return f }
func (f *fn) block() *fn                 { return f.op(opBlock, blockVoid) }
func (f *fn) loop() *fn                  { return f.op(opLoop, blockVoid) }
func (f *fn) if_() *fn                   { return f.op(opIf, blockVoid) }
func (f *fn) end() *fn                   { return f.op(opEnd) }
func (f *fn) simd(op uint32) *fn         { f.code = uleb(append(f.code, opSIMD), uint64(op)); return f }
func (f *fn) lane(op uint32, l byte) *fn { return f.simd(op).op(l) }

func (f *fn) f32c(v float32) *fn {
	f.code = binary.LittleEndian.AppendUint32(append(f.code, opF32Const), math.Float32bits(v))
	return f
}

// mem emits a memory instruction with its memarg (§5.4.6): alignment
// exponent 0 (the kernels' addresses are any byte offset Go gives; the
// hint never changes a result) and a constant offset.
func (f *fn) mem(op byte, off uint32) *fn {
	f.code = uleb(append(f.code, op, 0), uint64(off))
	return f
}

// vmem is mem for a SIMD memory instruction.
func (f *fn) vmem(op uint32, off uint32) *fn {
	f.simd(op)
	f.code = uleb(append(f.code, 0), uint64(off))
	return f
}

// vzero pushes the all-zero v128.
func (f *fn) vzero() *fn {
	f.simd(simdConst)
	f.code = append(f.code, make([]byte, 16)...)
	return f
}

// whileLE emits `for ; x+step <= limit; x += step { body }` on unsigned
// i32 locals (the loop exits before body when the block would run past
// limit).
func (f *fn) whileLE(x, limit uint32, step int32, body func()) {
	f.block().loop()
	f.get(x).i32c(step).op(opI32Add).get(limit).op(opI32GtU).brIf(1)
	body()
	f.get(x).i32c(step).op(opI32Add).set(x)
	f.br(0).end().end()
}

// whileLT emits `for ; x < limit; x += step { body }`.
func (f *fn) whileLT(x, limit uint32, step int32, body func()) {
	f.block().loop()
	f.get(x).get(limit).op(opI32GeU).brIf(1)
	body()
	f.get(x).i32c(step).op(opI32Add).set(x)
	f.br(0).end().end()
}

// Imports a module can have: the kernels import the Go program's memory,
// the forwarder a table of the kernels' functions.
var (
	importMem   = []byte{0x02, 0x00, 0x00}       // memory, limits {min 0, no max}
	importTable = []byte{0x01, 0x70, 0x00, 0x00} // table of funcref, limits {min 0, no max}
)

// module assembles the functions into a module with one import, env.NAME
// of kind imp (importMem or importTable) (§5.5: type, import, function,
// export and code sections, in the order the specification requires).
func module(fns []*fn, impName string, imp []byte) []byte {
	out := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	section := func(id byte, body []byte) {
		out = uleb(append(out, id), uint64(len(body)))
		out = append(out, body...)
	}
	// One type per function, in function order: simple, and the module is
	// a few kilobytes either way.
	var types []byte
	types = uleb(types, uint64(len(fns)))
	for _, f := range fns {
		types = append(types, 0x60)
		types = append(uleb(types, uint64(len(f.params))), f.params...)
		types = append(uleb(types, uint64(len(f.results))), f.results...)
	}
	section(1, types)
	var imports []byte
	imports = uleb(imports, 1)
	imports = name(imports, "env")
	imports = name(imports, impName)
	imports = append(imports, imp...)
	section(2, imports)
	var funcs []byte
	funcs = uleb(funcs, uint64(len(fns)))
	for i := range fns {
		funcs = uleb(funcs, uint64(i))
	}
	section(3, funcs)
	var exports []byte
	n := 0
	for _, f := range fns {
		if f.export != "" {
			n++
		}
	}
	exports = uleb(exports, uint64(n))
	for _, f := range fns {
		if f.export != "" {
			exports = name(exports, f.export)
			exports = uleb(append(exports, 0x00), uint64(f.index))
		}
	}
	section(7, exports)
	var code []byte
	code = uleb(code, uint64(len(fns)))
	for _, f := range fns {
		var body []byte
		// Locals, run-length encoded by type as they come.
		var groups [][2]uint64
		for _, t := range f.locals {
			if len(groups) > 0 && groups[len(groups)-1][1] == uint64(t) {
				groups[len(groups)-1][0]++
			} else {
				groups = append(groups, [2]uint64{1, uint64(t)})
			}
		}
		body = uleb(body, uint64(len(groups)))
		for _, g := range groups {
			body = append(uleb(body, g[0]), byte(g[1]))
		}
		body = append(body, f.code...)
		body = append(body, opEnd)
		code = uleb(code, uint64(len(body)))
		code = append(code, body...)
	}
	section(10, code)
	return out
}
