package ivf

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/store"
)

func TestDiskLists(t *testing.T) {
	x, qs := clustered(2000, 8, 24, 8, 14)
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  store.Options
	}{
		{"float", Config{Nlist: 12}, store.Options{}},
		{"2-bit spill", Config{Nlist: 12, Bits: 2, Spill: true}, store.Options{}},
		{"4-bit direct", Config{Nlist: 12, Bits: 4}, store.Options{Direct: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := Build(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var before [][]engine.Result
			for i := 0; i < qs.N; i++ {
				r, _, err := ix.Search(qs.Row(i), 10, 3)
				if err != nil {
					t.Fatal(err)
				}
				before = append(before, r)
			}
			sizes := ix.ListSizes()
			path := filepath.Join(t.TempDir(), "lists.ivf")
			if err := ix.WriteLists(path); err != nil {
				t.Fatal(err)
			}
			if err := ix.UseDiskLists(path, tc.opt); err != nil {
				t.Fatal(err)
			}
			defer ix.CloseLists()
			if fp := ix.Footprint(); fp.Codes != 0 || fp.IDs != 0 || fp.ListsOnDisk == 0 {
				t.Fatalf("footprint with lists on disk: %+v", fp)
			}
			if !slices.Equal(sizes, ix.ListSizes()) {
				t.Fatal("list sizes changed")
			}
			ix.ListFile().Evict()
			for i := 0; i < qs.N; i++ {
				r, st, err := ix.Search(qs.Row(i), 10, 3)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(r, before[i]) {
					t.Fatalf("query %d: results differ with lists on disk", i)
				}
				if st.ListIO.Reads != int64(st.ListsProbed) {
					t.Fatalf("%d list reads for %d lists probed", st.ListIO.Reads, st.ListsProbed)
				}
				if i == 0 && st.ListIO.CachedReads != 0 {
					t.Fatalf("first query after eviction served from cache: %+v", st.ListIO)
				}
			}
		})
	}
}

func TestDiskListsCorrupt(t *testing.T) {
	x, qs := clustered(1000, 1, 16, 4, 15)
	ix, _ := Build(x, Config{Nlist: 4, Bits: 1})
	path := filepath.Join(t.TempDir(), "lists.ivf")
	if err := ix.WriteLists(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	// Another index shape is refused.
	other, _ := Build(x, Config{Nlist: 5, Bits: 1})
	if err := other.UseDiskLists(path, store.Options{}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("list file of another index: %v", err)
	}
	// A flipped byte in the file header, the IVFH section, the directory
	// or the end marker is caught when the file is opened, naming the
	// file and the offset.
	for _, at := range []int{0, 9, 14, 16 + 12 + 3, 16 + 36 + 12 + 5, len(b) - 5} {
		bad := slices.Clone(b)
		bad[at] ^= 1
		os.WriteFile(path, bad, 0o644)
		err := ix.UseDiskLists(path, store.Options{})
		want, where := engine.ErrCorrupt, "offset"
		if at == 9 { // the format version
			want, where = engine.ErrVersion, "format version"
		}
		if !errors.Is(err, want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), where) {
			t.Fatalf("byte %d flipped: %v, want %v naming the file and the %s", at, err, want, where)
		}
	}
	if err := ix.UseDiskLists(path+".missing", store.Options{}); err == nil {
		t.Fatal("a missing file opened")
	}
	// A truncated file is refused at open.
	os.WriteFile(path, b[:len(b)-100], 0o644)
	if err := ix.UseDiskLists(path, store.Options{}); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("truncated file: %v", err)
	}
	// A flipped byte in a list is caught when the list is read.
	bad := slices.Clone(b)
	bad[listPage+blockfile.SectionHeaderSize+10] ^= 0x40 // inside the first list's ids
	os.WriteFile(path, bad, 0o644)
	if err := ix.UseDiskLists(path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	defer ix.CloseLists()
	var hit error
	for j := 1; j <= 4 && hit == nil; j++ {
		_, _, hit = ix.Search(qs.Row(0), 5, j)
	}
	if !errors.Is(hit, engine.ErrCorrupt) || !strings.Contains(hit.Error(), "offset 4096") {
		t.Fatalf("list corruption: %v", hit)
	}
}
