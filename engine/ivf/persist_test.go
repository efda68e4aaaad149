package ivf

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

var update = flag.Bool("update", false, "rewrite testdata/lists.ivf")

// goldenIndex is a small IVF-Flat index whose lists are exact: three
// clusters far apart, exactly representable coordinates, so k-means
// finds them whatever the kernels' rounding and the file's bytes do not
// depend on the machine.
func goldenIndex(t testing.TB) *Index {
	t.Helper()
	x := vec.NewMatrix(30, 4)
	for i := 0; i < x.N; i++ {
		r := x.Row(i)
		r[i%3] = 16
		r[3] = float32(i/3) * 0.25
	}
	ix, err := Build(x, Config{Nlist: 3, Metric: engine.L2, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestListFileGolden pins the list file's bytes (format version 2): the
// output is deterministic, and a change of layout shows up here first.
// Run with -update to rewrite testdata/lists.ivf after a deliberate,
// version-bumped change.
func TestListFileGolden(t *testing.T) {
	ix := goldenIndex(t)
	m := vfs.NewMem()
	if err := ix.WriteListsFS(m, "lists.ivf"); err != nil {
		t.Fatal(err)
	}
	got, err := vfs.ReadFile(m, "lists.ivf")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "lists.ivf")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("list file differs from %s (%d bytes, want %d); rerun with -update only with a new format version", golden, len(got), len(want))
	}
	// Writing again gives the same bytes (idempotence), and the golden
	// file opens and answers as the resident lists do.
	if err := ix.WriteListsFS(m, "again.ivf"); err != nil {
		t.Fatal(err)
	}
	if again, _ := vfs.ReadFile(m, "again.ivf"); !bytes.Equal(again, got) {
		t.Fatal("a second write gives other bytes")
	}
	q := []float32{15, 1, 0, 1}
	before, _, err := ix.Search(q, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.UseDiskLists(golden, store.Options{}); err != nil {
		t.Fatal(err)
	}
	defer ix.CloseLists()
	after, _, err := ix.Search(q, 5, 3)
	if err != nil || !slices.Equal(before, after) {
		t.Fatalf("from the golden file: %v (%v), resident %v", after, err, before)
	}
}

// TestWriteListsThroughVFS writes the lists through a watermark on a
// simulated nearly full disk and through an FS failing at every step: a
// refused or failed write leaves the previous file byte for byte and no
// temporary file, and the error says why.
func TestWriteListsThroughVFS(t *testing.T) {
	old := goldenIndex(t)
	x, _ := clustered(3000, 1, 16, 8, 21)
	bigger, err := Build(x, Config{Nlist: 8, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	setup := func(t *testing.T) (dir, path string, oldBytes []byte) {
		dir = t.TempDir()
		path = filepath.Join(dir, "lists.ivf")
		if err := old.WriteLists(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return dir, path, b
	}
	intact := func(t *testing.T, dir, path string, oldBytes []byte) {
		t.Helper()
		if names, _ := vfs.Default.List(dir); !slices.Equal(names, []string{"lists.ivf"}) {
			t.Errorf("directory holds %q, want only lists.ivf", names)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, oldBytes) {
			t.Error("previous list file changed")
		}
	}
	const total = 1 << 30
	for _, tc := range []struct {
		name string
		used float64
		want string
	}{{"91 %", 0.91, "high"}, {"96 %", 0.96, "flood-stage"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, path, oldBytes := setup(t)
			disk := vfs.SimulatedDisk{FS: vfs.Default, Used: uint64(tc.used * total), Total: total}
			w, err := vfs.NewWatermark(vfs.Watermark{FS: vfs.Default, Usage: disk.Usage})
			if err != nil {
				t.Fatal(err)
			}
			err = bigger.WriteListsFS(w, path)
			var we *vfs.WatermarkError
			if !errors.Is(err, vfs.ErrDiskWatermark) || !errors.As(err, &we) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "ivf: write lists") {
				t.Fatalf("write at %s: %v, want the %s watermark", tc.name, err, tc.want)
			}
			intact(t, dir, path, oldBytes)
		})
	}
	t.Run("every step fails", func(t *testing.T) {
		steps := vfs.FailAfter(-1)
		dir, path, _ := setup(t)
		if err := bigger.WriteListsFS(vfs.NewErrorFS(vfs.Default, steps), filepath.Join(dir, "count.ivf")); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "count.ivf"))
		for n := 0; n < steps.Count(); n++ {
			oldBytes, _ := os.ReadFile(path)
			// Only operation n fails, so the clean-up after it runs.
			var seen atomic.Int64
			one := vfs.InjectorFunc(func(op vfs.Op, name string) error {
				if seen.Add(1)-1 == int64(n) {
					return fmt.Errorf("%w: %s %s", vfs.ErrInjected, op, name)
				}
				return nil
			})
			err := bigger.WriteListsFS(vfs.NewErrorFS(vfs.Default, one), path)
			if err == nil {
				// Only the directory sync after the rename can fail with
				// the new file in place: then it must be complete.
				if err := bigger.UseDiskLists(path, store.Options{}); err != nil {
					t.Fatalf("step %d: %v", n, err)
				}
				bigger.CloseLists()
				t.Fatalf("step %d of %d: no error", n, steps.Count())
			}
			if !errors.Is(err, vfs.ErrInjected) {
				t.Fatalf("step %d: %v", n, err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, oldBytes) {
				// The rename happened and only the directory sync failed.
				if !strings.Contains(err.Error(), "syncdir") {
					t.Fatalf("step %d: file changed by a failed write: %v", n, err)
				}
			}
			if names, _ := vfs.Default.List(dir); !slices.Equal(names, []string{"lists.ivf"}) {
				t.Fatalf("step %d: directory holds %q", n, names)
			}
		}
	})
}

// FuzzListFile opens arbitrary bytes as the list file of the golden
// index and probes every list: any error is fine if it wraps ErrCorrupt,
// ErrVersion or ErrInvalidArgument and names the file; a panic is not.
// Seeded from testdata/lists.ivf.
func FuzzListFile(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "lists.ivf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:100])
	f.Add(good[:len(good)-1])
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.ivf")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix := goldenIndex(t)
		check := func(err error) {
			if err != nil && !(errors.Is(err, engine.ErrCorrupt) || errors.Is(err, engine.ErrVersion) || errors.Is(err, engine.ErrInvalidArgument)) || err != nil && !strings.Contains(err.Error(), path) {
				t.Fatalf("error neither wrapping ErrCorrupt/ErrVersion/ErrInvalidArgument nor naming the file: %v", err)
			}
		}
		err := ix.UseDiskLists(path, store.Options{NoCacheProbe: true})
		check(err)
		if err != nil {
			return
		}
		defer ix.CloseLists()
		_, _, err = ix.Search([]float32{1, 2, 3, 4}, 5, 3)
		check(err)
	})
}

// TestListFileVersion1 checks that a file of the first format (the same
// magic with version 1 at offset 8) is refused as a version.
func TestListFileVersion1(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "lists.ivf"))
	if err != nil {
		t.Fatal(err)
	}
	b[8] = 1
	p := filepath.Join(t.TempDir(), "v1.ivf")
	os.WriteFile(p, b, 0o644)
	if err := goldenIndex(t).UseDiskLists(p, store.Options{}); !errors.Is(err, engine.ErrVersion) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("version 1 list file: %v", err)
	}
}
