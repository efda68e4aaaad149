package bitsx

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The tests in this file run every kernel set this CPU has (Available)
// against plain reference loops written here, on every length up to
// maxLen, at odd offsets, with guard bytes after each slice that would
// change the result if a kernel read them.

const maxLen = 1100 // bytes; ≥ the 1536-dim int4 code (768 bytes) and 1024-dim int8

func naiveDot(a, b []byte) int64 {
	var s int64
	for i := range a {
		s += int64(a[i]) * int64(b[i])
	}
	return s
}

func naiveSq(a, b []byte) int64 {
	var s int64
	for i := range a {
		d := int64(a[i]) - int64(b[i])
		s += d * d
	}
	return s
}

// nibbles unpacks two 4-bit values per byte, low nibble first.
func nibbles(p []byte) []byte {
	v := make([]byte, 0, 2*len(p))
	for _, x := range p {
		v = append(v, x&15, x>>4)
	}
	return v
}

func naiveAndPop(a, b []byte) int64 {
	var n int64
	for i := 0; i+8 <= len(a); i++ {
		if i%8 == 0 {
			for j := i; j < i+8; j++ {
				n += int64(bits.OnesCount8(a[j] & b[j]))
			}
		}
	}
	return n
}

// naivePlanes computes Σ_p Σ_r 2^(p+r) popcount(X_p AND Y_r) bit by bit.
func naivePlanes(x []byte, xb int, y []byte, yb int, words int) int64 {
	pb := words * 8
	var s int64
	for p := 0; p < xb; p++ {
		for r := 0; r < yb; r++ {
			for i := 0; i < pb; i++ {
				s += int64(bits.OnesCount8(x[p*pb+i]&y[r*pb+i])) << (p + r)
			}
		}
	}
	return s
}

// guarded returns a slice of n bytes at offset off of a fresh buffer, the
// bytes from fill, followed by 64 guard bytes of 0xff.
func guarded(n, off int, fill func(i int) byte) []byte {
	buf := make([]byte, off+n+64)
	for i := range buf {
		buf[i] = 0xff
	}
	s := buf[off : off+n : off+n]
	for i := range s {
		s[i] = fill(i)
	}
	return s
}

// pools of random bytes; slices of them keep the exhaustive tests fast.
var (
	poolA, poolB = randomPool(1, maxLen+8), randomPool(2, maxLen+8)
)

func randomPool(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 99))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	// Runs of extremes, where saturation or sign bugs would show.
	for i := 200; i < 300; i++ {
		p[i] = 255
	}
	for i := 300; i < 340; i++ {
		p[i] = 0
	}
	return p
}

type bytesKernel struct {
	name string
	pick func(Kernel) func(a, b []byte) int32
	ref  func(a, b []byte) int64
}

var bytesKernels = []bytesKernel{
	{"DotBytes", func(k Kernel) func(a, b []byte) int32 { return k.DotBytes }, naiveDot},
	{"SqDiffBytes", func(k Kernel) func(a, b []byte) int32 { return k.SqDiffBytes }, naiveSq},
	{"DotNibbles", func(k Kernel) func(a, b []byte) int32 { return k.DotNibbles },
		func(a, b []byte) int64 { return naiveDot(nibbles(a), nibbles(b)) }},
	{"SqDiffNibbles", func(k Kernel) func(a, b []byte) int32 { return k.SqDiffNibbles },
		func(a, b []byte) int64 { return naiveSq(nibbles(a), nibbles(b)) }},
}

// TestByteKernelsAllLengths compares every byte and nibble kernel of every
// kernel set with the reference for every length 0…maxLen and two offsets.
func TestByteKernelsAllLengths(t *testing.T) {
	for _, k := range Available() {
		for _, bk := range bytesKernels {
			f := bk.pick(k)
			for _, off := range []int{0, 3} {
				for n := 0; n <= maxLen; n++ {
					a := guarded(n, off, func(i int) byte { return poolA[i] })
					b := guarded(n, (off+1)%8, func(i int) byte { return poolB[i+off] })
					if got, want := int64(f(a, b)), bk.ref(a, b); got != want {
						t.Fatalf("%s/%s n=%d off=%d: got %d, want %d", k.Name, bk.name, n, off, got, want)
					}
				}
			}
		}
	}
}

