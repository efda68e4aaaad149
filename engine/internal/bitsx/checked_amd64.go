//go:build !purego

package bitsx

// Checked entry points of the assembly kernels. The assembly trusts its
// arguments; these wrappers re-slice them exactly as the *Generic twins do,
// so a call that is wrong (len(b) < len(a), planes shorter than words·8,
// negative words) panics with Go's bounds error under every kernel set
// instead of reading past a slice. Each costs one compare and branch.

func dotBytesAVX2(a, b []byte) int32 { return DotBytesAVX2(a, b[:len(a)]) }

func sqDiffBytesAVX2(a, b []byte) int32 { return SqDiffBytesAVX2(a, b[:len(a)]) }

func dotNibblesAVX2(a, b []byte) int32 { return DotNibblesAVX2(a, b[:len(a)]) }

func sqDiffNibblesAVX2(a, b []byte) int32 { return SqDiffNibblesAVX2(a, b[:len(a)]) }

func dotBytesAVX512(a, b []byte) int32 { return DotBytesAVX512(a, b[:len(a)]) }

func sqDiffBytesAVX512(a, b []byte) int32 { return SqDiffBytesAVX512(a, b[:len(a)]) }

func dotNibblesAVX512(a, b []byte) int32 { return DotNibblesAVX512(a, b[:len(a)]) }

func sqDiffNibblesAVX512(a, b []byte) int32 { return SqDiffNibblesAVX512(a, b[:len(a)]) }

func andPopCountPOPCNT(a, b []byte) int { return AndPopCountPOPCNT(a, b[:len(a)]) }

func dot1x4POPCNT(q, d []byte, words int) int64 {
	pb := words * 8
	return Dot1x4POPCNT(q[:4*pb], d[:pb], words)
}

func andPopCountAVX2(a, b []byte) int { return AndPopCountAVX2(a, b[:len(a)]) }

func dot1x4AVX2(q, d []byte, words int) int64 {
	pb := words * 8
	return Dot1x4AVX2(q[:4*pb], d[:pb], words)
}

func andPopCountAVX512(a, b []byte) int { return AndPopCountAVX512(a, b[:len(a)]) }

func dot1x4AVX512(q, d []byte, words int) int64 {
	pb := words * 8
	return Dot1x4AVX512(q[:4*pb], d[:pb], words)
}

// dotQ4BatchAVX512 checks what the batch kernel reads — the last code's
// xBits·words·8 bytes and the query's four planes — and a plane count
// the kernel's loop needs (at least one), then calls it.
func dotQ4BatchAVX512(dst []int64, codes []byte, stride, xBits int, q []byte, words int) {
	if len(dst) == 0 {
		return
	}
	if xBits < 1 || words < 1 || stride < 0 {
		panic("bitsx: DotQ4Batch: xBits, words must be ≥ 1 and stride ≥ 0")
	}
	n := xBits * words * 8
	_ = codes[(len(dst)-1)*stride : (len(dst)-1)*stride+n]
	DotQ4BatchAVX512(dst, codes, stride, xBits, q[:4*words*8], words)
}
