//go:build linux

package bitsx

import (
	"testing"

	"golang.org/x/sys/unix"
)

// fenced maps two pages, makes the second inaccessible and returns the
// first: a slice that ends at its end faults on any read past it.
func fenced(t *testing.T) []byte {
	t.Helper()
	ps := unix.Getpagesize()
	m, err := unix.Mmap(-1, 0, 2*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = unix.Munmap(m) })
	if err := unix.Mprotect(m[ps:], unix.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return m[:ps:ps]
}

// atEnd copies src to the last len(src) bytes of page.
func atEnd(page, src []byte) []byte {
	s := page[len(page)-len(src):]
	copy(s, src)
	return s
}

// TestNoReadPastEnd runs every kernel of every set on slices that end at an
// unmapped page, for every length the page allows up to maxLen: a kernel
// that loads one byte past its input crashes the test instead of merely
// reading a guard byte whose value a mask might hide.
func TestNoReadPastEnd(t *testing.T) {
	pa, pb := fenced(t), fenced(t)
	for _, k := range Available() {
		for _, bk := range bytesKernels {
			f := bk.pick(k)
			for n := 0; n <= maxLen; n++ {
				a := atEnd(pa, poolA[:n])
				b := atEnd(pb, poolB[:n])
				if got, want := int64(f(a, b)), bk.ref(a, b); got != want {
					t.Fatalf("%s/%s n=%d: got %d, want %d", k.Name, bk.name, n, got, want)
				}
			}
		}
		for words := 0; words <= 40; words++ {
			n := words * 8
			for extra := 0; extra < 8; extra++ {
				a := atEnd(pa, poolA[:n+extra])
				b := atEnd(pb, poolB[:n+extra])
				if got, want := int64(k.AndPopCount(a, b)), naiveAndPop(a, b); got != want {
					t.Fatalf("%s/AndPopCount len=%d: got %d, want %d", k.Name, n+extra, got, want)
				}
			}
			for _, bitsXY := range [][2]int{{1, 4}, {4, 1}, {2, 4}, {4, 4}, {1, 1}, {3, 2}} {
				xb, yb := bitsXY[0], bitsXY[1]
				x := atEnd(pa, cycle(poolA, xb*n))
				y := atEnd(pb, cycle(poolB, yb*n))
				want := naivePlanes(x, xb, y, yb, words)
				if got := k.DotPlanes(x, xb, y, yb, words); got != want {
					t.Fatalf("%s/DotPlanes words=%d %dx%d: got %d, want %d", k.Name, words, xb, yb, got, want)
				}
				if xb == 1 && yb == 4 {
					if got := k.Dot1x4(y, x, words); got != want {
						t.Fatalf("%s/Dot1x4 words=%d: got %d, want %d", k.Name, words, got, want)
					}
				}
				if yb == 4 && words > 0 {
					// Two codes, the second ending at the fence (stride = code size).
					codes := atEnd(pa, cycle(poolA, 2*xb*n))
					var got [2]int64
					k.DotQ4Batch(got[:], codes, xb*n, xb, y, words)
					if w1 := naivePlanes(codes[xb*n:], xb, y, yb, words); got[1] != w1 {
						t.Fatalf("%s/DotQ4Batch words=%d bits=%d: got %d, want %d", k.Name, words, xb, got[1], w1)
					}
				}
			}
		}
	}
}

// cycle returns n bytes repeating p.
func cycle(p []byte, n int) []byte {
	c := make([]byte, n)
	for i := range c {
		c[i] = p[i%len(p)]
	}
	return c
}
