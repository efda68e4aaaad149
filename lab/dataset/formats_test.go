package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// npyFixture reads a file numpy 1.24 wrote (testdata/npy, made with
// numpy.save and numpy.lib.format.write_array).
func npyFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "npy", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNpyNumpyFiles(t *testing.T) {
	// numpy: np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
	want := make([]float32, 12)
	for i := range want {
		want[i] = float32(i)/4 - 1
	}
	for _, name := range []string{"f4.npy", "f4-bigendian.npy", "f4-v2.npy"} {
		m, err := ReadNpy(bytes.NewReader(npyFixture(t, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.N != 3 || m.Dim != 4 || !slices.Equal(m.Data, want) {
			t.Fatalf("%s: %d×%d %v, want 3×4 %v", name, m.N, m.Dim, m.Data, want)
		}
	}
	m, err := ReadNpy(bytes.NewReader(npyFixture(t, "f8.npy")))
	if err != nil || m.N != 2 || m.Dim != 3 || !slices.Equal(m.Data, []float32{-2, -0.5, 1, 2.5, 4, 5.5}) {
		t.Fatalf("f8.npy: %+v, %v", m, err)
	}
	// The writer's bytes are numpy.save's.
	var buf bytes.Buffer
	if err := WriteNpy(&buf, &vec.Matrix{N: 3, Dim: 4, Stride: 4, Data: want}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), npyFixture(t, "f4.npy")) {
		t.Fatalf("WriteNpy differs from numpy.save:\n%q\n%q", buf.Bytes(), npyFixture(t, "f4.npy"))
	}
}

func TestNpyMalformed(t *testing.T) {
	good := npyFixture(t, "f4.npy")
	hdrEnd := 128 // numpy 1.24 pads this header to 128 bytes
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"empty", nil, engine.ErrEmpty, "empty stream"},
		{"wrong magic", append([]byte("\x93NUMPZ"), good[6:]...), engine.ErrCorrupt, `wrong magic "\x93NUMPZ"`},
		{"fvecs given as npy", rec(2, f(1), f(2)), engine.ErrCorrupt, "wrong magic"},
		{"version 4", append(append([]byte{}, good[:6]...), append([]byte{4, 0}, good[8:]...)...), engine.ErrVersion, "format version 4.0"},
		{"short preamble", good[:5], engine.ErrCorrupt, "truncated preamble (5 of 8 bytes)"},
		{"truncated header", good[:60], engine.ErrCorrupt, "truncated header (50 of 118 bytes)"},
		{"fortran", npyFixture(t, "f4-fortran.npy"), engine.ErrCorrupt, "fortran_order is True"},
		{"1-d", npyFixture(t, "f4-1d.npy"), engine.ErrCorrupt, "shape [5]: want two dimensions"},
		{"int32", npyFixture(t, "i4.npy"), engine.ErrCorrupt, `element type "<i4"`},
		{"truncated row", good[:hdrEnd+16+5], engine.ErrCorrupt, "row 1 of 3 at offset 144: truncated: 5 of 16 bytes"},
		{"no rows", good[:hdrEnd], engine.ErrCorrupt, "row 0 of 3 at offset 128: truncated: 0 of 16"},
		{"trailing", append(slices.Clone(good), 0), engine.ErrCorrupt, "data continues at offset 176 past the 3 rows"},
		{"NaN", npyFixture(t, "f4-nan.npy"), engine.ErrCorrupt, "row 1 at offset 136: component 0 is NaN"},
		{"float64 beyond float32", npyFixture(t, "f8-huge.npy"), engine.ErrCorrupt, "component 1 is 1e+300, outside float32's range"},
		{"zero rows", npyFixture(t, "f4-empty.npy"), engine.ErrEmpty, "shape (0, 4): no rows"},
		{"header not a dict", npyHeader("[1, 2]"), engine.ErrCorrupt, "does not start with '{'"},
		{"header missing shape", npyHeader("{'descr': '<f4', 'fortran_order': False, }"), engine.ErrCorrupt, `no "shape" key`},
		{"header bad shape", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"), engine.ErrCorrupt, "is not a dimension"},
		{"header unterminated", npyHeader("{'descr': '<f4"), engine.ErrCorrupt, "unterminated string"},
		{"zero dim", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }"), engine.ErrCorrupt, "dim 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadNpy(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// npyHeader is a version 1.0 preamble around dict, with no data.
func npyHeader(dict string) []byte {
	b := []byte(npyMagic + "\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)+1))
	return append(append(b, dict...), '\n')
}

func TestBvecs(t *testing.T) {
	m := &vec.Matrix{N: 2, Dim: 3, Stride: 3, Data: []float32{0, 128, 255, 7, 8, 9}}
	var buf bytes.Buffer
	if err := WriteBvecs(&buf, m); err != nil {
		t.Fatal(err)
	}
	want := []byte{3, 0, 0, 0, 0, 128, 255, 3, 0, 0, 0, 7, 8, 9}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("wrote % x, want % x", buf.Bytes(), want)
	}
	got, err := ReadBvecs(&buf)
	if err != nil || !slices.Equal(got.Data, m.Data) || got.N != 2 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	for _, bad := range []float32{-1, 256, 1.5} {
		err := WriteBvecs(&buf, &vec.Matrix{N: 2, Dim: 1, Stride: 1, Data: []float32{1, bad}})
		if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "row 1 component 0") {
			t.Fatalf("WriteBvecs(%v): %v", bad, err)
		}
	}
	for _, tc := range []struct {
		in  []byte
		msg string
	}{
		{[]byte{2, 0, 0, 0, 1}, "record 0 at offset 0: truncated: 1 of 2 body bytes"},
		{[]byte{1, 0, 0, 0, 1, 2, 0, 0, 0, 1, 2}, "record 1 at offset 5: dimension 2, earlier records have 1"},
		{[]byte{0, 0, 0, 0}, "bad dimension header 0"},
	} {
		if _, err := ReadBvecs(bytes.NewReader(tc.in)); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ReadBvecs(% x): %v, want %q", tc.in, err, tc.msg)
		}
	}
}

// idxBytes encodes an IDX header of type typ and sizes, then data.
func idxBytes(typ byte, sizes []uint32, data ...byte) []byte {
	b := []byte{0, 0, typ, byte(len(sizes))}
	for _, s := range sizes {
		b = binary.BigEndian.AppendUint32(b, s)
	}
	return append(b, data...)
}

func TestIDX(t *testing.T) {
	// Two 2×3 "images": rows of 6.
	in := idxBytes(0x08, []uint32{2, 2, 3}, 0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255)
	m, err := ReadIDX(bytes.NewReader(in))
	if err != nil || m.N != 2 || m.Dim != 6 || m.Row(1)[5] != 255 {
		t.Fatalf("ReadIDX: %+v, %v", m, err)
	}
	var buf bytes.Buffer
	if err := WriteIDX(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadIDX(&buf)
	if err != nil || !slices.Equal(back.Data, m.Data) {
		t.Fatalf("round trip: %v", err)
	}
	labels, err := ReadIDX(bytes.NewReader(idxBytes(0x08, []uint32{3}, 9, 0, 4)))
	if err != nil || labels.N != 3 || labels.Dim != 1 || labels.Data[0] != 9 {
		t.Fatalf("labels: %+v, %v", labels, err)
	}
	fl := idxBytes(0x0D, []uint32{1, 2}, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0) // 1, -2 big-endian
	if m, err := ReadIDX(bytes.NewReader(fl)); err != nil || !slices.Equal(m.Data, []float32{1, -2}) {
		t.Fatalf("float32 IDX: %+v, %v", m, err)
	}
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"empty", nil, engine.ErrEmpty, "empty stream"},
		{"wrong magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, engine.ErrCorrupt, "wrong magic 01 00 08 01"},
		{"npy given as idx", npyHeader("{}"), engine.ErrCorrupt, "wrong magic"},
		{"int16", idxBytes(0x0B, []uint32{1}), engine.ErrCorrupt, "element type 0x0b"},
		{"no dims", []byte{0, 0, 8, 0}, engine.ErrCorrupt, "0 dimensions"},
		{"short sizes", []byte{0, 0, 8, 2, 0, 0, 0, 1}, engine.ErrCorrupt, "truncated sizes (4 of 8 bytes)"},
		{"zero size", idxBytes(0x08, []uint32{1, 0}), engine.ErrCorrupt, "size 1 of [1 0] is 0"},
		{"no rows", idxBytes(0x08, []uint32{0, 4}), engine.ErrEmpty, "no rows"},
		{"truncated row", idxBytes(0x08, []uint32{2, 3}, 1, 2, 3, 4), engine.ErrCorrupt, "row 1 of 2 at offset 15: truncated: 1 of 3 bytes"},
		{"trailing", idxBytes(0x08, []uint32{1, 1}, 1, 2), engine.ErrCorrupt, "data continues at offset 13"},
		{"NaN", idxBytes(0x0D, []uint32{1, 1}, 0x7f, 0xc0, 0, 0), engine.ErrCorrupt, "row 0 at offset 12: component 0 is NaN"},
		{"huge row", idxBytes(0x08, []uint32{1, 1 << 12, 1 << 12}), engine.ErrCorrupt, "a row of more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadIDX(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

const winkSmall = `{"precision":8,"l2NormIndex":2,"wordIndex":3,"size":3,"dimensions":2,"words":["a","b","c"],
"vectors":{"b":[0,2,2,1],"a":[3,4,5,0],"c":[-1,0,1,2]},"unkVector":[0,0,0,-1]}`

func TestWink(t *testing.T) {
	w, err := ReadWinkEmbeddings(strings.NewReader(winkSmall))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Words, []string{"a", "b", "c"}) || !slices.Equal(w.Vectors.Data, []float32{3, 4, 0, 2, -1, 0}) {
		t.Fatalf("got %v %v", w.Words, w.Vectors.Data)
	}
	tests := []struct {
		name, in string
		want     error
		msg      string
	}{
		{"empty", ``, engine.ErrCorrupt, "truncated"},
		{"not an object", `[1]`, engine.ErrCorrupt, `expected "{", got [`},
		{"no vectors", `{"size":1,"dimensions":2}`, engine.ErrEmpty, `no "vectors"`},
		{"vectors first", `{"vectors":{}}`, engine.ErrCorrupt, `"vectors" before a valid "dimensions"`},
		{"short row", strings.Replace(winkSmall, `[0,2,2,1]`, `[0,2,1]`, 1), engine.ErrCorrupt, `vectors entry 0 ("b"): 3 numbers, want 4`},
		{"index twice", strings.Replace(winkSmall, `[-1,0,1,2]`, `[-1,0,1,1]`, 1), engine.ErrCorrupt, `entry 2 ("c"): word index 1 used twice (also "b")`},
		{"index out of range", strings.Replace(winkSmall, `[-1,0,1,2]`, `[-1,0,1,3]`, 1), engine.ErrCorrupt, `word index 3 outside 0…2`},
		{"index missing", strings.Replace(winkSmall, `,"c":[-1,0,1,2]`, ``, 1), engine.ErrCorrupt, "2 of 3 word indices have vectors; index 2 has none"},
		{"norm disagrees", strings.Replace(winkSmall, `[3,4,5,0]`, `[3,4,6,0]`, 1), engine.ErrCorrupt, `stored norm 6, the vector's is 5`},
		{"overflow", strings.Replace(winkSmall, `[3,4,5,0]`, `[3e39,4,3e39,0]`, 1), engine.ErrCorrupt, "component 0 is 3e+39"},
		{"truncated", winkSmall[:100], engine.ErrCorrupt, "at byte"},
		{"not a number", strings.Replace(winkSmall, `[0,2,2,1]`, `[0,"x",2,1]`, 1), engine.ErrCorrupt, `entry 0 ("b")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadWinkEmbeddings(strings.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestHoldOut(t *testing.T) {
	m := vec.NewMatrix(50, 1)
	for i := range m.Data {
		m.Data[i] = float32(i)
	}
	b, q, br, qr, err := HoldOut(m, 5, 20, 7)
	if err != nil {
		t.Fatal(err)
	}
	if b.N != 20 || q.N != 5 || !slices.IsSorted(br) || !slices.IsSorted(qr) {
		t.Fatalf("sizes %d %d, rows %v %v", b.N, q.N, br, qr)
	}
	for _, r := range qr {
		if slices.Contains(br, r) {
			t.Fatalf("row %d is both a query and a base row", r)
		}
	}
	for i, r := range br {
		if b.Data[i] != float32(r) {
			t.Fatalf("base row %d is not source row %d", i, r)
		}
	}
	_, q2, _, qr2, _ := HoldOut(m, 5, 0, 7)
	_, _, _, qr3, _ := HoldOut(m, 5, 0, 8)
	if !slices.Equal(qr, qr2) || !slices.Equal(q.Data, q2.Data) {
		t.Fatal("the same seed held out different queries (or the base size changed them)")
	}
	if slices.Equal(qr, qr3) {
		t.Fatal("seeds 7 and 8 held out the same queries")
	}
	if _, _, _, _, err := HoldOut(m, 50, 0, 1); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("all rows as queries: %v", err)
	}
}

// testdataSeeds returns the first bytes of each file of the checked-in
// real data set, and npy fixtures, as fuzz seeds.
func testdataSeeds(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 2048)])
	}
}

func FuzzReadNpy(f *testing.F) {
	testdataSeeds(f, "npy/f4.npy", "npy/f8.npy", "npy/f4-bigendian.npy", "npy/f4-v2.npy", "npy/f4-fortran.npy",
		"npy/f4-nan.npy", "npy/f8-huge.npy", "npy/i4.npy", "npy/f4-1d.npy", "npy/f4-empty.npy")
	f.Add(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadNpy(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) && !errors.Is(err, engine.ErrVersion) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteNpy(&out, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadNpy(&out)
		if err != nil || back.N != m.N || back.Dim != m.Dim || !slices.Equal(back.Data, m.Data) {
			t.Fatalf("accepted input does not round-trip: %v", err)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(0x08, []uint32{2, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8))
	f.Add(idxBytes(0x0D, []uint32{1, 2}, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0))
	f.Add(idxBytes(0x08, []uint32{3}, 1, 2, 3))
	f.Add([]byte{0, 0, 8, 2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadIDX(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if b[2] != 0x08 {
			return // float32 files have no writer
		}
		var out bytes.Buffer
		if err := WriteIDX(&out, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadIDX(&out)
		if err != nil || !slices.Equal(back.Data, m.Data) || back.Dim != m.Dim {
			t.Fatalf("accepted input does not round-trip: %v", err)
		}
	})
}

func FuzzReadBvecs(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 0, 128, 255, 3, 0, 0, 0, 7, 8, 9})
	f.Add([]byte{1, 0, 0, 0})
	testdataSeeds(f, "glove-3k/base.fvecs")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadBvecs(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteBvecs(&out, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatal("accepted input does not round-trip")
		}
	})
}

func FuzzReadWink(f *testing.F) {
	f.Add([]byte(winkSmall))
	f.Add([]byte(`{"size":1,"dimensions":1,"vectors":{"x":[1,1,0]}}`))
	f.Add([]byte(`{"vectors":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := ReadWinkEmbeddings(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrEmpty) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if len(w.Words) != w.Vectors.N {
			t.Fatalf("%d words for %d vectors", len(w.Words), w.Vectors.N)
		}
		for i := 0; i < w.Vectors.N; i++ {
			if err := engine.CheckVector(w.Vectors.Row(i), w.Vectors.Dim, engine.L2); err != nil {
				t.Fatalf("row %d accepted: %v", i, err)
			}
		}
	})
}
