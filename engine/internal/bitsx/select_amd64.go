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
	if cpu.X86.HasAVX2 {
		k.Name = "avx2"
		k.DotBytes, k.SqDiffBytes = DotBytesAVX2, SqDiffBytesAVX2
		k.DotNibbles, k.SqDiffNibbles = DotNibblesAVX2, SqDiffNibblesAVX2
		ks = append(ks, k)
	}
	avx512 := false
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW {
		avx512 = true
		k.DotBytes, k.SqDiffBytes = DotBytesAVX512, SqDiffBytesAVX512
		k.DotNibbles, k.SqDiffNibbles = DotNibblesAVX512, SqDiffNibblesAVX512
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VPOPCNTDQ {
		avx512 = true
		k.AndPopCount, k.Dot1x4, k.DotPlanes = AndPopCountAVX512, Dot1x4AVX512, DotPlanesAVX512
	}
	if avx512 {
		k.Name = "avx512"
		ks = append(ks, k)
	}
	return ks
}
