package blockfile

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// writeAligned writes a header section, then two sections each starting
// on a 64-byte boundary, and returns their offsets.
func writeAligned(t *testing.T, fsys vfs.FS, path string) (offs []int64) {
	t.Helper()
	w, err := Create(fsys, path, testMagic, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Section("HEAD", []byte("abc")); err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]byte{bytes.Repeat([]byte{7}, 50), []byte("x")} {
		want := w.Offset() + PadSize(w.Offset(), 64)
		if err := w.Pad(64); err != nil {
			t.Fatal(err)
		}
		if w.Offset() != want || w.Offset()%64 != 0 {
			t.Fatalf("after Pad: offset %d, PadSize predicted %d", w.Offset(), want)
		}
		offs = append(offs, w.Offset())
		if err := w.Section("DATA", d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Pad(1); err != nil { // align 1: nothing to do
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return offs
}

var update = flag.Bool("update", false, "rewrite testdata/aligned.vlt")

func TestPadAndRandomAccess(t *testing.T) {
	m := vfs.NewMem()
	offs := writeAligned(t, m, "f")
	b, _ := vfs.ReadFile(m, "f")
	// The bytes are pinned (the framing never changes) and seed FuzzReader.
	golden := filepath.Join("testdata", "aligned.vlt")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("framing differs from %s (%v)", golden, err)
	}
	open := func(b []byte) *Reader {
		r, err := NewReader("f", bytes.NewReader(b), int64(len(b)), testMagic, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Sequential readers never see the padding.
	secs, err := readAll("f", b)
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, s := range secs {
		tags = append(tags, s.Tag)
	}
	if strings.Join(tags, ",") != "HEAD,DATA,DATA" {
		t.Fatalf("sections %v", tags)
	}
	r := open(b)
	s, err := r.SectionAt(offs[1], "DATA")
	if err != nil || string(s.Data) != "x" {
		t.Fatalf("SectionAt: %q, %v", s.Data, err)
	}
	if _, err := r.SectionAt(offs[1], "HEAD"); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("SectionAt with the wrong tag: %v", err)
	}
	if _, err := r.SectionAt(offs[0]+1, ""); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("SectionAt off a section boundary: %v", err)
	}
	raw := b[offs[0] : offs[0]+SectionHeaderSize+50+SectionTrailer]
	if s, err := r.DecodeSection(raw, offs[0], "DATA"); err != nil || len(s.Data) != 50 {
		t.Fatalf("DecodeSection: %d bytes, %v", len(s.Data), err)
	}
	for name, bad := range map[string][]byte{
		"short":     raw[:len(raw)-1],
		"long":      b[offs[0] : offs[0]+SectionHeaderSize+50+SectionTrailer+1],
		"flipped":   flip(raw, SectionHeaderSize+3),
		"tiny":      raw[:5],
		"wrong tag": flip(raw, 0),
	} {
		if _, err := r.DecodeSection(bad, offs[0], "DATA"); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "offset") {
			t.Errorf("DecodeSection of a %s section: %v", name, err)
		}
	}
	// The end marker records every section written, padding included.
	r = open(b)
	var n uint64
	for {
		if _, err := r.Skip(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	n = r.count
	if err := open(b).CheckEnd(n); err != nil {
		t.Fatalf("CheckEnd(%d): %v", n, err)
	}
	if err := open(b).CheckEnd(n + 1); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("CheckEnd with the wrong count: %v", err)
	}
	cut := b[:len(b)-3]
	if err := open(cut).CheckEnd(n); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("CheckEnd of a truncated file: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x01
	return c
}

// TestSkip checks that Skip verifies headers and lengths only, and still
// ends with the end marker's checks.
func TestSkip(t *testing.T) {
	m := vfs.NewMem()
	if err := writeTest(t, m, "f"); err != nil {
		t.Fatal(err)
	}
	b, _ := vfs.ReadFile(m, "f")
	r, err := NewReader("f", bytes.NewReader(flip(b, len(b)-EndSize-10)), int64(len(b)), testMagic, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		s, err := r.Skip()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Tag)
	}
	if strings.Join(got, ",") != "AAAA,EMPT,BBBB" {
		t.Fatalf("skipped %v", got)
	}
	r, _ = NewReader("f", bytes.NewReader(b[:len(b)-1]), int64(len(b)-1), testMagic, 1)
	for err == nil {
		_, err = r.Skip()
	}
	if !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("Skip over a truncated file: %v", err)
	}
}

func TestAppendMatchesWriter(t *testing.T) {
	m := vfs.NewMem()
	if err := writeTest(t, m, "f"); err != nil {
		t.Fatal(err)
	}
	want, _ := vfs.ReadFile(m, "f")
	var ps []Payload
	for _, s := range testSections {
		ps = append(ps, Payload{s.tag, s.data})
	}
	got, err := Append([]byte("prefix"), testMagic, 1, ps...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
		t.Fatal("Append's bytes differ from the Writer's")
	}
	for _, bad := range []struct {
		magic string
		v     uint32
		tag   string
	}{{"short", 1, "AAAA"}, {testMagic, 0, "AAAA"}, {testMagic, 1, "END!"}, {testMagic, 1, "PAD "}, {testMagic, 1, "TOOLONG"}} {
		if _, err := Append(nil, bad.magic, bad.v, Payload{Tag: bad.tag}); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("Append(%q, %d, %q): %v", bad.magic, bad.v, bad.tag, err)
		}
	}
}
