package blockfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

const testMagic = "VLTEST\x00\x01"

var testSections = []struct {
	tag  string
	data []byte
}{
	{"AAAA", []byte("hello")},
	{"EMPT", nil},
	{"BBBB", bytes.Repeat([]byte{1, 2, 3}, 100)},
}

func writeTest(t testing.TB, fsys vfs.FS, path string) error {
	w, err := Create(fsys, path, testMagic, 1)
	if err != nil {
		return err
	}
	defer w.Abort()
	for _, s := range testSections[:2] {
		if err := w.Section(s.tag, s.data); err != nil {
			return err
		}
	}
	sw, err := w.Begin("BBBB", int64(len(testSections[2].data)))
	if err != nil {
		return err
	}
	for i := 0; i < len(testSections[2].data); i += 7 { // streamed in pieces
		if _, err := sw.Write(testSections[2].data[i:min(i+7, len(testSections[2].data))]); err != nil {
			return err
		}
	}
	if err := sw.Close(); err != nil {
		return err
	}
	return w.Commit()
}

func readAll(name string, b []byte) ([]Section, error) {
	r, err := NewReader(name, bytes.NewReader(b), int64(len(b)), testMagic, 1)
	if err != nil {
		return nil, err
	}
	var out []Section
	for {
		s, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

func TestRoundTrip(t *testing.T) {
	m := vfs.NewMem()
	if err := writeTest(t, m, "d/f"); err != nil {
		t.Fatal(err)
	}
	b, err := vfs.ReadFile(m, "d/f")
	if err != nil {
		t.Fatal(err)
	}
	secs, err := readAll("d/f", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != len(testSections) {
		t.Fatalf("read %d sections, want %d", len(secs), len(testSections))
	}
	for i, s := range secs {
		if s.Tag != testSections[i].tag || !bytes.Equal(s.Data, testSections[i].data) {
			t.Errorf("section %d = %q %q", i, s.Tag, s.Data)
		}
	}
	// Deterministic: a second write gives the same bytes, and no temp file is left.
	if err := writeTest(t, m, "d/g"); err != nil {
		t.Fatal(err)
	}
	b2, _ := vfs.ReadFile(m, "d/g")
	if !bytes.Equal(b, b2) {
		t.Fatal("two writes of the same sections differ")
	}
	names, _ := m.List("d")
	if len(names) != 2 {
		t.Fatalf("files left: %v", names)
	}
	// NextInfo streams and verifies without keeping data.
	r, f, err := Open(m, "d/f", testMagic, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := r.NextInfo()
	if err != nil || s.Data != nil || s.Size != 5 || s.PayloadOffset() != HeaderSize+SectionHeaderSize {
		t.Fatalf("NextInfo = %+v, %v", s, err)
	}
}

func TestCorruption(t *testing.T) {
	m := vfs.NewMem()
	if err := writeTest(t, m, "f"); err != nil {
		t.Fatal(err)
	}
	good, _ := vfs.ReadFile(m, "f")
	t.Run("flip", func(t *testing.T) {
		for i := range good {
			for _, bit := range []byte{0x01, 0x80} {
				b := append([]byte(nil), good...)
				b[i] ^= bit
				_, err := readAll("f", b)
				if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
					t.Fatalf("flip byte %d bit %#x: got %v, want ErrCorrupt or ErrVersion", i, bit, err)
				}
			}
		}
	})
	t.Run("cut", func(t *testing.T) {
		for n := 0; n < len(good); n++ {
			_, err := readAll("f", good[:n])
			if !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("cut at %d: got %v, want ErrCorrupt", n, err)
			}
		}
		_, err := readAll("f", append(append([]byte(nil), good...), 0))
		if !errors.Is(err, engine.ErrCorrupt) {
			t.Fatalf("trailing byte: got %v", err)
		}
	})
	t.Run("version", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[8] = 9
		_, err := readAll("f", b)
		if !errors.Is(err, engine.ErrVersion) {
			t.Fatalf("version 9: got %v, want ErrVersion", err)
		}
	})
}

func TestCrashAndErrors(t *testing.T) {
	m := vfs.NewMem()
	if err := writeTest(t, m, "d/f"); err != nil {
		t.Fatal(err)
	}
	want, _ := vfs.ReadFile(m, "d/f")
	// Crash right after Commit: the file is durable.
	c := m.CrashClone()
	got, err := vfs.ReadFile(c, "d/f")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after crash: %v", err)
	}
	// Count the operations of a rewrite, then fail each one in turn.
	cnt := vfs.FailAfter(-1)
	if err := writeTest(t, vfs.NewErrorFS(m, cnt), "d/f"); err != nil {
		t.Fatal(err)
	}
	ops := cnt.Count()
	for n := 0; n < ops; n++ {
		err := writeTest(t, vfs.NewErrorFS(m, vfs.FailAfter(n)), "d/f")
		if !errors.Is(err, vfs.ErrInjected) {
			t.Fatalf("failing operation %d of %d: got %v", n, ops, err)
		}
		for _, fsys := range []*vfs.MemFS{m, m.CrashClone()} {
			got, err := vfs.ReadFile(fsys, "d/f")
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("failing operation %d: the committed file changed (%v)", n, err)
			}
		}
	}
}

func TestBadUse(t *testing.T) {
	m := vfs.NewMem()
	if _, err := Create(m, "f", "short", 1); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("short magic: %v", err)
	}
	w, err := Create(m, "f", testMagic, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Section("TOOLONG", nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("long tag: %v", err)
	}
	sw, _ := w.Begin("AAAA", 3)
	if _, err := sw.Write([]byte("abcd")); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("overflow: %v", err)
	}
	if err := sw.Close(); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("short section: %v", err)
	}
}

func FuzzReader(f *testing.F) {
	m := vfs.NewMem()
	if err := writeTest(f, m, "f"); err != nil {
		f.Fatal(err)
	}
	good, _ := vfs.ReadFile(m, "f")
	f.Add(good)
	f.Add(good[:20])
	// A file with padding, read at recorded offsets (testdata/aligned.vlt,
	// written by TestPadAndRandomAccess's layout).
	aligned, err := os.ReadFile(filepath.Join("testdata", "aligned.vlt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(aligned)
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(err error) {
			if err != nil && err != io.EOF && !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
				t.Fatalf("error not wrapping ErrCorrupt/ErrVersion: %v", err)
			}
		}
		_, err := readAll("f", b)
		check(err)
		// The random-access path: Skip to the end, then every offset a
		// format could have recorded, as SectionAt and DecodeSection.
		r, err := NewReader("f", bytes.NewReader(b), int64(len(b)), testMagic, 1)
		check(err)
		if err != nil {
			return
		}
		for err == nil {
			_, err = r.Skip()
		}
		check(err)
		check(r.CheckEnd(r.count))
		for off := int64(0); off < int64(len(b)); off += 61 {
			_, err := r.SectionAt(off, "")
			check(err)
			_, err = r.DecodeSection(b[off:min(int64(len(b)), off+100)], off, "DATA")
			check(err)
		}
	})
}
