// Package bitsx holds the trusted integer kernels that score quantized
// codes: byte dot products and squared differences (int7/int8 codes), the
// same on nibble-packed codes (int4, two values per byte), and AND+popcount
// over bit-planes (1-, 2- and 4-bit codes, the RaBitQ/BBQ kernel).
//
// Nothing here checks lengths beyond what Go's bounds checks do: callers
// (engine/quant) validate once, when a code is built. Every kernel returns
// the exact integer result; the tests compare each against a plain loop.
//
// # Bit-plane layout
//
// A B-bit code of a D-dimensional vector is stored as B planes of W =
// ⌈D/64⌉ little-endian 64-bit words each, plane p first holding bit p of
// every component (component i is bit i%64 of word i/64). Then
//
//	⟨x, y⟩ = Σ_p Σ_r 2^(p+r) · popcount(X_p AND Y_r)
//
// which is how Lucene's Lucene102BinaryFlatVectorsScorer scores a 4-bit
// query against 1-bit documents (the query transposed into four planes,
// after Gao & Long, "RaBitQ", SIGMOD 2024). math/bits.OnesCount64 compiles
// to POPCNT on amd64 (behind a CPU feature check). DotQ4Batch scores many
// codes against one 4-bit query in one call (a posting list's scan), which
// on AVX-512 saves the per-code call, kernel selection and mask setup that
// dominate at a few words per code.
package bitsx

import (
	"encoding/binary"
	"math/bits"
)

// DotBytes returns Σ a[i]·b[i] over len(a) unsigned bytes; len(b) ≥ len(a).
// The result is exact for len(a) ≤ 33,000 (255²·33,000 < 2³¹).
var DotBytes = DotBytesGeneric

// DotBytesGeneric is the pure-Go twin of DotBytes.
func DotBytesGeneric(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// SqDiffBytes returns Σ (a[i]−b[i])² over len(a) unsigned bytes.
var SqDiffBytes = SqDiffBytesGeneric

// SqDiffBytesGeneric is the pure-Go twin of SqDiffBytes.
func SqDiffBytesGeneric(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 := int32(a[i]) - int32(b[i])
		d1 := int32(a[i+1]) - int32(b[i+1])
		d2 := int32(a[i+2]) - int32(b[i+2])
		d3 := int32(a[i+3]) - int32(b[i+3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := int32(a[i]) - int32(b[i])
		s0 += d * d
	}
	return s0 + s1 + s2 + s3
}

// DotNibbles returns Σ x[i]·y[i] where x and y are 4-bit values packed two
// per byte (component 2j in the low nibble of byte j, 2j+1 in the high
// nibble), over len(a) bytes.
var DotNibbles = DotNibblesGeneric

// DotNibblesGeneric is the pure-Go twin of DotNibbles.
func DotNibblesGeneric(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1 int32
	for i, x := range a {
		y := b[i]
		s0 += int32(x&15) * int32(y&15)
		s1 += int32(x>>4) * int32(y>>4)
	}
	return s0 + s1
}

// SqDiffNibbles returns Σ (x[i]−y[i])² over nibble-packed codes (see DotNibbles).
var SqDiffNibbles = SqDiffNibblesGeneric

// SqDiffNibblesGeneric is the pure-Go twin of SqDiffNibbles.
func SqDiffNibblesGeneric(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1 int32
	for i, x := range a {
		y := b[i]
		d0 := int32(x&15) - int32(y&15)
		d1 := int32(x>>4) - int32(y>>4)
		s0 += d0 * d0
		s1 += d1 * d1
	}
	return s0 + s1
}

// AndPopCount returns Σ popcount(a[w] AND b[w]) over len(a)/8 little-endian
// 64-bit words; len(a) must be a multiple of 8 and len(b) ≥ len(a).
var AndPopCount = AndPopCountGeneric

// AndPopCountGeneric is the pure-Go twin of AndPopCount.
func AndPopCountGeneric(a, b []byte) int {
	b = b[:len(a)]
	n := 0
	for i := 0; i+8 <= len(a); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) & binary.LittleEndian.Uint64(b[i:]))
	}
	return n
}

// PopCount returns the number of set bits in a (len(a) a multiple of 8).
func PopCount(a []byte) int {
	n := 0
	for i := 0; i+8 <= len(a); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]))
	}
	return n
}

// DotPlanes returns ⟨x, y⟩ for an xBits-bit code x and a yBits-bit code y
// stored as bit-planes of words 64-bit words each (see the package doc).
// It is exact: Σ_p Σ_r 2^(p+r)·popcount(X_p AND Y_r). Codes of up to 4
// bits run word-major (every plane pair per word, one pass); wider codes
// fall back to one pass per plane pair.
var DotPlanes = DotPlanesGeneric

// DotPlanesGeneric is the pure-Go twin of DotPlanes.
func DotPlanesGeneric(x []byte, xBits int, y []byte, yBits int, words int) int64 {
	pb := words * 8
	if xBits > 4 || yBits > 4 {
		var total int64
		for p := 0; p < xBits; p++ {
			xp := x[p*pb : (p+1)*pb]
			for r := 0; r < yBits; r++ {
				total += int64(AndPopCountGeneric(xp, y[r*pb:(r+1)*pb])) << (p + r)
			}
		}
		return total
	}
	x = x[:xBits*pb]
	y = y[:yBits*pb]
	var counts [7]int // counts[p+r]
	var xw, yw [4]uint64
	for i := 0; i+8 <= pb; i += 8 {
		for p := 0; p < xBits; p++ {
			xw[p] = binary.LittleEndian.Uint64(x[p*pb+i:])
		}
		for r := 0; r < yBits; r++ {
			yw[r] = binary.LittleEndian.Uint64(y[r*pb+i:])
		}
		for p := 0; p < xBits; p++ {
			for r := 0; r < yBits; r++ {
				counts[p+r] += bits.OnesCount64(xw[p] & yw[r])
			}
		}
	}
	var total int64
	for s, c := range counts {
		total += int64(c) << s
	}
	return total
}

