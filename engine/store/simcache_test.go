package store

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// TestSimulatedCache reads a vector file and a blob on an in-memory FS:
// the counters follow the simulated page cache (resident after writing,
// empty after Evict, refilled by reads and by Warm), only the reads the
// simulated device serves are charged DeviceModel's latency without a
// Model, every read with one, and the rows read back equal the written.
func TestSimulatedCache(t *testing.T) {
	fsys := vfs.NewMem()
	m := randMatrix(200, 37, 1) // 152-byte rows: 26 to a page
	if err := WriteMatrixFS(fsys, "/scratch/v.vec", m, engine.L2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		opt              Options
		evict            bool
		wantDevice       int64 // device reads of reading rows 0 and 1, then 0 again
		wantSim, wantHit int64
	}{
		{"resident after writing", Options{}, false, 0, 0, 3},
		{"evicted", Options{}, true, 1, 1, 2},                          // row 0 brings the page in for row 1
		{"no probe asked", Options{NoCacheProbe: true}, true, 1, 1, 2}, // the simulated probe still decides
		{"model charges every read", Options{Model: Model{Name: "t", Latency: 1}}, true, 3, 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := OpenFS(fsys, "/scratch/v.vec", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if tc.evict {
				if left, err := f.Evict(); err != nil || left != 0 {
					t.Fatalf("Evict: %d left, %v", left, err)
				}
				if c, total, _ := f.Resident(); c != 0 || total == 0 {
					t.Fatalf("after Evict: %d of %d pages resident", c, total)
				}
			}
			var st IOStats
			dst := make([]float32, 37)
			for _, id := range []engine.ID{0, 1, 0} {
				got, err := f.ReadVector(dst, id, &st)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, m.Row(int(id))) {
					t.Fatalf("row %d read back differs", id)
				}
			}
			if st.Reads != 3 || st.DeviceReads() != tc.wantDevice || st.SimReads != tc.wantSim || st.CachedReads != tc.wantHit {
				t.Fatalf("stats %+v: device reads %d, want %d device, %d charged, %d cache hits", st, st.DeviceReads(), tc.wantDevice, tc.wantSim, tc.wantHit)
			}
			if (st.Simulated > 0) != (tc.wantSim > 0) {
				t.Fatalf("simulated time %v with %d charged reads", st.Simulated, st.SimReads)
			}
			if c, _ := f.Warm(); c != int(f.Size()/pageSize) {
				t.Fatalf("after Warm: %d of %d pages", c, f.Size()/pageSize)
			}
		})
	}

	b, err := OpenBlobFS(fsys, "/scratch/v.vec", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Evict()
	var st IOStats
	p := make([]byte, 100)
	for range 2 {
		if err := b.ReadAt(p, 5000, &st); err != nil {
			t.Fatal(err)
		}
	}
	if st.Reads != 2 || st.DeviceReads() != 1 || st.CachedReads != 1 || st.Simulated <= 0 {
		t.Fatalf("blob stats %+v", st)
	}
	if err := b.ReadAt(p, b.Size()-50, nil); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("read past the end: %v", err)
	}

	if _, err := OpenFS(fsys, "/scratch/v.vec", Options{Direct: true}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("direct I/O on memory: %v", err)
	}
	if _, err := OpenFS(fsys, "/scratch/none.vec", Options{}); err == nil {
		t.Fatal("opened a file that does not exist")
	}
}
