//go:build !purego

package f32

import "golang.org/x/sys/cpu"

// archKernels returns the assembly kernel sets this CPU and OS support, worst
// first. x/sys/cpu reports AVX2 and AVX-512F only when the OS saves the
// YMM/ZMM state, so a kernel listed here can run.
func archKernels() []Kernel {
	var ks []Kernel
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, Kernel{Name: "avx2", Dot: DotAVX2, L2Sq: L2SqAVX2, Dot4: Dot4AVX2, L2Sq4: L2Sq4AVX2,
			DotRows: DotRowsAVX2, L2SqRows: L2SqRowsAVX2,
			DotRowsQ3: rowsQ3(DotRowsAVX2), L2SqRowsQ3: rowsQ3(L2SqRowsAVX2),
			DotIDs: idsVia(Dot4AVX2, DotAVX2), L2SqIDs: idsVia(L2Sq4AVX2, L2SqAVX2)})
	}
	if cpu.X86.HasAVX512F {
		k := Kernel{Name: "avx512", Dot: DotAVX512, L2Sq: L2SqAVX512, Dot4: Dot4AVX512, L2Sq4: L2Sq4AVX512,
			DotRows: DotRowsAVX512, L2SqRows: L2SqRowsAVX512,
			DotRowsQ3: rowsQ3(DotRowsAVX512), L2SqRowsQ3: rowsQ3(L2SqRowsAVX512),
			DotIDs: idsVia(Dot4AVX512, DotAVX512), L2SqIDs: idsVia(L2Sq4AVX512, L2SqAVX512), Cols256: Cols256AVX512}
		if cpu.X86.HasAVX512VL { // the three-query kernels reduce in Y16–Y31
			k.DotRowsQ3, k.L2SqRowsQ3 = DotRowsQ3AVX512, L2SqRowsQ3AVX512
		}
		ks = append(ks, k)
	}
	return ks
}
