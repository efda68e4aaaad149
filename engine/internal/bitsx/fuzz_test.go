package bitsx

import "testing"

// FuzzCodeKernels compares the byte and nibble kernels of every kernel set
// with the reference loops on arbitrary bytes at offsets off%8 and off/8%8.
func FuzzCodeKernels(f *testing.F) {
	f.Add([]byte{}, []byte{}, uint8(0))
	f.Add([]byte{255, 255, 255}, []byte{255, 0, 255}, uint8(9))
	long := make([]byte, 131)
	for i := range long {
		long[i] = byte(i * 37)
	}
	f.Add(long, long[5:], uint8(63))
	f.Fuzz(func(t *testing.T, pa, pb []byte, off uint8) {
		n := min(len(pa), len(pb))
		a := guarded(n, int(off%8), func(i int) byte { return pa[i] })
		b := guarded(n, int(off/8%8), func(i int) byte { return pb[i] })
		for _, k := range Available() {
			for _, bk := range bytesKernels {
				if got, want := int64(bk.pick(k)(a, b)), bk.ref(a, b); got != want {
					t.Fatalf("%s/%s n=%d: got %d, want %d", k.Name, bk.name, n, got, want)
				}
			}
		}
	})
}

// FuzzPlaneKernels compares AndPopCount, Dot1x4 and DotPlanes of every
// kernel set with the bit-by-bit reference; the code widths are 1+xb%8 and
// 1+yb%8 bits and the word count is what the shorter input allows.
func FuzzPlaneKernels(f *testing.F) {
	f.Add([]byte{}, []byte{}, uint8(0), uint8(3))
	long := make([]byte, 4*8*13)
	for i := range long {
		long[i] = byte(i*131 + 7)
	}
	f.Add(long, long, uint8(0), uint8(3))
	f.Add(long[3:], long[1:], uint8(1), uint8(3))
	f.Fuzz(func(t *testing.T, pa, pb []byte, xb, yb uint8) {
		xBits, yBits := 1+int(xb%8), 1+int(yb%8)
		words := min(len(pa)/(8*xBits), len(pb)/(8*yBits))
		x := guarded(xBits*words*8, int(xb%3), func(i int) byte { return pa[i] })
		y := guarded(yBits*words*8, int(yb%5), func(i int) byte { return pb[i] })
		want := naivePlanes(x, xBits, y, yBits, words)
		n := min(len(pa), len(pb))
		a := guarded(n, 1, func(i int) byte { return pa[i] })
		b := guarded(n, 2, func(i int) byte { return pb[i] })
		wantPop := naiveAndPop(a, b)
		for _, k := range Available() {
			if got := k.DotPlanes(x, xBits, y, yBits, words); got != want {
				t.Fatalf("%s/DotPlanes words=%d %dx%d: got %d, want %d", k.Name, words, xBits, yBits, got, want)
			}
			if xBits == 1 && yBits == 4 {
				if got := k.Dot1x4(y, x, words); got != want {
					t.Fatalf("%s/Dot1x4 words=%d: got %d, want %d", k.Name, words, got, want)
				}
			}
			if yBits == 4 && words > 0 {
				var got [1]int64
				k.DotQ4Batch(got[:], x, 0, xBits, y, words)
				if got[0] != want {
					t.Fatalf("%s/DotQ4Batch words=%d bits=%d: got %d, want %d", k.Name, words, xBits, got[0], want)
				}
			}
			if got := int64(k.AndPopCount(a, b)); got != wantPop {
				t.Fatalf("%s/AndPopCount len=%d: got %d, want %d", k.Name, n, got, wantPop)
			}
		}
	})
}
