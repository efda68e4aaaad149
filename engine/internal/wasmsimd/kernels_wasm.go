//go:build js && wasm

package wasmsimd

import "unsafe"

// Present reports whether the host attached the SIMD128 kernels
// (veclab_simd.features() is 1). It is 0 when the engine lacks SIMD128 or
// the host disabled them; then no other function here may be called.
func Present() bool { return features()&1 != 0 }

//go:wasmimport veclab_simd features
func features() int32

//go:wasmimport veclab_simd dot
//go:noescape
func dot(a, b unsafe.Pointer, n int32) float32

//go:wasmimport veclab_simd l2sq
//go:noescape
func l2sq(a, b unsafe.Pointer, n int32) float32

//go:wasmimport veclab_simd dot_rows
//go:noescape
func dotRows(q unsafe.Pointer, n int32, data unsafe.Pointer, strideBytes, rows int32, out unsafe.Pointer)

//go:wasmimport veclab_simd l2sq_rows
//go:noescape
func l2sqRows(q unsafe.Pointer, n int32, data unsafe.Pointer, strideBytes, rows int32, out unsafe.Pointer)

//go:wasmimport veclab_simd dot_ids
//go:noescape
func dotIDs(q unsafe.Pointer, n int32, data unsafe.Pointer, strideBytes int32, ids unsafe.Pointer, count int32, out unsafe.Pointer)

//go:wasmimport veclab_simd l2sq_ids
//go:noescape
func l2sqIDs(q unsafe.Pointer, n int32, data unsafe.Pointer, strideBytes int32, ids unsafe.Pointer, count int32, out unsafe.Pointer)

//go:wasmimport veclab_simd dot4
//go:noescape
func dot4(q unsafe.Pointer, n int32, a, b, c, d, out unsafe.Pointer)

//go:wasmimport veclab_simd l2sq4
//go:noescape
func l2sq4(q unsafe.Pointer, n int32, a, b, c, d, out unsafe.Pointer)

//go:wasmimport veclab_simd dot_bytes
//go:noescape
func dotBytes(a, b unsafe.Pointer, n int32) int32

//go:wasmimport veclab_simd sqdiff_bytes
//go:noescape
func sqDiffBytes(a, b unsafe.Pointer, n int32) int32

//go:wasmimport veclab_simd dot_nibbles
//go:noescape
func dotNibbles(a, b unsafe.Pointer, n int32) int32

//go:wasmimport veclab_simd sqdiff_nibbles
//go:noescape
func sqDiffNibbles(a, b unsafe.Pointer, n int32) int32

//go:wasmimport veclab_simd and_popcount
//go:noescape
func andPopCount(a, b unsafe.Pointer, n int32) int32

//go:wasmimport veclab_simd dot_planes
//go:noescape
func dotPlanes(x unsafe.Pointer, xBits int32, y unsafe.Pointer, yBits, words int32) float64

//go:wasmimport veclab_simd dot_q4_batch
//go:noescape
func dotQ4Batch(dst, codes unsafe.Pointer, strideBytes, xBits int32, q unsafe.Pointer, words, n int32)

func p32(s []float32) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }
func p8(s []byte) unsafe.Pointer     { return unsafe.Pointer(unsafe.SliceData(s)) }

// Dot returns Σ a[i]·b[i] over len(a) elements (f32.DotGeneric's value,
// summed in another order); len(b) ≥ len(a).
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	return dot(p32(a), p32(b), int32(len(a)))
}

// L2Sq returns Σ (a[i]−b[i])² over len(a) elements; len(b) ≥ len(a).
func L2Sq(a, b []float32) float32 {
	b = b[:len(a)]
	return l2sq(p32(a), p32(b), int32(len(a)))
}

// rowsSpan checks that data holds len(out) rows of len(q) elements, stride
// apart.
func rowsSpan(q, data []float32, stride int, out []float32) {
	if len(out) > 0 {
		_ = data[(len(out)-1)*stride : (len(out)-1)*stride+len(q)]
	}
}

// DotRows sets out[j] = Dot(q, data[j·stride:j·stride+len(q)]) for every
// j < len(out) (any len(out)), in one call.
func DotRows(q, data []float32, stride int, out []float32) {
	rowsSpan(q, data, stride, out)
	dotRows(p32(q), int32(len(q)), p32(data), int32(stride*4), int32(len(out)), p32(out))
}

