package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// TestWriterRefusedByWatermark rewrites a vector file through a
// vfs.WatermarkFS over the operating system's files, on a simulated nearly
// full disk: a refusal leaves the previous file byte for byte, readable
// with the same vectors, and no temporary file behind.
func TestWriterRefusedByWatermark(t *testing.T) {
	const dim = 16
	old, bigger := randMatrix(100, dim, 1), randMatrix(3000, dim, 2) // 3000 rows ≈ 200 KB
	const total = 1 << 30
	at := func(f float64) uint64 { return uint64(f * total) }
	tests := []struct {
		name  string
		other uint64
		want  string // "" = written
	}{
		{"80 %", at(0.80), ""},
		{"89 %", at(0.89), ""},
		{"at 90 % minus 100 KB: the file's own bytes cross it", at(0.90) - 100<<10, "high"},
		{"91 %", at(0.91), "high"},
		{"96 %", at(0.96), "flood-stage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "v.vec")
			if err := WriteMatrix(path, old, engine.L2); err != nil {
				t.Fatal(err)
			}
			oldBytes, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			disk := vfs.SimulatedDisk{FS: vfs.Default, Used: tc.other - uint64(len(oldBytes)), Total: total}
			w, err := vfs.NewWatermark(vfs.Watermark{FS: vfs.Default, Usage: disk.Usage})
			if err != nil {
				t.Fatal(err)
			}
			err = WriteMatrixFS(w, path, bigger, engine.L2)
			if names, _ := vfs.Default.List(dir); !slices.Equal(names, []string{"v.vec"}) {
				t.Errorf("directory holds %q, want only v.vec (no temporary file)", names)
			}
			want, wantBytes := bigger, []byte(nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("WriteMatrixFS: %v", err)
				}
			} else {
				var we *vfs.WatermarkError
				if !errors.Is(err, vfs.ErrDiskWatermark) || !errors.As(err, &we) || we.Watermark != tc.want {
					t.Fatalf("WriteMatrixFS = %v, want a refusal by the %s watermark", err, tc.want)
				}
				if msg := err.Error(); !strings.Contains(msg, tc.want+" watermark") || !strings.Contains(msg, "v.vec") {
					t.Errorf("message %q does not name the watermark and the file", msg)
				}
				want, wantBytes = old, oldBytes
			}
			if wantBytes != nil {
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, wantBytes) {
					t.Fatalf("the previous file changed after a refused write (%v)", err)
				}
			}
			f, err := Open(path, Options{})
			if err != nil {
				t.Fatalf("file no longer opens: %v", err)
			}
			defer f.Close()
			if err := f.Verify(); err != nil {
				t.Fatal(err)
			}
			if f.Len() != want.N {
				t.Fatalf("file has %d vectors, want %d", f.Len(), want.N)
			}
			for _, id := range []int{0, want.N / 2, want.N - 1} {
				v, err := f.Vector(make([]float32, dim), engine.ID(id))
				if err != nil || !slices.Equal(v, want.Row(id)) {
					t.Fatalf("vector %d differs (%v)", id, err)
				}
			}
		})
	}
}

func TestCreateFSNil(t *testing.T) {
	if _, err := CreateFS(nil, "x", 4, engine.L2); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("CreateFS(nil) = %v, want ErrInvalidArgument", err)
	}
}
