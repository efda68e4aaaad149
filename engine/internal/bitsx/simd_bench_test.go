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

// BenchmarkDotQ4Batch reports ns per code of scoring a slab of 256 codes
// (1, 2 and 4 bits, 14 bytes of factors after each, as OSQ lays them out)
// against one 4-bit query: DotQ4Batch of every distinct kernel set beside
// the set's DotPlanes called once per code, with thread CPU time (Linux).
// Hypothesis: on AVX-512 the batch kernel costs a fraction of the single
// call per code, whose mask setup, reduction and call dominate at 6 words.
func BenchmarkDotQ4Batch(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	const n = 256
	for _, d := range []int{128, 384, 768} {
		words := (d + 63) / 64
		q := randCodes(r, 4*words*8, 255)
		for _, xb := range []int{1, 2, 4} {
			stride := xb*words*8 + 14
			codes := randCodes(r, n*stride, 255)
			dst := make([]int64, n)
			seen := map[uintptr]bool{}
			for _, k := range Available() {
				ptr := reflect.ValueOf(k.DotQ4Batch).Pointer()
				if seen[ptr] {
					continue
				}
				seen[ptr] = true
				for _, mode := range []string{"batch", "per-code"} {
					b.Run(fmt.Sprintf("%dbit/d=%d/%s/%s", xb, d, k.Name, mode), func(b *testing.B) {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						t0, ok := threadNanos()
						for b.Loop() {
							if mode == "batch" {
								k.DotQ4Batch(dst, codes, stride, xb, q, words)
								continue
							}
							for j := range dst {
								dst[j] = k.DotPlanes(codes[j*stride:j*stride+xb*words*8], xb, q, 4, words)
							}
						}
						t1, _ := threadNanos()
						benchSink += dst[n-1]
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/code")
						if ok {
							b.ReportMetric(float64(t1-t0)/float64(b.N*n), "cpu-ns/code")
						}
					})
				}
			}
		}
	}
}
