package store

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

var update = flag.Bool("update", false, "rewrite testdata/small.vec")

// goldenMatrix is exactly representable, and written under L2 (stored as
// given), so the file's bytes do not depend on the machine.
func goldenMatrix() *vec.Matrix {
	m := vec.NewMatrix(5, 3)
	for i := range m.Data {
		m.Data[i] = float32(i)*0.5 - 3
	}
	return m
}

// TestFormatGolden pins format version 2's bytes: the rows at offset
// 4096, one CRC each, the file a whole number of pages. -update rewrites
// the file (only with a new format version).
func TestFormatGolden(t *testing.T) {
	mem := vfs.NewMem()
	if err := WriteMatrixFS(mem, "small.vec", goldenMatrix(), engine.L2); err != nil {
		t.Fatal(err)
	}
	got, _ := vfs.ReadFile(mem, "small.vec")
	path := filepath.Join("testdata", "small.vec")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("vector file differs from %s", path)
	}
	if len(got)%pageSize != 0 || string(got[:8]) != Magic {
		t.Fatalf("%d bytes, magic %q", len(got), got[:8])
	}
	f, err := Open(path, Options{NoCacheProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := goldenMatrix()
	dst := make([]float32, 3)
	for i := 0; i < m.N; i++ {
		v, err := f.Vector(dst, engine.ID(i))
		if err != nil || !slicesEqual(v, m.Row(i)) {
			t.Fatalf("vector %d: %v, %v", i, v, err)
		}
	}
	if err := f.Verify(); err != nil {
		t.Fatal(err)
	}
	// A flipped byte in a row's checksum passes the row reads of other
	// rows but not Verify's section checksum.
	bad := bytes.Clone(want)
	bad[dataOffset+4*3] ^= 1 // row 0's CRC
	p := filepath.Join(t.TempDir(), "bad.vec")
	os.WriteFile(p, bad, 0o644)
	g, err := Open(p, Options{NoCacheProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Verify(); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Verify of a bad row checksum: %v", err)
	}
	// Version 1's header (same magic, version 1 at offset 8) is refused
	// as a version, not read.
	v1 := bytes.Clone(want)
	v1[8] = 1
	os.WriteFile(p, v1, 0o644)
	if _, err := Open(p, Options{NoCacheProbe: true}); !errors.Is(err, engine.ErrVersion) {
		t.Fatalf("version 1: %v", err)
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzOpen opens arbitrary bytes as a vector file and reads every vector:
// errors must wrap ErrCorrupt or ErrVersion and name the file; no panic.
// Seeded from testdata/small.vec.
func FuzzOpen(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "small.vec"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:dataOffset+20])
	f.Add(good[:100])
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "fuzz.vec")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ok := func(err error) bool {
			return (errors.Is(err, engine.ErrCorrupt) || errors.Is(err, engine.ErrVersion)) && strings.Contains(err.Error(), p)
		}
		v, err := Open(p, Options{NoCacheProbe: true})
		if err != nil {
			if !ok(err) {
				t.Fatalf("Open: %v", err)
			}
			return
		}
		defer v.Close()
		dst := make([]float32, v.Dim())
		for i := 0; i < v.Len(); i++ {
			if _, err := v.Vector(dst, engine.ID(i)); err != nil && !ok(err) {
				t.Fatalf("vector %d: %v", i, err)
			}
		}
		if err := v.Verify(); err != nil && !ok(err) {
			t.Fatalf("Verify: %v", err)
		}
	})
}
