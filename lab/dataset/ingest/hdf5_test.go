package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

// writeH5 is the h5py program the tests write their HDF5 files with, as
// ann-benchmarks' own datasets.py does (train, test, neighbors, distances,
// the distance attribute). Arguments: OUT.hdf5 DTYPE COMPRESSION
// DISTANCE, then for each dataset NAME ROWS COLS KIND RAWFILE (KIND f for
// little-endian float32, i for int32).
const writeH5 = `
import sys, h5py, numpy
out, dtype, comp, distance = sys.argv[1:5]
rest = sys.argv[5:]
with h5py.File(out, "w") as f:
    if distance != "-":
        f.attrs["distance"] = distance
    for i in range(0, len(rest), 5):
        name, rows, cols, kind, raw = rest[i:i+5]
        a = numpy.fromfile(raw, dtype="<f4" if kind == "f" else "<i4").reshape(int(rows), int(cols))
        if kind == "f":
            a = a.astype(dtype)
        if comp == "gzip":
            f.create_dataset(name, data=a, chunks=(min(64, int(rows)), int(cols)), compression="gzip")
        else:
            f.create_dataset(name, data=a)
`

type h5Set struct {
	name string
	f32  *vec.Matrix
	ids  [][]int32
}

func writeH5File(t *testing.T, dtype, comp, distance string, sets ...h5Set) string {
	t.Helper()
	testenv.Need(t, testenv.H5py)
	dir := t.TempDir()
	out := filepath.Join(dir, "set.hdf5")
	args := []string{"-c", writeH5, out, dtype, comp, distance}
	for i, s := range sets {
		var b []byte
		var rows, cols int
		kind := "f"
		if s.f32 != nil {
			rows, cols = s.f32.N, s.f32.Dim
			for _, x := range s.f32.Data {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		} else {
			kind, rows, cols = "i", len(s.ids), len(s.ids[0])
			for _, row := range s.ids {
				for _, id := range row {
					b = binary.LittleEndian.AppendUint32(b, uint32(id))
				}
			}
		}
		raw := filepath.Join(dir, strconv.Itoa(i)+".raw")
		if err := os.WriteFile(raw, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, s.name, strconv.Itoa(rows), strconv.Itoa(cols), kind, raw)
	}
	if b, err := exec.Command(testenv.Python, args...).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v: %s", err, b)
	}
	return out
}

func sameMatrix(t *testing.T, what string, got, want *vec.Matrix) {
	t.Helper()
	if got == nil || got.N != want.N || got.Dim != want.Dim {
		t.Fatalf("%s: read %v, wrote %d×%d", what, got, want.N, want.Dim)
	}
	for i := 0; i < want.N; i++ {
		for j, x := range want.Row(i) {
			if math.Float32bits(got.Row(i)[j]) != math.Float32bits(x) {
				t.Fatalf("%s row %d component %d: read %v, wrote %v", what, i, j, got.Row(i)[j], x)
			}
		}
	}
}

// TestHDF5FromH5py writes ann-benchmarks files with h5py (float32 and
// float64, contiguous and gzip-chunked) and reads them back to the same
// vectors, neighbours and distance.
func TestHDF5FromH5py(t *testing.T) {
	base := makeSource(3000, 20, 2).vecs
	queries := makeSource(50, 20, 3).vecs
	nb := make([][]int32, queries.N)
	for i := range nb {
		nb[i] = []int32{int32(i), int32(2999 - i), 7}
	}
	for _, tc := range []struct{ dtype, comp string }{{"float32", "-"}, {"float64", "gzip"}} {
		t.Run(tc.dtype+"/"+tc.comp, func(t *testing.T) {
			path := writeH5File(t, tc.dtype, tc.comp, "angular", h5Set{name: "train", f32: base}, h5Set{name: "test", f32: queries}, h5Set{name: "neighbors", ids: nb})
			var last int64
			a, err := ReadHDF5(context.Background(), path, HDF5Options{Python: testenv.Python, Progress: func(done, total int64) { last = done }})
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "train", a.Base, base)
			sameMatrix(t, "test", a.Queries, queries)
			if len(a.Neighbors) != len(nb) || a.Neighbors[5][1] != 2994 || a.Distance != "angular" || last != 3000+50+50 {
				t.Errorf("neighbors %d rows (row 5: %v), distance %q, progress %d", len(a.Neighbors), a.Neighbors[5], a.Distance, last)
			}
		})
	}
}

