//go:build !purego

package bitsx

import "golang.org/x/sys/cpu"

// archKernels returns the assembly kernel sets this CPU and OS support, worst
// first. x/sys/cpu reports AVX2 and AVX-512 features only when the OS saves
// the YMM/ZMM state, so a kernel listed here can run. A set starts from the
// one before it and replaces only the kernels its features allow, so the
// last set is the best mix this CPU has.
func archKernels() []Kernel {
	var ks []Kernel
	k := Generic
	if cpu.X86.HasPOPCNT {
		k.Name = "popcnt"
		k.AndPopCount, k.Dot1x4 = andPopCountPOPCNT, dot1x4POPCNT
		k.DotPlanes = planesVia(Dot1x4POPCNT, AndPopCountPOPCNT)
		k.DotQ4Batch = batchVia(k.DotPlanes)
		ks = append(ks, k)
	}
	if cpu.X86.HasAVX2 {
		k.Name = "avx2"
		if cpu.X86.HasPOPCNT {
			// The VPSHUFB popcount beats scalar POPCNT on 1x4 from 384
			// dimensions on and ties below (BenchmarkCodeKernels).
			k.AndPopCount, k.Dot1x4 = andPopCountAVX2, dot1x4AVX2
			k.DotPlanes = planesVia(Dot1x4AVX2, AndPopCountAVX2)
			k.DotQ4Batch = batchVia(k.DotPlanes)
		}
		k.DotBytes, k.SqDiffBytes = dotBytesAVX2, sqDiffBytesAVX2
		k.DotNibbles, k.SqDiffNibbles = dotNibblesAVX2, sqDiffNibblesAVX2
		ks = append(ks, k)
	}
	avx512 := false
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW {
		avx512 = true
		k.DotBytes, k.SqDiffBytes = dotBytesAVX512, sqDiffBytesAVX512
		k.DotNibbles, k.SqDiffNibbles = dotNibblesAVX512, sqDiffNibblesAVX512
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VPOPCNTDQ {
		avx512 = true
		k.AndPopCount, k.Dot1x4, k.DotPlanes = andPopCountAVX512, dot1x4AVX512, dotPlanesAVX512
		k.DotQ4Batch = dotQ4BatchAVX512
	}
	if avx512 {
		k.Name = "avx512"
		ks = append(ks, k)
	}
	return ks
}

// dotPlanesAVX512 is DotPlanes on AVX-512: when either code has four bits
// (the query of a BBQ/OSQ index), one Dot1x4AVX512 pass per plane of the
// other code, which loads each of its words once for four popcounts;
// otherwise DotPlanesAVX512's one pass per plane pair.
func dotPlanesAVX512(x []byte, xBits int, y []byte, yBits int, words int) int64 {
	if yBits != 4 && xBits == 4 {
		x, xBits, y, yBits = y, yBits, x, xBits
	}
	pb := words * 8
	x, y = x[:xBits*pb], y[:yBits*pb]
	if yBits != 4 {
		return DotPlanesAVX512(x, xBits, y, yBits, words)
	}
	var total int64
	for p := 0; p < xBits; p++ {
		total += Dot1x4AVX512(y, x[p*pb:], words) << p
	}
	return total
}

// planesVia returns DotPlanes built on a Dot1x4 and an AndPopCount assembly
// kernel, which it calls only on slices of the lengths they read:
// one dot1x4 pass per plane of the other code when either code has four
// bits (the query of a BBQ/OSQ index), else one andPop pass per plane pair.
func planesVia(dot1x4 func(q, d []byte, words int) int64, andPop func(a, b []byte) int) func(x []byte, xBits int, y []byte, yBits int, words int) int64 {
	return func(x []byte, xBits int, y []byte, yBits int, words int) int64 {
		if yBits != 4 && xBits == 4 {
			x, xBits, y, yBits = y, yBits, x, xBits
		}
		pb := words * 8
		x, y = x[:xBits*pb], y[:yBits*pb]
		var total int64
		for p := 0; p < xBits; p++ {
			if yBits == 4 {
				total += dot1x4(y, x[p*pb:], words) << p
				continue
			}
			for r := 0; r < yBits; r++ {
				total += int64(andPop(x[p*pb:(p+1)*pb], y[r*pb:(r+1)*pb])) << (p + r)
			}
		}
		return total
	}
}
