package quant

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

func TestRestoreRoundTrip(t *testing.T) {
	data := clustered(100, 40, 3, 4)
	for _, metric := range metrics {
		for _, mk := range makers {
			q, err := mk.train(data, metric)
			if err != nil {
				t.Fatal(err)
			}
			b, err := q.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			r, err := Restore(b)
			if err != nil {
				t.Fatalf("%s: %v", mk.name, err)
			}
			b2, _ := r.MarshalBinary()
			if !bytes.Equal(b, b2) {
				t.Fatalf("%s %v: re-marshalled bytes differ", mk.name, metric)
			}
			if r.String() != q.String() {
				t.Errorf("restored %q, want %q", r, q)
			}
			c1, c2 := make([]byte, q.CodeSize()), make([]byte, r.CodeSize())
			q1, q2 := make([]byte, q.QueryCodeSize()), make([]byte, r.QueryCodeSize())
			for i := 0; i < 10; i++ {
				_ = q.Encode(c1, data.Row(i))
				_ = r.Encode(c2, data.Row(i))
				_ = q.EncodeQuery(q1, data.Row(99-i))
				_ = r.EncodeQuery(q2, data.Row(99-i))
				if !bytes.Equal(c1, c2) || !bytes.Equal(q1, q2) {
					t.Fatalf("%s %v: restored quantizer encodes differently", mk.name, metric)
				}
				if q.Distance(q1, c1) != r.Distance(q2, c2) {
					t.Fatalf("%s: restored distances differ", mk.name)
				}
			}
		}
	}
}

func TestRestoreCorrupt(t *testing.T) {
	data := clustered(100, 40, 3, 4)
	sq, _ := TrainScalar(data, engine.Dot, ScalarConfig{})
	oq, _ := TrainOSQ(data, engine.L2, OSQConfig{Bits: 2})
	pq, _ := TrainPQ(data, engine.Cosine, PQConfig{M: 10, Bits: 2})
	for _, q := range []Quantizer{sq, oq, pq} {
		good, _ := q.MarshalBinary()
		name := strings.Fields(q.String())[0]
		// Every truncation is an error naming an offset, never a panic.
		for n := 0; n < len(good); n++ {
			_, err := Restore(good[:n])
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%s truncated to %d: %v", name, n, err)
			}
		}
		// Every single flipped byte is caught (by magic, version or CRC).
		for i := 0; i < len(good); i++ {
			bad := bytes.Clone(good)
			bad[i] ^= 0x5A
			_, err := Restore(bad)
			if err == nil {
				t.Fatalf("%s: flipped byte %d accepted", name, i)
			}
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
				t.Fatalf("%s: flipped byte %d: %v", name, i, err)
			}
		}
		// A newer version is refused as such, before the checksum is read.
		v3 := bytes.Clone(good)
		binary.LittleEndian.PutUint32(v3[8:], 3)
		if _, err := Restore(v3); !errors.Is(err, engine.ErrVersion) || !strings.Contains(err.Error(), "format version 3") {
			t.Errorf("%s version 3: %v", name, err)
		}
		// Trailing garbage is refused.
		if _, err := Restore(append(bytes.Clone(good), 0)); !errors.Is(err, engine.ErrCorrupt) {
			t.Errorf("%s trailing byte: %v", name, err)
		}
	}
	// A well-formed file with a nonsensical field (re-checksummed) names
	// it and its file offset: header 16, section header 12, then dim (4),
	// metric (1), bits at 33.
	magic, tag, body := sq.frame()
	body[5] = 5 // bits
	bad, err := marshal(magic, tag, body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(bad); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "Bits 5") || !strings.Contains(err.Error(), "offset 33") {
		t.Errorf("bits 5: %v", err)
	}
	// Version 1 of the framing (4-byte magic) is not read.
	if _, err := Restore([]byte("VQSQ\x01\x00\x00\x00abcdefgh")); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "magic") {
		t.Errorf("version 1 bytes: %v", err)
	}
	if _, err := Restore([]byte("XXXXabcdefgh")); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: %v", err)
	}
	good, _ := sq.MarshalBinary()
	if _, err := RestoreOSQ(good); !errors.Is(err, engine.ErrCorrupt) {
		t.Errorf("scalar bytes read as OSQ: %v", err)
	}
}

