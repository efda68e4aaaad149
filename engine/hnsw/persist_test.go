package hnsw

import (
	"bytes"
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// snapshot saves ix to memory and returns the file's bytes.
func snapshot(t testing.TB, ix *Index) []byte {
	t.Helper()
	m := vfs.NewMem()
	if err := ix.Save(m, "ix"); err != nil {
		t.Fatal(err)
	}
	b, err := vfs.ReadFile(m, "ix")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func smallIndex(t testing.TB, n, dim int, cfg Config) *Index {
	t.Helper()
	cfg.Dim = dim
	ix, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), clustered(n, dim, 4, 0.5, 11)); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestDeterministicBuild(t *testing.T) {
	cfg := Config{M: 6, EfConstruction: 20, Workers: 1, Seed: 42}
	a := snapshot(t, smallIndex(t, 400, 8, cfg))
	b := snapshot(t, smallIndex(t, 400, 8, cfg))
	if !bytes.Equal(a, b) {
		t.Fatal("two single-threaded builds with the same seed differ")
	}
	cfg.Seed = 43
	if c := snapshot(t, smallIndex(t, 400, 8, cfg)); bytes.Equal(a, c) {
		t.Fatal("a different seed gave the same graph")
	}
}

func TestSaveLoad(t *testing.T) {
	ix := smallIndex(t, 500, 16, Config{M: 8, EfConstruction: 40, Workers: 2, Metric: engine.L2})
	m := vfs.NewMem()
	if err := ix.Save(m, "d/ix.hnsw"); err != nil {
		t.Fatal(err)
	}
	ld, err := Load(m, "d/ix.hnsw")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snapshot(t, ix), snapshot(t, ld)) {
		t.Fatal("Save(Load(Save(ix))) differs from Save(ix)")
	}
	q := clustered(5, 16, 4, 0.5, 99)
	for i := 0; i < q.N; i++ {
		a, _, _ := ix.Query(q.Row(i), engine.Request{K: 5, Breadth: 30})
		b, _, _ := ld.Query(q.Row(i), engine.Request{K: 5, Breadth: 30})
		if len(a) != len(b) {
			t.Fatal("loaded index answers differently")
		}
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("query %d result %d: %v vs %v", i, j, a[j], b[j])
			}
		}
	}
	// Inserting after a load continues to work and keeps keys unique.
	if err := ld.Add(1, q.Row(0)); !errors.Is(err, engine.ErrDuplicateID) {
		t.Fatalf("duplicate after load: %v", err)
	}
	if err := ld.Add(10000, q.Row(0)); err != nil {
		t.Fatal(err)
	}
	// An empty index round-trips too.
	empty, _ := New(Config{Dim: 3})
	if _, err := LoadBytes("empty", snapshot(t, empty)); err != nil {
		t.Fatalf("empty index: %v", err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	good := snapshot(t, smallIndex(t, 40, 4, Config{M: 4, EfConstruction: 8, Workers: 1}))
	check := func(what string, b []byte) {
		t.Helper()
		ix, err := LoadBytes("f", b)
		if err == nil {
			t.Fatalf("%s: loaded a damaged file (%d nodes)", what, ix.Len())
		}
		if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
			t.Fatalf("%s: %v does not wrap ErrCorrupt or ErrVersion", what, err)
		}
	}
	for i := range good {
		for _, bit := range []byte{0x01, 0x10, 0x80} {
			b := append([]byte(nil), good...)
			b[i] ^= bit
			check("flip", b)
		}
	}
	for n := 0; n < len(good); n++ {
		check("cut", good[:n])
	}
	check("trailing byte", append(append([]byte(nil), good...), 0))
	_, err := LoadBytes("idx.hnsw", good[:len(good)/2])
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("idx.hnsw")) || !bytes.Contains([]byte(err.Error()), []byte("offset")) {
		t.Fatalf("error does not name the file and offset: %v", err)
	}
}