// TestByteKernelsExtremes checks all-255 and all-0 inputs, where a
// saturating or signed multiply would be wrong, at sizes around the
// register widths and at the largest code of the lab (4096 bytes).
func TestByteKernelsExtremes(t *testing.T) {
	for _, k := range Available() {
		for _, bk := range bytesKernels {
			f := bk.pick(k)
			for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4096} {
				for _, c := range [][2]byte{{255, 255}, {255, 0}, {0, 255}, {0x0f, 0xf0}, {127, 128}} {
					a := guarded(n, 1, func(int) byte { return c[0] })
					b := guarded(n, 2, func(int) byte { return c[1] })
					if got, want := int64(f(a, b)), bk.ref(a, b); got != want {
						t.Fatalf("%s/%s n=%d a=%#x b=%#x: got %d, want %d", k.Name, bk.name, n, c[0], c[1], got, want)
					}
				}
			}
		}
	}
}

// TestPlaneKernelsAllWords compares AndPopCount, Dot1x4 and DotPlanes of
// every kernel set with the bit-by-bit reference for 0…40 words (2560
// dimensions) and every pair of code widths 1…5 (5 takes the generic
// path's plane-pair fallback).
func TestPlaneKernelsAllWords(t *testing.T) {
	for _, k := range Available() {
		for words := 0; words <= 40; words++ {
			pb := words * 8
			for xb := 1; xb <= 5; xb++ {
				for yb := 1; yb <= 5; yb++ {
					x := guarded(xb*pb, xb%4, func(i int) byte { return poolA[i%len(poolA)] })
					y := guarded(yb*pb, yb%3, func(i int) byte { return poolB[(i*7)%len(poolB)] })
					want := naivePlanes(x, xb, y, yb, words)
					if got := k.DotPlanes(x, xb, y, yb, words); got != want {
						t.Fatalf("%s/DotPlanes words=%d %dx%d: got %d, want %d", k.Name, words, xb, yb, got, want)
					}
					if xb == 1 && yb == 4 {
						if got := k.Dot1x4(y, x, words); got != want {
							t.Fatalf("%s/Dot1x4 words=%d: got %d, want %d", k.Name, words, got, want)
						}
					}
				}
			}
			// AndPopCount ignores a trailing partial word: lengths 8w…8w+7.
			for extra := 0; extra < 8; extra++ {
				a := guarded(pb+extra, extra, func(i int) byte { return poolA[i] })
				b := guarded(pb+extra, 7-extra, func(i int) byte { return poolB[i] })
				if got, want := int64(k.AndPopCount(a, b)), naiveAndPop(a, b); got != want {
					t.Fatalf("%s/AndPopCount len=%d: got %d, want %d", k.Name, len(a), got, want)
				}
			}
		}
	}
}

// TestDotQ4Batch compares DotQ4Batch of every kernel set with the
// bit-by-bit reference per code, for 1…20 words (the tail mask of every
// words%8, and two full blocks and more), code widths 1…5 and 8, 0…5
// codes at strides of the code plus 0…13 bytes of factors, the last code
// followed by guard bytes, and checks it writes nothing past len(dst).
func TestDotQ4Batch(t *testing.T) {
	for _, k := range Available() {
		for words := 1; words <= 20; words++ {
			pb := words * 8
			q := guarded(4*pb, 3, func(i int) byte { return poolB[(i*5)%len(poolB)] })
			for _, xb := range []int{1, 2, 3, 4, 5, 8} {
				for ndocs := 0; ndocs <= 5; ndocs++ {
					pad := (words + xb + ndocs) % 14
					stride := xb*pb + pad
					n := 0
					if ndocs > 0 {
						n = (ndocs-1)*stride + xb*pb
					}
					codes := guarded(n, ndocs%4, func(i int) byte { return poolA[(i*3+words)%len(poolA)] })
					dst := make([]int64, ndocs+1)
					dst[ndocs] = -7
					k.DotQ4Batch(dst[:ndocs], codes, stride, xb, q, words)
					for j := 0; j < ndocs; j++ {
						want := naivePlanes(codes[j*stride:j*stride+xb*pb], xb, q, 4, words)
						if dst[j] != want {
							t.Fatalf("%s/DotQ4Batch words=%d bits=%d code %d of %d: got %d, want %d", k.Name, words, xb, j, ndocs, dst[j], want)
						}
					}
					if dst[ndocs] != -7 {
						t.Fatalf("%s/DotQ4Batch wrote past len(dst)", k.Name)
					}
				}
			}
		}
	}
}