// L2SqRows is DotRows for L2Sq.
func L2SqRows(q, data []float32, stride int, out []float32) {
	rowsSpan(q, data, stride, out)
	l2sqRows(p32(q), int32(len(q)), p32(data), int32(stride*4), int32(len(out)), p32(out))
}

// idsSpan checks that every id's row lies in data and out has room.
func idsSpan(q, data []float32, stride int, ids []uint32, out []float32) {
	_ = out[:len(ids)]
	for _, id := range ids {
		o := int(id) * stride
		_ = data[o : o+len(q)]
	}
}

// DotIDs sets out[j] = Dot(q, data[ids[j]·stride : ids[j]·stride+len(q)])
// for every j < len(ids), in one call (len(out) ≥ len(ids)).
func DotIDs(q, data []float32, stride int, ids []uint32, out []float32) {
	idsSpan(q, data, stride, ids, out)
	dotIDs(p32(q), int32(len(q)), p32(data), int32(stride*4), unsafe.Pointer(unsafe.SliceData(ids)), int32(len(ids)), p32(out))
}

// L2SqIDs is DotIDs for L2Sq.
func L2SqIDs(q, data []float32, stride int, ids []uint32, out []float32) {
	idsSpan(q, data, stride, ids, out)
	l2sqIDs(p32(q), int32(len(q)), p32(data), int32(stride*4), unsafe.Pointer(unsafe.SliceData(ids)), int32(len(ids)), p32(out))
}

// Dot4 returns Dot(q, a), Dot(q, b), Dot(q, c), Dot(q, d) in one call.
func Dot4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	n := len(q)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	var out [4]float32
	dot4(p32(q), int32(n), p32(a), p32(b), p32(c), p32(d), unsafe.Pointer(&out))
	return out[0], out[1], out[2], out[3]
}

// L2Sq4 is Dot4 for L2Sq.
func L2Sq4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	n := len(q)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	var out [4]float32
	l2sq4(p32(q), int32(n), p32(a), p32(b), p32(c), p32(d), unsafe.Pointer(&out))
	return out[0], out[1], out[2], out[3]
}

// DotBytes returns Σ a[i]·b[i] over len(a) unsigned bytes, wrapping as an
// int32 sum does (bitsx.DotBytesGeneric's value, bit for bit).
func DotBytes(a, b []byte) int32 {
	b = b[:len(a)]
	return dotBytes(p8(a), p8(b), int32(len(a)))
}

// SqDiffBytes returns Σ (a[i]−b[i])² over len(a) unsigned bytes.
func SqDiffBytes(a, b []byte) int32 {
	b = b[:len(a)]
	return sqDiffBytes(p8(a), p8(b), int32(len(a)))
}

// DotNibbles is DotBytes over two 4-bit values per byte.
func DotNibbles(a, b []byte) int32 {
	b = b[:len(a)]
	return dotNibbles(p8(a), p8(b), int32(len(a)))
}

// SqDiffNibbles is SqDiffBytes over two 4-bit values per byte.
func SqDiffNibbles(a, b []byte) int32 {
	b = b[:len(a)]
	return sqDiffNibbles(p8(a), p8(b), int32(len(a)))
}

// AndPopCount returns Σ popcount(a[w] AND b[w]) over the len(a)/8 whole
// 64-bit words of a.
func AndPopCount(a, b []byte) int {
	n := len(a) &^ 7
	a, b = a[:n], b[:n]
	return int(andPopCount(p8(a), p8(b), int32(n)))
}

// DotPlanes returns Σ_p Σ_r 2^(p+r)·popcount(X_p AND Y_r) over planes of
// words 64-bit words (bitsx.DotPlanesGeneric's value).
func DotPlanes(x []byte, xBits int, y []byte, yBits int, words int) int64 {
	pb := words * 8
	x, y = x[:xBits*pb], y[:yBits*pb]
	return int64(dotPlanes(p8(x), int32(xBits), p8(y), int32(yBits), int32(words)))
}

// DotQ4Batch sets dst[j] = DotPlanes(codes[j·stride:], xBits, q, 4, words)
// for every j < len(dst), in one call.
func DotQ4Batch(dst []int64, codes []byte, stride, xBits int, q []byte, words int) {
	pb := words * 8
	q = q[:4*pb]
	if len(dst) > 0 {
		_ = codes[(len(dst)-1)*stride : (len(dst)-1)*stride+xBits*pb]
	}
	dotQ4Batch(unsafe.Pointer(unsafe.SliceData(dst)), p8(codes), int32(stride), int32(xBits), p8(q), int32(words), int32(len(dst)))
}
