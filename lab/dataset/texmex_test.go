package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// rec encodes one TEXMEX record with the given header and 4-byte values.
func rec(dim int32, vals ...uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(dim))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func f(x float32) uint32 { return math.Float32bits(x) }

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func TestFvecsRoundTrip(t *testing.T) {
	m := &vec.Matrix{N: 3, Dim: 2, Stride: 3, Data: []float32{1, 2, 99, 3, 4, 99, -5, 0.5, 99}}
	var buf bytes.Buffer
	if err := WriteFvecs(&buf, m); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 3*(4+8) {
		t.Fatalf("wrote %d bytes, want 36", buf.Len())
	}
	got, err := ReadFvecs(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 3 || got.Dim != 2 || !slices.Equal(got.Data, []float32{1, 2, 3, 4, -5, 0.5}) {
		t.Fatalf("read back %+v", got)
	}
	rows := [][]int32{{1, -2, 3}, {4, 5, 6}}
	buf.Reset()
	if err := WriteIvecs(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadIvecs(&buf)
	if err != nil || len(back) != 2 || !slices.Equal(back[0], rows[0]) || !slices.Equal(back[1], rows[1]) {
		t.Fatalf("ivecs read back %v, %v", back, err)
	}
	if err := WriteIvecs(&buf, [][]int32{{1}, {1, 2}}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("ragged ivecs: %v", err)
	}
}

func TestFvecsMalformed(t *testing.T) {
	good := rec(2, f(1), f(2))
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string // substring naming what and where
	}{
		{"empty", nil, engine.ErrEmpty, "no records"},
		{"zero dim", rec(0), engine.ErrCorrupt, "record 0 at offset 0: bad dimension header 0"},
		{"negative dim", rec(-3), engine.ErrCorrupt, "bad dimension header -3"},
		{"huge dim", rec(1 << 30), engine.ErrCorrupt, "bad dimension header"},
		{"short header", cat(good, []byte{2, 0}), engine.ErrCorrupt, "record 1 at offset 12: truncated dimension header (2 of 4 bytes)"},
		{"short body", cat(good, rec(2, f(1))), engine.ErrCorrupt, "record 1 at offset 12: truncated: 4 of 8 body bytes"},
		{"header only", cat(good, rec(2)), engine.ErrCorrupt, "record 1 at offset 12: truncated: 0 of 8"},
		{"inconsistent", cat(good, good, rec(3, f(1), f(2), f(3))), engine.ErrCorrupt, "record 2 at offset 24: dimension 3, earlier records have 2"},
		{"NaN", cat(good, rec(2, f(1), f(float32(math.NaN())))), engine.ErrCorrupt, "record 1 at offset 12: component 1"},
		{"Inf", rec(1, f(float32(math.Inf(-1)))), engine.ErrCorrupt, "component 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFvecs(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
			if tc.name == "NaN" || tc.name == "Inf" {
				return // ivecs has no NaN
			}
			_, err = ReadIvecs(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("ivecs error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestWriteDirAndLoad(t *testing.T) {
	ds, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Truth(ds, 10, engine.Cosine, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := WriteDir(dir, ds, tr)
	if err != nil {
		t.Fatal(err)
	}
	base, err := LoadFvecs(files.Base)
	if err != nil || !slices.Equal(base.Data, ds.Base.Data) {
		t.Fatalf("base: %v", err)
	}
	gt, err := LoadIvecs(files.Truth)
	if err != nil || len(gt) != ds.Queries.N || int(gt[3][0]) != int(tr.IDs[3][0]) {
		t.Fatalf("truth: %v", err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded.Queries.Data, ds.Queries.Data) || loaded.Config.N != ds.Config.N || loaded.Config.Dim != 32 {
		t.Fatalf("Load: %+v", loaded.Config)
	}
	if _, err := LoadFvecs(dir + "/missing.fvecs"); err == nil {
		t.Fatal("missing file accepted")
	}
}

func FuzzReadFvecs(f *testing.F) {
	f.Add(rec(2, math.Float32bits(1), math.Float32bits(2)))
	f.Add(cat(rec(1, 5), rec(1, 7)))
	f.Add(rec(0))
	f.Add([]byte{1, 0, 0})
	testdataSeeds(f, "glove-3k/base.fvecs", "glove-3k/query.fvecs")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadFvecs(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteFvecs(&out, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}

func FuzzReadIvecs(f *testing.F) {
	f.Add(rec(3, 1, 2, 3))
	f.Add(cat(rec(1, 5), rec(2, 7, 8)))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	testdataSeeds(f, "glove-3k/groundtruth.ivecs")
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ReadIvecs(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteIvecs(&out, rows); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}
