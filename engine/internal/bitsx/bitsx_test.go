package bitsx

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

func randCodes(r *rand.Rand, n int, max int) []byte {
	c := make([]byte, n)
	for i := range c {
		c[i] = byte(r.IntN(max + 1))
	}
	return c
}

func refDot(x, y []byte) int64 {
	var s int64
	for i := range x {
		s += int64(x[i]) * int64(y[i])
	}
	return s
}

func refSq(x, y []byte) int64 {
	var s int64
	for i := range x {
		d := int64(x[i]) - int64(y[i])
		s += d * d
	}
	return s
}

var dims = []int{1, 3, 7, 8, 63, 64, 65, 96, 100, 384, 768, 1536}

func TestByteKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, max := range []int{1, 15, 127, 255} {
		for _, d := range dims {
			t.Run(fmt.Sprintf("max%d/d%d", max, d), func(t *testing.T) {
				x, y := randCodes(r, d, max), randCodes(r, d, max)
				if got, want := int64(DotBytes(x, y)), refDot(x, y); got != want {
					t.Errorf("DotBytes = %d, want %d", got, want)
				}
				if got, want := int64(SqDiffBytes(x, y)), refSq(x, y); got != want {
					t.Errorf("SqDiffBytes = %d, want %d", got, want)
				}
			})
		}
	}
	// Extremes: all 255 at the largest supported dimension stays exact.
	x := make([]byte, 1536)
	for i := range x {
		x[i] = 255
	}
	if got := int64(DotBytes(x, x)); got != 255*255*1536 {
		t.Errorf("DotBytes(255s) = %d, want %d", got, 255*255*1536)
	}
}

func TestNibbleKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range dims {
		x, y := randCodes(r, d, 15), randCodes(r, d, 15)
		px, py := make([]byte, (d+1)/2), make([]byte, (d+1)/2)
		PackNibbles(px, x)
		PackNibbles(py, y)
		back := make([]byte, d)
		UnpackNibbles(back, px)
		for i := range x {
			if back[i] != x[i] {
				t.Fatalf("d=%d: unpack[%d] = %d, want %d", d, i, back[i], x[i])
			}
		}
		if got, want := int64(DotNibbles(px, py)), refDot(x, y); got != want {
			t.Errorf("d=%d: DotNibbles = %d, want %d", d, got, want)
		}
		if got, want := int64(SqDiffNibbles(px, py)), refSq(x, y); got != want {
			t.Errorf("d=%d: SqDiffNibbles = %d, want %d", d, got, want)
		}
	}
}

func TestPlaneKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range dims {
		words := (d + 63) / 64
		for _, xb := range []int{1, 2, 4} {
			for _, yb := range []int{1, 2, 4} {
				x, y := randCodes(r, d, 1<<xb-1), randCodes(r, d, 1<<yb-1)
				// Guard bytes after each code must not be read into the result.
				px := make([]byte, xb*words*8+8)
				py := make([]byte, yb*words*8+8)
				for i := range px {
					px[i] = 0xFF
				}
				for i := range py {
					py[i] = 0xFF
				}
				PackPlanes(px, x, xb, words)
				PackPlanes(py, y, yb, words)
				back := make([]byte, d)
				UnpackPlanes(back, px, xb, words)
				for i := range x {
					if back[i] != x[i] {
						t.Fatalf("d=%d b=%d: unpack[%d] = %d, want %d", d, xb, i, back[i], x[i])
					}
				}
				want := refDot(x, y)
				if got := DotPlanes(px, xb, py, yb, words); got != want {
					t.Errorf("d=%d %dx%d: DotPlanes = %d, want %d", d, xb, yb, got, want)
				}
				if xb == 1 && yb == 4 {
					if got := Dot1x4(py, px, words); got != want {
						t.Errorf("d=%d: Dot1x4 = %d, want %d", d, got, want)
					}
				}
				if xb == 1 {
					ones := 0
					for _, c := range x {
						ones += int(c)
					}
					if got := PopCount(px[:words*8]); got != ones {
						t.Errorf("d=%d: PopCount = %d, want %d", d, got, ones)
					}
				}
			}
		}
	}
}

var sink int64

// BenchmarkKernels reports ns per comparison by code width and dimension.
// Hypothesis: 1-bit × 4-bit popcount is ~an order of magnitude cheaper per
// comparison than the int8 byte dot product at the same dimension.
func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{96, 128, 384, 768, 1536} {
		words := (d + 63) / 64
		x8, y8 := randCodes(r, d, 127), randCodes(r, d, 127)
		b.Run(fmt.Sprintf("int8-dot/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += int64(DotBytes(x8, y8))
			}
		})
		x4, y4 := make([]byte, (d+1)/2), make([]byte, (d+1)/2)
		PackNibbles(x4, randCodes(r, d, 15))
		PackNibbles(y4, randCodes(r, d, 15))
		b.Run(fmt.Sprintf("int4-dot/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += int64(DotNibbles(x4, y4))
			}
		})
		q := make([]byte, 4*words*8)
		PackPlanes(q, randCodes(r, d, 15), 4, words)
		d1 := make([]byte, words*8)
		PackPlanes(d1, randCodes(r, d, 1), 1, words)
		b.Run(fmt.Sprintf("1bit-x-4bit/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += Dot1x4(q, d1, words)
			}
		})
		d2 := make([]byte, 2*words*8)
		PackPlanes(d2, randCodes(r, d, 3), 2, words)
		b.Run(fmt.Sprintf("2bit-x-4bit/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += DotPlanes(d2, 2, q, 4, words)
			}
		})
		d4 := make([]byte, 4*words*8)
		PackPlanes(d4, randCodes(r, d, 15), 4, words)
		b.Run(fmt.Sprintf("4bit-x-4bit/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += DotPlanes(d4, 4, q, 4, words)
			}
		})
		b.Run(fmt.Sprintf("1bit-x-1bit/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				sink += int64(AndPopCount(d1, d1))
			}
		})
	}
}

// TestPackPlanes compares PackPlanes (eight components per multiply) with
// the plain bit-by-bit loop, on dirty destination buffers, and checks
// UnpackPlanes inverts it.
func TestPackPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, b := range []int{1, 2, 3, 4, 5, 8} {
		for _, d := range dims {
			words := (d + 63) / 64
			codes := randCodes(r, d, 1<<b-1)
			want := make([]byte, b*words*8)
			for i, c := range codes {
				for p := 0; p < b; p++ {
					if c&(1<<p) != 0 {
						want[p*words*8+i/8] |= 1 << (i % 8)
					}
				}
			}
			got := make([]byte, b*words*8)
			for i := range got {
				got[i] = 0xa5
			}
			PackPlanes(got, codes, b, words)
			if !bytes.Equal(got, want) {
				t.Fatalf("bits %d dim %d: PackPlanes = %x, want %x", b, d, got, want)
			}
			back := make([]byte, d)
			UnpackPlanes(back, got, b, words)
			if !bytes.Equal(back, codes) {
				t.Fatalf("bits %d dim %d: UnpackPlanes does not invert PackPlanes", b, d)
			}
		}
	}
}
