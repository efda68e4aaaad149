package hnsw

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// TestSaveRefusedByWatermark saves a second, larger index over a first one
// through a vfs.WatermarkFS on a simulated nearly full disk: every refusal
// must leave the first file byte for byte, loadable with the same search
// results, and no temporary file behind.
func TestSaveRefusedByWatermark(t *testing.T) {
	const path = "d/ix.hnsw"
	cfg := Config{M: 6, EfConstruction: 20, Workers: 1, Seed: 7}
	old := smallIndex(t, 200, 8, cfg)
	bigger := smallIndex(t, 600, 8, cfg)
	oldBytes := snapshot(t, old)
	newSize := uint64(len(snapshot(t, bigger)))
	const total = 1 << 30
	at := func(f float64) uint64 { return uint64(f * total) }

	tests := []struct {
		name string
		// other is the disk's usage by other data; the files in d count on top.
		other uint64
		// floodAtSync makes the disk jump above the flood stage when the
		// save syncs its temporary file (another writer filled it).
		floodAtSync bool
		want        string // "" = saved, else the watermark that refuses
		wantOp      string
	}{
		{"80 %", at(0.80), false, "", ""},
		{"89 %", at(0.89), false, "", ""},
		{"just below 90 %: the save's own bytes cross it", at(0.90) - uint64(len(oldBytes)) - newSize/2, false, "high", "write"},
		{"91 %", at(0.91), false, "high", "create"},
		{"96 %", at(0.96), false, "flood-stage", "create"},
		{"disk floods during the save", at(0.80), true, "flood-stage", "rename"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewMem()
			if err := old.Save(mem, path); err != nil {
				t.Fatal(err)
			}
			var flooded atomic.Bool
			inner := vfs.NewErrorFS(mem, vfs.InjectorFunc(func(op vfs.Op, name string) error {
				if op == vfs.OpSync && tc.floodAtSync {
					flooded.Store(true)
				}
				return nil
			}))
			disk := vfs.SimulatedDisk{FS: mem, Used: tc.other, Total: total}
			usage := func(dir string) (uint64, uint64, error) {
				if flooded.Load() {
					return at(0.96), total, nil
				}
				return disk.Usage(dir)
			}
			w, err := vfs.NewWatermark(vfs.Watermark{FS: inner, Usage: usage})
			if err != nil {
				t.Fatal(err)
			}
			err = bigger.Save(w, path)
			names, lerr := mem.List("d")
			if lerr != nil {
				t.Fatal(lerr)
			}
			if !slices.Equal(names, []string{"ix.hnsw"}) {
				t.Errorf("directory holds %q after the save, want only ix.hnsw (no temporary file)", names)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Save: %v", err)
				}
				ld, err := Load(mem, path)
				if err != nil || ld.Len() != bigger.Len() {
					t.Fatalf("Load after save: %v", err)
				}
				return
			}
			if !errors.Is(err, vfs.ErrDiskWatermark) {
				t.Fatalf("Save = %v, want ErrDiskWatermark", err)
			}
			var we *vfs.WatermarkError
			if !errors.As(err, &we) || we.Watermark != tc.want || we.Op != tc.wantOp {
				t.Fatalf("Save refused by %+v, want the %s watermark at %s", we, tc.want, tc.wantOp)
			}
			if !strings.Contains(err.Error(), "hnsw: save") || !strings.Contains(err.Error(), tc.want+" watermark") || !strings.Contains(err.Error(), "d/ix.hnsw") {
				t.Errorf("message %q does not name the operation, watermark and path", err)
			}
			got, err := vfs.ReadFile(mem, path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, oldBytes) {
				t.Fatal("the previous file changed after a refused save")
			}
			ld, err := Load(mem, path)
			if err != nil {
				t.Fatalf("previous file no longer loads: %v", err)
			}
			if ld.Len() != old.Len() {
				t.Fatalf("loaded %d vectors, want %d", ld.Len(), old.Len())
			}
			q := clustered(5, 8, 4, 0.5, 99)
			for i := 0; i < q.N; i++ {
				a, _, err1 := old.Query(q.Row(i), engine.Request{K: 10, Breadth: 40})
				b, _, err2 := ld.Query(q.Row(i), engine.Request{K: 10, Breadth: 40})
				if err1 != nil || err2 != nil || !slices.Equal(a, b) {
					t.Fatalf("query %d: search differs after reload (%v, %v)", i, err1, err2)
				}
			}
			// The same file survives a crash too.
			if _, err := Load(mem.CrashClone(), path); err != nil {
				t.Fatalf("previous file lost in a crash after the refused save: %v", err)
			}
		})
	}
}
