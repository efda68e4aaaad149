package bitsx

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

var benchSink int64

// BenchmarkCodeKernels reports ns per comparison of every kernel by code
// width and dimension, once per distinct implementation (generic, avx2,
// avx512) this CPU has: sub-benchmarks are named kernel/d=D/impl. Beside
// wall time it reports the thread's CPU time per comparison (cpu-ns/cmp,
// Linux), steadier when other processes load the machine.
// Hypothesis: the AVX-512 popcount and byte kernels are several times
// faster than the pure-Go loops from 384 dimensions up, the AVX2 byte
// kernels about half as fast as AVX-512 ones; below ~128 dimensions every
// kernel is near the fixed cost of a call.
func BenchmarkCodeKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	type bench struct {
		name string
		fn   func(Kernel) any // the implementation, to skip duplicates
		run  func(Kernel) int64
	}
	for _, d := range []int{96, 128, 384, 768, 1536} {
		words := (d + 63) / 64
		x8, y8 := randCodes(r, d, 255), randCodes(r, d, 255)
		x4, y4 := randCodes(r, (d+1)/2, 255), randCodes(r, (d+1)/2, 255)
		q := randCodes(r, 4*words*8, 255)
		p1 := randCodes(r, words*8, 255)
		p2 := randCodes(r, 2*words*8, 255)
		p4 := randCodes(r, 4*words*8, 255)
		benches := []bench{
			{"8bit-dot", func(k Kernel) any { return k.DotBytes }, func(k Kernel) int64 { return int64(k.DotBytes(x8, y8)) }},
			{"8bit-sqdiff", func(k Kernel) any { return k.SqDiffBytes }, func(k Kernel) int64 { return int64(k.SqDiffBytes(x8, y8)) }},
			{"4bit-dot", func(k Kernel) any { return k.DotNibbles }, func(k Kernel) int64 { return int64(k.DotNibbles(x4, y4)) }},
			{"4bit-sqdiff", func(k Kernel) any { return k.SqDiffNibbles }, func(k Kernel) int64 { return int64(k.SqDiffNibbles(x4, y4)) }},
			{"1bit-x-1bit", func(k Kernel) any { return k.AndPopCount }, func(k Kernel) int64 { return int64(k.AndPopCount(p1, q)) }},
			{"1bit-x-4bit", func(k Kernel) any { return k.Dot1x4 }, func(k Kernel) int64 { return k.Dot1x4(q, p1, words) }},
			{"2bit-x-4bit", func(k Kernel) any { return k.DotPlanes }, func(k Kernel) int64 { return k.DotPlanes(p2, 2, q, 4, words) }},
			{"4bit-x-4bit-planes", func(k Kernel) any { return k.DotPlanes }, func(k Kernel) int64 { return k.DotPlanes(p4, 4, q, 4, words) }},
		}
		for _, bb := range benches {
			seen := map[uintptr]bool{}
			for _, k := range Available() {
				ptr := reflect.ValueOf(bb.fn(k)).Pointer()
				if seen[ptr] {
					continue
				}
				seen[ptr] = true
				b.Run(fmt.Sprintf("%s/d=%d/%s", bb.name, d, k.Name), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					var s int64
					t0, ok := threadNanos()
					for b.Loop() {
						s += bb.run(k)
					}
					t1, _ := threadNanos()
					benchSink += s
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/cmp")
					if ok {
						b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/cmp")
					}
				})
			}
		}
	}
}
