package store

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// liveMappings counts the registered mappings (mapreg.go).
func liveMappings() int {
	mappings.mu.Lock()
	defer mappings.mu.Unlock()
	return len(mappings.live)
}

// TestHandleLifecycle runs a File and a Blob over the same vector file
// through what their shared handle owns: the mapping registered while open
// (so Evict through either drops the other's pages) and unregistered on
// Close, Warm filling the cache, Evict emptying it, a second Close a no-op,
// reads after Close failing with engine.ErrClosed, and the open errors.
func TestHandleLifecycle(t *testing.T) {
	p, _ := writeFile(t, 500, 32, engine.L2)
	type opened struct {
		h    *handle
		read func() error
	}
	openers := []struct {
		name string
		open func(string, Options) (opened, error)
	}{
		{"File", func(path string, opt Options) (opened, error) {
			v, err := Open(path, opt)
			if err != nil {
				return opened{}, err
			}
			return opened{&v.handle, func() error { _, err := v.Vector(make([]float32, 32), 3); return err }}, nil
		}},
		{"Blob", func(path string, opt Options) (opened, error) {
			b, err := OpenBlob(path, opt)
			if err != nil {
				return opened{}, err
			}
			return opened{&b.handle, func() error { return b.ReadAt(make([]byte, 8), 4096, nil) }}, nil
		}},
	}
	for _, o := range openers {
		t.Run(o.name, func(t *testing.T) {
			before := liveMappings()
			x, err := o.open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := liveMappings(); got != before+1 {
				t.Fatalf("%d mappings registered while open, want %d", got, before+1)
			}
			if c, err := x.h.Warm(); err != nil || c == 0 {
				t.Fatalf("Warm: %d pages resident, %v", c, err)
			}
			if _, total, err := x.h.Resident(); err != nil || int64(total) != (x.h.Size()+pageSize-1)/pageSize {
				t.Fatalf("Resident: %d pages of a %d-byte file, %v", total, x.h.Size(), err)
			}
			if err := x.read(); err != nil {
				t.Fatal(err)
			}
			if left, err := x.h.Evict(); err != nil || left != 0 {
				t.Fatalf("Evict: %d pages left, %v", left, err)
			}
			if err := x.h.Close(); err != nil {
				t.Fatal(err)
			}
			if got := liveMappings(); got != before {
				t.Fatalf("%d mappings registered after Close, want %d", got, before)
			}
			if err := x.h.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if err := x.read(); !errors.Is(err, engine.ErrClosed) {
				t.Fatalf("read after Close: %v", err)
			}

			missing := filepath.Join(t.TempDir(), "none")
			for _, tc := range []struct {
				name, path string
				opt        Options
				want       error
			}{
				{"missing file", missing, Options{}, fs.ErrNotExist},
				{"bad model", p, Options{Model: Model{IOPS: -1}}, engine.ErrInvalidArgument},
			} {
				if _, err := o.open(tc.path, tc.opt); !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "store: ") {
					t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
				}
			}
			if got := liveMappings(); got != before {
				t.Fatalf("%d mappings registered after failed opens, want %d", got, before)
			}
		})
	}
}