func TestHDF5Errors(t *testing.T) {
	testenv.Need(t, testenv.H5py)
	m := func(rows ...[]float32) *vec.Matrix {
		out := vec.NewMatrix(len(rows), len(rows[0]))
		for i, r := range rows {
			copy(out.Row(i), r)
		}
		return out
	}
	good := m([]float32{1, 2}, []float32{3, 4})
	nan := float32(math.NaN())
	goodFile := writeH5File(t, "float32", "-", "euclidean", h5Set{name: "train", f32: good})
	raw, err := os.ReadFile(goodFile)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "truncated.hdf5")
	if err := os.WriteFile(truncated, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	notH5 := filepath.Join(t.TempDir(), "plain.hdf5")
	if err := os.WriteFile(notH5, []byte("train,test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		opt  HDF5Options
		is   error
		want string
	}{
		{"NaN", writeH5File(t, "float32", "-", "-", h5Set{name: "train", f32: m([]float32{1, 2}, []float32{3, nan})}), HDF5Options{},
			engine.ErrCorrupt, `dataset "train", row 1: component 1 is NaN`},
		{"float64 beyond float32", writeH5File(t, "float32", "-", "-", h5Set{name: "train", f32: m([]float32{float32(math.Inf(1)), 2})}), HDF5Options{},
			engine.ErrCorrupt, `row 0: component 0 is +Inf`},
		{"no train", goodFile, HDF5Options{Base: "base"},
			engine.ErrNotFound, `no dataset "base"`},
		{"dimensions differ", writeH5File(t, "float32", "-", "-", h5Set{name: "train", f32: good}, h5Set{name: "test", f32: m([]float32{1, 2, 3})}), HDF5Options{},
			engine.ErrDimension, `dataset "test" has 3 dimensions, "train" has 2`},
		{"neighbours out of range", writeH5File(t, "float32", "-", "-", h5Set{name: "train", f32: good}, h5Set{name: "test", f32: good}, h5Set{name: "neighbors", ids: [][]int32{{0}, {2}}}), HDF5Options{},
			engine.ErrCorrupt, `dataset "neighbors", row 1, column 0: id 2 outside 0…1`},
		{"neighbours for other queries", writeH5File(t, "float32", "-", "-", h5Set{name: "train", f32: good}, h5Set{name: "test", f32: good}, h5Set{name: "neighbors", ids: [][]int32{{0}}}), HDF5Options{},
			engine.ErrCorrupt, `has 1 rows for 2 queries`},
		{"ids as vectors", writeH5File(t, "float32", "-", "-", h5Set{name: "train", ids: [][]int32{{1, 2}}}), HDF5Options{},
			engine.ErrInvalidArgument, `dataset "train" holds int32, not floats`},
		{"truncated", truncated, HDF5Options{},
			engine.ErrCorrupt, `not a readable HDF5 file`},
		{"not HDF5", notH5, HDF5Options{},
			engine.ErrCorrupt, `not a readable HDF5 file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Python = testenv.Python
			_, err := ReadHDF5(context.Background(), tc.path, tc.opt)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("got %v\nwant %v containing %q and the file name", err, tc.is, tc.want)
			}
		})
	}
}

func TestMetricOf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want engine.Metric
		ok   bool
	}{{"angular", engine.Cosine, true}, {"euclidean", engine.L2, true}, {"dot", engine.Dot, true}, {"jaccard", 0, false}, {"", 0, false}} {
		got, err := MetricOf(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("MetricOf(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// FuzzReadH5Stream feeds the decoder of h5py's stream arbitrary bytes
// after valid descriptions: an error or shapes that hold, never a panic.
func FuzzReadH5Stream(f *testing.F) {
	f.Add([]byte(`{"attrs":{"distance":"angular"},"datasets":{"train":{"shape":[2,2],"kind":"f","dtype":"float32"}}}` + "\n" + "\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40"))
	f.Add([]byte(`{"attrs":{},"datasets":{"train":{"shape":[1,1],"kind":"f","dtype":"float32"},"test":{"shape":[1,1],"kind":"f","dtype":"float32"},"neighbors":{"shape":[1,1],"kind":"i","dtype":"int32"}}}` + "\n" + "\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x00\x00"))
	f.Add([]byte(`{"datasets":{"train":{"shape":[3000000000,1],"kind":"f"}}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := readH5Stream(bufio.NewReader(bytes.NewReader(b)), "fuzz.hdf5", HDF5Options{Base: "train", Queries: "test", Neighbors: "neighbors"})
		if err != nil {
			return
		}
		if a.Base == nil || len(a.Base.Data) != a.Base.N*a.Base.Dim || a.Base.N < 1 {
			t.Fatalf("base %v", a.Base)
		}
		for _, row := range a.Neighbors {
			for _, id := range row {
				if id < 0 || int(id) >= a.Base.N {
					t.Fatalf("neighbour %d of %d rows", id, a.Base.N)
				}
			}
		}
	})
}