func FuzzRestore(f *testing.F) {
	for _, name := range goldenNames {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := Restore(b)
		if err != nil {
			return
		}
		c := make([]byte, q.CodeSize())
		qc := make([]byte, q.QueryCodeSize())
		v := make([]float32, q.Dim())
		v[0] = 1
		if err := q.Encode(c, v); err != nil {
			t.Fatal(err)
		}
		if err := q.EncodeQuery(qc, v); err != nil {
			t.Fatal(err)
		}
		_ = q.Distance(qc, c)
	})
}

var update = flag.Bool("update", false, "rewrite the golden quantizer files in testdata")

var goldenNames = []string{"scalar.vlq", "osq.vlq", "binary.vlq", "pq.vlq", "turbo.vlq"}

// goldenQuantizers are built from given parameters, not trained, so their
// bytes do not depend on the machine's float rounding.
func goldenQuantizers(t testing.TB) []Quantizer {
	sq, err := newScalar(8, engine.Dot, ScalarConfig{Bits: 7, ConfidenceInterval: 0.95, SampleSize: 100, Seed: 42}.WithDefaults(8), -1.5, 2.25)
	if err != nil {
		t.Fatal(err)
	}
	oq, err := NewOSQ([]float32{0.5, -0.25, 1, 0, 0.125, 2, -1, 0.75}, engine.L2, OSQConfig{Bits: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bq, err := newBinary(3, engine.Cosine, BinaryConfig{Encoding: TwoBits, Query: Scalar4Bits},
		[]float32{0.5, -0.25, 0}, []float32{0.125, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	// Two sub-spaces of two dimensions, 2 centroids each (Bits 1).
	pq, err := newPQ(4, engine.L2, PQConfig{M: 2, Bits: 1, Iters: 25, Seed: 7},
		[]float32{0, 0, 1, 1, -0.5, 0.25, 2, -2})
	if err != nil {
		t.Fatal(err)
	}
	tq, err := newTurbo(3, engine.Dot, TurboConfig{Kind: TurboQdrant, Bits: 4, Seed: 9, SampleSize: 8192}, qdrantCodebook(4),
		[]float32{0.5, -0.25, 0, 0.125}, []float32{1, 1.5, 0.75, 2})
	if err != nil {
		t.Fatal(err)
	}
	return []Quantizer{sq, oq, bq, pq, tq}
}

// TestFormatGolden pins the bytes of format version 2 and reads them
// back; -update rewrites them (only with a new format version).
func TestFormatGolden(t *testing.T) {
	for i, q := range goldenQuantizers(t) {
		got, err := q.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", goldenNames[i])
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
			t.Fatalf("%s: bytes differ from the golden file", path)
		}
		r, err := ReadFile(vfs.Default, path)
		if err != nil || r.String() != q.String() {
			t.Fatalf("%s: read back %v, %v", path, r, err)
		}
	}
}

// TestWriteFile round-trips quantizers through a file, and checks that a
// failed write (every step in turn) leaves the previous file durable (a
// failure after the rename, at the directory sync, may have replaced it
// but not durably: the crash image still holds the previous one) and that
// a damaged file's error names the file.
func TestWriteFile(t *testing.T) {
	qs := goldenQuantizers(t)
	m := vfs.NewMem()
	if err := WriteFile(m, "q", qs[0]); err != nil {
		t.Fatal(err)
	}
	want, _ := vfs.ReadFile(m, "q")
	steps := vfs.FailAfter(-1)
	if err := WriteFile(vfs.NewErrorFS(m, steps), "count", qs[1]); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < steps.Count(); n++ {
		if err := WriteFile(vfs.NewErrorFS(m, vfs.FailAfter(n)), "q", qs[1]); !errors.Is(err, vfs.ErrInjected) {
			t.Fatalf("step %d: %v", n, err)
		}
		if got, _ := vfs.ReadFile(m.CrashClone(), "q"); !bytes.Equal(got, want) {
			t.Fatalf("step %d: the previous file changed", n)
		}
	}
	for _, q := range qs {
		if err := WriteFile(m, "rt", q); err != nil {
			t.Fatal(err)
		}
		r, err := ReadFile(m, "rt")
		if err != nil || r.String() != q.String() {
			t.Fatalf("read back %v, %v", r, err)
		}
	}
	b, _ := vfs.ReadFile(m, "q")
	b[len(b)-30] ^= 1
	f, _ := m.Create("bad")
	f.Write(b)
	f.Close()
	if _, err := ReadFile(m, "bad"); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "bad") || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("damaged file: %v", err)
	}
	if _, err := ReadFile(m, "missing"); err == nil {
		t.Fatal("missing file read")
	}
	if err := WriteFile(m, "x", nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("nil quantizer: %v", err)
	}
}