func TestSaveCrashAndErrors(t *testing.T) {
	ix := smallIndex(t, 60, 4, Config{M: 4, EfConstruction: 8, Workers: 1})
	m := vfs.NewMem()
	if err := ix.Save(m, "d/ix"); err != nil {
		t.Fatal(err)
	}
	want, _ := vfs.ReadFile(m, "d/ix")
	if got, err := vfs.ReadFile(m.CrashClone(), "d/ix"); err != nil || !bytes.Equal(got, want) {
		t.Fatal("a saved index did not survive a crash")
	}
	if err := ix.Add(1000, []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	cnt := vfs.FailAfter(-1)
	if err := ix.Save(vfs.NewErrorFS(m, cnt), "d/ix"); err != nil {
		t.Fatal(err)
	}
	newer, _ := vfs.ReadFile(m, "d/ix")
	for n := 0; n < cnt.Count(); n++ {
		err := ix.Save(vfs.NewErrorFS(m, vfs.FailAfter(n)), "d/ix")
		if !errors.Is(err, vfs.ErrInjected) {
			t.Fatalf("operation %d failed but Save returned %v", n, err)
		}
		got, err := vfs.ReadFile(m.CrashClone(), "d/ix")
		if err != nil || !bytes.Equal(got, newer) {
			t.Fatalf("operation %d: the durable file changed", n)
		}
		if _, err := Load(m, "d/ix"); err != nil {
			t.Fatalf("operation %d: %v", n, err)
		}
	}
}

func FuzzLoad(f *testing.F) {
	good := snapshot(f, smallIndex(f, 20, 3, Config{M: 3, EfConstruction: 6, Workers: 1}))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := LoadBytes("fuzz", b)
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) && !errors.Is(err, engine.ErrVersion) {
				t.Fatalf("error does not wrap ErrCorrupt/ErrVersion: %v", err)
			}
			return
		}
		if ix.Len() > 0 { // a loaded graph must be searchable
			if _, _, err := ix.Query(ix.Vector(0), engine.Request{K: 3, Breadth: 10}); err != nil && !errors.Is(err, engine.ErrZeroVector) {
				t.Fatal(err)
			}
		}
	})
}

// A deterministic build interrupted by a save and a load continues exactly
// as an uninterrupted one: the level generator's state is in the file.
func TestLoadContinuesBuild(t *testing.T) {
	for _, levels := range []LevelGen{PCGLevels, MinstdLevels} {
		cfg := Config{Dim: 8, M: 6, EfConstruction: 24, Workers: 1, Seed: 9, Levels: levels}
		data := clustered(300, 8, 4, 0.5, 21)
		whole := smallIndexFrom(t, cfg, data, 0, 300)
		part := smallIndexFrom(t, cfg, data, 0, 200)
		m := vfs.NewMem()
		if err := part.Save(m, "p"); err != nil {
			t.Fatal(err)
		}
		ld, err := Load(m, "p")
		if err != nil {
			t.Fatal(err)
		}
		rest := &vec.Matrix{N: 100, Dim: 8, Stride: 8, Data: data.Data[200*8:]}
		keys := make([]uint64, 100)
		for i := range keys {
			keys[i] = uint64(200 + i)
		}
		if err := ld.AddBatch(keys, rest); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(snapshot(t, whole), snapshot(t, ld)) {
			t.Fatalf("levels=%v: build resumed after Load differs from the uninterrupted build", levels)
		}
	}
}

func smallIndexFrom(t *testing.T, cfg Config, data *vec.Matrix, from, to int) *Index {
	t.Helper()
	ix, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &vec.Matrix{N: to - from, Dim: data.Dim, Stride: data.Stride, Data: data.Data[from*data.Stride : to*data.Stride]}
	keys := make([]uint64, to-from)
	for i := range keys {
		keys[i] = uint64(from + i)
	}
	if err := ix.AddBatch(keys, m); err != nil {
		t.Fatal(err)
	}
	return ix
}