// Dot1x4 is DotPlanes specialised for a 1-bit document d against a 4-bit
// query q (the BBQ case): one pass over the words, four popcounts each.
var Dot1x4 = Dot1x4Generic

// Dot1x4Generic is the pure-Go twin of Dot1x4.
func Dot1x4Generic(q, d []byte, words int) int64 {
	pb := words * 8
	q0, q1, q2, q3 := q[:pb], q[pb:2*pb], q[2*pb:3*pb], q[3*pb:4*pb]
	d = d[:pb]
	var c0, c1, c2, c3 int
	for i := 0; i+8 <= pb; i += 8 {
		w := binary.LittleEndian.Uint64(d[i:])
		c0 += bits.OnesCount64(w & binary.LittleEndian.Uint64(q0[i:]))
		c1 += bits.OnesCount64(w & binary.LittleEndian.Uint64(q1[i:]))
		c2 += bits.OnesCount64(w & binary.LittleEndian.Uint64(q2[i:]))
		c3 += bits.OnesCount64(w & binary.LittleEndian.Uint64(q3[i:]))
	}
	return int64(c0) + int64(c1)<<1 + int64(c2)<<2 + int64(c3)<<3
}

// DotQ4Batch writes to dst[j], for every j < len(dst), ⟨x_j, q⟩ of the
// xBits-bit code x_j = codes[j·stride:] (bit-planes of words 64-bit words,
// 1 ≤ xBits ≤ 8) and the 4-bit query q: a posting list's codes against one
// query in one call (the scan of BBQ/OSQ lists with 4-bit queries).
var DotQ4Batch = DotQ4BatchGeneric

// DotQ4BatchGeneric is the pure-Go twin of DotQ4Batch: DotPlanes per code
// (the kernel set's own, so each set's batch is its single-code kernel in
// a loop).
func DotQ4BatchGeneric(dst []int64, codes []byte, stride, xBits int, q []byte, words int) {
	batchVia(DotPlanesGeneric)(dst, codes, stride, xBits, q, words)
}

// batchVia returns DotQ4Batch as a loop over a DotPlanes kernel.
func batchVia(planes func(x []byte, xBits int, y []byte, yBits int, words int) int64) func(dst []int64, codes []byte, stride, xBits int, q []byte, words int) {
	return func(dst []int64, codes []byte, stride, xBits int, q []byte, words int) {
		n := xBits * words * 8
		for j := range dst {
			dst[j] = planes(codes[j*stride:j*stride+n], xBits, q, 4, words)
		}
	}
}

// PackPlanes writes the B-bit values codes[i] (each < 2^B) as B bit-planes
// into dst, which must hold B·words·8 bytes and is fully overwritten.
// Eight components at a time: with their codes as the bytes of a 64-bit
// x, bit p of each byte is (x >> p) & 0x0101…01, and multiplying that by
// 0x0102040810204080 gathers the eight bits, byte i's into bit 56 + i,
// without carries (the products' bit positions 8i + 7j + 7 are distinct),
// so one multiply and shift gives a plane's byte.
func PackPlanes(dst []byte, codes []byte, b int, words int) {
	pb := words * 8
	clear(dst[:b*pb])
	const lsbs, gather = 0x0101010101010101, 0x0102040810204080
	g := 0
	for ; g+8 <= len(codes); g += 8 {
		x := binary.LittleEndian.Uint64(codes[g:])
		for p := 0; p < b; p++ {
			dst[p*pb+g>>3] = byte(((x >> p) & lsbs) * gather >> 56)
		}
	}
	if g < len(codes) {
		var tail [8]byte
		copy(tail[:], codes[g:])
		x := binary.LittleEndian.Uint64(tail[:])
		for p := 0; p < b; p++ {
			dst[p*pb+g>>3] = byte(((x >> p) & lsbs) * gather >> 56)
		}
	}
}

// UnpackPlanes is the inverse of PackPlanes: it writes len(dst) values.
func UnpackPlanes(dst []byte, planes []byte, b int, words int) {
	pb := words * 8
	for i := range dst {
		byteIdx := i >> 3
		bit := byte(1) << (i & 7)
		var c byte
		for p := 0; p < b; p++ {
			if planes[p*pb+byteIdx]&bit != 0 {
				c |= 1 << p
			}
		}
		dst[i] = c
	}
}

// PackNibbles packs 4-bit values two per byte into dst (len ⌈len(codes)/2⌉).
func PackNibbles(dst []byte, codes []byte) {
	for j := range dst[:(len(codes)+1)/2] {
		lo := codes[2*j] & 15
		var hi byte
		if 2*j+1 < len(codes) {
			hi = codes[2*j+1] & 15
		}
		dst[j] = lo | hi<<4
	}
}

// UnpackNibbles writes len(dst) 4-bit values from nibble-packed src.
func UnpackNibbles(dst []byte, src []byte) {
	for i := range dst {
		b := src[i>>1]
		if i&1 == 0 {
			dst[i] = b & 15
		} else {
			dst[i] = b >> 4
		}
	}
}
