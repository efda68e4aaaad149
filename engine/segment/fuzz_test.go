package segment

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vfs"
)

// writtenCollection commits a small two-segment collection (one flat, so
// every section kind is on disk) and returns its file system.
func writtenCollection(t testing.TB) (*vfs.MemFS, Config) {
	fsys := vfs.NewMem()
	cfg := testConfig(fsys)
	cfg.StoredBlockBytes = 512
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(120, testDim, 3, 12)
	c.Add(docs(data, 0, 60))
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	c.Add(docs(data, 60, 120))
	c.Delete(3)
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	return fsys, c.cfg
}

// TestCorruptFiles truncates and flips bytes of every committed file: each
// reopen fails with engine.ErrCorrupt naming the file, never a panic and
// never a silently different collection.
func TestCorruptFiles(t *testing.T) {
	fsys, cfg := writtenCollection(t)
	names, _ := fsys.List(cfg.Dir)
	for _, name := range names {
		orig, err := vfs.ReadFile(fsys, cfg.Dir+"/"+base(name))
		if err != nil {
			t.Fatal(err)
		}
		damage := map[string][]byte{
			"truncated to half": orig[:len(orig)/2],
			"truncated by one":  orig[:len(orig)-1],
			"byte flipped":      flip(orig, len(orig)/3),
			"header flipped":    flip(orig, 9),
		}
		for what, b := range damage {
			t.Run(base(name)+"/"+what, func(t *testing.T) {
				m := fsys.CrashClone()
				p := cfg.Dir + "/" + base(name)
				m.Remove(p)
				f, _ := m.Create(p)
				f.Write(b)
				f.Close()
				c2 := cfg
				c2.FS = m
				_, err := Open(c2)
				if err == nil {
					t.Fatal("opened a damaged collection")
				}
				if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				if !strings.Contains(err.Error(), base(name)) {
					t.Fatalf("error %q does not name %s", err, base(name))
				}
			})
		}
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x5a
	return c
}

// FuzzStoredFields feeds arbitrary block indexes and blocks to the
// stored-fields decoder, which the file CRCs protect from accidents but
// not from a crafted file.
func FuzzStoredFields(f *testing.F) {
	sw := storedWriter{blockBytes: 64}
	for i := 0; i < 20; i++ {
		sw.add(uint64(i*7), []byte(fmt.Sprintf("source %d", i)))
	}
	sw.cut()
	s := storedIndex{n: sw.n, first: sw.first, offs: sw.offs, data: sw.data}
	f.Add(s.encodeIndex(), s.data, uint32(5))
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 2, 3}, uint32(0))
	f.Fuzz(func(t *testing.T, idx, data []byte, id uint32) {
		n := 0
		if len(idx) >= 4 {
			n = int(uint32(idx[0]) | uint32(idx[1])<<8 | uint32(idx[2])<<16 | uint32(idx[3])<<24)
		}
		si, err := decodeIndex(idx, len(data), n)
		if err != nil {
			return
		}
		si.data = data
		r := si.reader()
		r.record(id)
		r.record(0)
	})
}

// FuzzCommitPoint feeds arbitrary commit files to the reader.
func FuzzCommitPoint(f *testing.F) {
	fsys, cfg := writtenCollection(f)
	names, _ := fsys.List(cfg.Dir)
	for _, n := range names {
		if strings.HasPrefix(base(n), commitPrefix) {
			b, _ := vfs.ReadFile(fsys, cfg.Dir+"/"+base(n))
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := vfs.NewMem()
		m.MkdirAll("c")
		w, _ := m.Create("c/segments_1")
		w.Write(b)
		w.Close()
		c := cfg
		c.FS, c.Dir = m, "c"
		if _, err := Open(c); err != nil && !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) &&
			!errors.Is(err, engine.ErrInvalidArgument) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}