// TestSetAccelerated checks that switching installs the named set and back.
func TestSetAccelerated(t *testing.T) {
	defer SetAccelerated(true)
	SetAccelerated(false)
	if Impl() != "generic" {
		t.Fatalf("after SetAccelerated(false), Impl() = %q", Impl())
	}
	a, b := poolA[:777], poolB[:777]
	want := naiveDot(a, b)
	if got := int64(DotBytes(a, b)); got != want {
		t.Fatalf("generic DotBytes = %d, want %d", got, want)
	}
	SetAccelerated(true)
	av := Available()
	if best := av[len(av)-1].Name; Impl() != best {
		t.Fatalf("after SetAccelerated(true), Impl() = %q, want %q", Impl(), best)
	}
	if got := int64(DotBytes(a, b)); got != want {
		t.Fatalf("%s DotBytes = %d, want %d", Impl(), got, want)
	}
	if av[0].Name != "generic" {
		t.Fatalf("Available()[0] = %q, want generic", av[0].Name)
	}
}

func ExampleAvailable() {
	a := []byte{1, 2, 3, 255}
	b := []byte{4, 5, 6, 255}
	for _, k := range Available() {
		// Every kernel set gives the same exact result.
		if k.DotBytes(a, b) != 1*4+2*5+3*6+255*255 {
			fmt.Println(k.Name, "disagrees")
		}
	}
	fmt.Println(DotBytes(a, b), SqDiffBytes(a, b))
	// Output: 65057 27
}

// TestShortInputsPanic checks that every kernel set rejects inputs shorter
// than the kernel reads with Go's bounds panic, as the pure-Go twins do,
// rather than reading past a slice.
func TestShortInputsPanic(t *testing.T) {
	// Full slice expressions: re-slicing up to the capacity is legal Go.
	a, short := poolA[:128:128], poolB[:99:99]
	q := poolA[: 4*16*8 : 4*16*8]
	for _, k := range Available() {
		cases := []struct {
			name string
			call func()
		}{
			{"DotBytes", func() { k.DotBytes(a[:100], short) }},
			{"SqDiffBytes", func() { k.SqDiffBytes(a[:100], short) }},
			{"DotNibbles", func() { k.DotNibbles(a[:100], short) }},
			{"SqDiffNibbles", func() { k.SqDiffNibbles(a[:100], short) }},
			{"AndPopCount", func() { k.AndPopCount(a[:96], short[:88:88]) }},
			{"Dot1x4/short-query", func() { k.Dot1x4(q[:4*16*8-1:4*16*8-1], a, 16) }},
			{"Dot1x4/short-doc", func() { k.Dot1x4(q, a[:127:127], 16) }},
			{"Dot1x4/negative-words", func() { k.Dot1x4(q, a, -1) }},
			{"DotPlanes/short-x", func() { k.DotPlanes(q[:2*64-1:2*64-1], 2, q, 4, 8) }},
			{"DotPlanes/short-y", func() { k.DotPlanes(q, 2, q[:2*64-1:2*64-1], 2, 8) }},
			{"DotPlanes/negative-words", func() { k.DotPlanes(q, 2, q, 4, -1) }},
		}
		for _, c := range cases {
			t.Run(k.Name+"/"+c.name, func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Errorf("no panic")
					}
				}()
				c.call()
			})
		}
	}
}
