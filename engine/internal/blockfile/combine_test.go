package blockfile

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine/vfs"
)

func TestCRCCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {12, 4096}, {3, 1 << 16}, {100, 12345}} {
		a, b := make([]byte, n[0]), make([]byte, n[1])
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		want := Checksum(append(append([]byte(nil), a...), b...))
		if got := crcCombine(Checksum(a), Checksum(b), int64(len(b))); got != want {
			t.Errorf("combine of %d and %d bytes: %08x, want %08x", n[0], n[1], got, want)
		}
	}
}

// TestBeginStream checks that a streamed section gives the bytes of one
// declared up front, and PadBefore's two uses.
func TestBeginStream(t *testing.T) {
	payload := make([]byte, 10000)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	write := func(stream bool) []byte {
		m := vfs.NewMem()
		w, err := Create(m, "f", testMagic, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.PadBefore(SectionHeaderSize, 4096); err != nil {
			t.Fatal(err)
		}
		if w.Offset()+SectionHeaderSize != 4096 {
			t.Fatalf("payload would start at %d", w.Offset()+SectionHeaderSize)
		}
		var sw io.WriteCloser
		if stream {
			sw, err = w.BeginStream("ROWS")
		} else {
			sw, err = w.Begin("ROWS", int64(len(payload)))
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(payload); i += 999 {
			if _, err := sw.Write(payload[i:min(i+999, len(payload))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.PadBefore(EndSize, 4096); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		b, _ := vfs.ReadFile(m, "f")
		return b
	}
	a, b := write(false), write(true)
	if !bytes.Equal(a, b) {
		t.Fatal("streamed section differs from a declared one")
	}
	if len(a)%4096 != 0 {
		t.Fatalf("file of %d bytes does not end on a page", len(a))
	}
	secs, err := readAll("f", b)
	if err != nil || len(secs) != 1 || !bytes.Equal(secs[0].Data, payload) || secs[0].PayloadOffset() != 4096 {
		t.Fatalf("read back %d sections, %v", len(secs), err)
	}
}
