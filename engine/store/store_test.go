package store

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func randMatrix(n, dim int, seed uint64) *vec.Matrix {
	rng := rand.New(rand.NewPCG(seed, 2))
	m := vec.NewMatrix(n, dim)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	return m
}

func writeFile(t *testing.T, n, dim int, metric engine.Metric) (string, *vec.Matrix) {
	t.Helper()
	m := randMatrix(n, dim, 1)
	p := filepath.Join(t.TempDir(), "v.vec")
	if err := WriteMatrix(p, m, metric); err != nil {
		t.Fatal(err)
	}
	return p, m
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		metric engine.Metric
		opt    Options
	}{
		{"l2 buffered", engine.L2, Options{}},
		{"l2 direct", engine.L2, Options{Direct: true}},
		{"cosine normalised", engine.Cosine, Options{}},
		{"no probe", engine.Dot, Options{NoCacheProbe: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, m := writeFile(t, 300, 37, tc.metric)
			f, err := Open(p, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Dim() != 37 || f.Len() != 300 || f.Metric() != tc.metric {
				t.Fatalf("dim %d len %d metric %v", f.Dim(), f.Len(), f.Metric())
			}
			if f.Size()%pageSize != 0 {
				t.Fatalf("file size %d not page-padded", f.Size())
			}
			dst := make([]float32, 37)
			for _, id := range []engine.ID{0, 1, 150, 299} {
				got, err := f.Vector(dst, id)
				if err != nil {
					t.Fatal(err)
				}
				want := slices.Clone(m.Row(int(id)))
				if tc.metric == engine.Cosine {
					_ = vec.Normalize(want)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("vector %d differs", id)
				}
			}
			st := f.Stats()
			if st.Reads != 4 {
				t.Fatalf("reads = %d, want 4", st.Reads)
			}
			if tc.opt.Direct && st.Bytes%pageSize != 0 {
				t.Fatalf("direct reads transferred %d bytes, not whole pages", st.Bytes)
			}
			if !tc.opt.Direct && st.Bytes != 4*(37*4+4) {
				t.Fatalf("bytes = %d", st.Bytes)
			}
			if err := f.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCacheProbe warms the file, evicts it and checks that mincore sees
// the difference, then that a read after eviction is counted as uncached
// and the same read again as cached.
func TestCacheProbe(t *testing.T) {
	p, _ := writeFile(t, 2000, 64, engine.L2) // ≈ 520 KB
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cached, err := f.Warm()
	if err != nil {
		t.Fatal(err)
	}
	_, total, _ := f.Resident()
	if cached != total {
		t.Fatalf("after Warm %d of %d pages resident", cached, total)
	}
	left, err := f.Evict()
	if err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d pages still cached after Evict", left)
	}
	dst := make([]float32, 64)
	var st IOStats
	if _, err := f.ReadVector(dst, 1000, &st); err != nil {
		t.Fatal(err)
	}
	if st.CachedReads != 0 || st.CachedPages != 0 {
		t.Fatalf("first read after eviction counted as cached: %+v", st)
	}
	st = IOStats{}
	if _, err := f.ReadVector(dst, 1000, &st); err != nil {
		t.Fatal(err)
	}
	if st.CachedReads != 1 || st.CachedPages != st.Pages {
		t.Fatalf("repeated read not counted as cached: %+v", st)
	}
	if g := f.Stats(); g.Reads != 2 || g.CachedReads != 1 {
		t.Fatalf("file counters %+v", g)
	}
}

func TestDirectBypassesCache(t *testing.T) {
	p, _ := writeFile(t, 2000, 64, engine.L2)
	f, err := Open(p, Options{Direct: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Warm(); err != nil { // pages resident, yet O_DIRECT bypasses them
		t.Fatal(err)
	}
	dst := make([]float32, 64)
	for i := 0; i < 3; i++ {
		if _, err := f.Vector(dst, 500); err != nil {
			t.Fatal(err)
		}
	}
	st := f.Stats()
	if st.CachedPages == 0 {
		t.Fatalf("probe did not see the resident pages: %+v", st)
	}
	if st.CachedReads != 0 || st.DeviceReads() != 3 {
		t.Fatalf("O_DIRECT reads counted as served from the page cache: %+v", st)
	}
}

// TestNoReadAhead checks that a cold read does not pull its neighbours in
// (POSIX_FADV_RANDOM), so a cold run stays cold.
func TestNoReadAhead(t *testing.T) {
	p, _ := writeFile(t, 4000, 64, engine.L2) // 260-byte rows, ≈ 1 MB
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if left, err := f.Evict(); err != nil || left != 0 {
		t.Fatalf("evict: %d left, %v", left, err)
	}
	dst := make([]float32, 64)
	for _, id := range []engine.ID{100, 200, 300, 400} { // 26 KB apart
		if _, err := f.Vector(dst, id); err != nil {
			t.Fatal(err)
		}
	}
	if st := f.Stats(); st.CachedReads != 0 {
		t.Fatalf("cold reads found neighbours cached (read-ahead?): %+v", st)
	}
	cached, total, _ := f.Resident()
	if cached > 8 {
		t.Fatalf("%d of %d pages cached after 4 random reads", cached, total)
	}
}

func TestBadInput(t *testing.T) {
	p, _ := writeFile(t, 10, 8, engine.L2)
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Vector(make([]float32, 7), 0); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("wrong dst length: %v", err)
	}
	if _, err := f.Vector(make([]float32, 8), 10); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("id out of range: %v", err)
	}
	w, err := Create(filepath.Join(t.TempDir(), "w.vec"), 3, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, tc := range []struct {
		v    []float32
		want error
	}{
		{[]float32{1, 2}, engine.ErrDimension},
		{[]float32{1, float32(math.NaN()), 0}, engine.ErrInvalidVector},
		{[]float32{0, 0, 0}, engine.ErrZeroVector},
	} {
		if _, err := w.Append(tc.v); !errors.Is(err, tc.want) {
			t.Errorf("Append(%v) = %v, want %v", tc.v, err, tc.want)
		}
	}
	if w.Len() != 0 {
		t.Fatal("rejected vectors were appended")
	}
}

func TestCorruption(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(b []byte) []byte
		want   error
		onRead bool
	}{
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, engine.ErrCorrupt, false},
		{"future version", func(b []byte) []byte { b[8] = 9; return b }, engine.ErrVersion, false},
		{"header bit flip", func(b []byte) []byte { b[13] ^= 1; return b }, engine.ErrCorrupt, false},
		{"truncated", func(b []byte) []byte { return b[:dataOffset+5*(8*4+4)] }, engine.ErrCorrupt, false},
		{"empty", func(b []byte) []byte { return b[:0] }, engine.ErrCorrupt, false},
		{"row bit flip", func(b []byte) []byte { b[dataOffset+3*(8*4+4)+5] ^= 0x10; return b }, engine.ErrCorrupt, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := writeFile(t, 10, 8, engine.L2)
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, tc.mutate(b), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p, Options{})
			if !tc.onRead {
				if !errors.Is(err, tc.want) {
					t.Fatalf("Open = %v, want %v", err, tc.want)
				}
				if !strings.Contains(err.Error(), p) {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = f.Vector(make([]float32, 8), 3)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "offset 4204") {
				t.Fatalf("read of corrupt row = %v", err)
			}
			if err := f.Verify(); !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("Verify = %v", err)
			}
		})
	}
}

func TestModel(t *testing.T) {
	if s := GP3Baseline.String(); !strings.Contains(s, "simulated") {
		t.Fatalf("model String %q does not say simulated", s)
	}
	if _, err := ParseModel("floppy"); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatal("unknown model accepted")
	}
	if err := (Model{IOPS: -1}).Validate(); err == nil {
		t.Fatal("negative IOPS accepted")
	}
	p, _ := writeFile(t, 50, 8, engine.L2)
	// 1,000 IOPS ceiling: 20 sequential reads need ≥ 19 ms of admission gaps.
	f, err := Open(p, Options{Model: Model{Name: "t", Latency: 100 * time.Microsecond, IOPS: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	dst := make([]float32, 8)
	for i := 0; i < 20; i++ {
		if _, err := f.Vector(dst, engine.ID(i)); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 19*time.Millisecond {
		t.Fatalf("20 reads at 1000 IOPS took %v", el)
	}
	if f.Stats().Simulated <= 0 {
		t.Fatal("simulated delay not counted")
	}
}

func TestCommitAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.vec")
	w, err := Create(p, 4, engine.L2)
	if err != nil {
		t.Fatal(err)
	}
	w.Append([]float32{1, 2, 3, 4})
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("file visible before Commit")
	}
	w.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Abort left %d files", len(ents))
	}
}

func TestBlob(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.bin")
	data := make([]byte, 3*pageSize+100)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{}, {Direct: true}} {
		b, err := OpenBlob(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if left, err := b.Evict(); err != nil || left != 0 {
			t.Fatalf("evict: %d left, %v", left, err)
		}
		got := make([]byte, 5000)
		var st IOStats
		if err := b.ReadAt(got, 1000, &st); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, data[1000:6000]) {
			t.Fatalf("%v: bytes differ", opt)
		}
		if st.Reads != 1 || st.Pages != 2 || st.CachedReads != 0 {
			t.Fatalf("%v: stats %+v", opt, st)
		}
		if err := b.ReadAt(got, int64(len(data))-10, nil); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), p) {
			t.Fatalf("read past the end: %v", err)
		}
		b.Close()
	}
}

// TestReadVectors checks the batch read against one ReadVector per id on
// a twin file: the same vectors and the same counts (reads, bytes, pages,
// cached pages and reads), cold and warm, with ids sorted, unsorted, far
// apart (one mincore each) and sharing pages, for every read mode.
func TestReadVectors(t *testing.T) {
	const n, dim = 3000, 100 // 404-byte rows: ~10 to a page, some span two
	p, m := writeFile(t, n, dim, engine.L2)
	idsets := map[string][]engine.ID{
		"sorted":   {3, 4, 5, 90, 91, 800, 2999},
		"unsorted": {2999, 4, 800, 3, 91, 90, 5},
		"far":      {0, 1500, 2999},
		"repeated": {7, 7, 8, 7},
		"empty":    {},
	}
	for _, opt := range []Options{{}, {NoCacheProbe: true}, {Direct: true}, {ReadAhead: true}} {
		for name, ids := range idsets {
			t.Run(opt.String()+"/"+name, func(t *testing.T) {
				batch, err := Open(p, opt)
				if err != nil {
					t.Fatal(err)
				}
				defer batch.Close()
				one, err := Open(p, opt)
				if err != nil {
					t.Fatal(err)
				}
				defer one.Close()
				for _, cold := range []bool{true, false} {
					if cold {
						if left, err := batch.Evict(); err != nil || left != 0 {
							t.Fatalf("evict: %d left, %v", left, err)
						}
					} else {
						batch.Warm()
					}
					dst := make([]float32, len(ids)*dim)
					var bs IOStats
					if err := batch.ReadVectors(dst, ids, &bs); err != nil {
						t.Fatal(err)
					}
					// The twin reads the same ids one by one, from the
					// same page-cache state.
					if cold {
						one.Evict()
					} else {
						one.Warm()
					}
					var os IOStats
					row := make([]float32, dim)
					for i, id := range ids {
						if _, err := one.ReadVector(row, id, &os); err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(dst[i*dim:(i+1)*dim], m.Row(int(id))) || !slices.Equal(row, m.Row(int(id))) {
							t.Fatalf("cold=%t: vector %d (position %d) differs", cold, id, i)
						}
					}
					bs.ReadTime, os.ReadTime = 0, 0
					if bs != os {
						t.Fatalf("cold=%t: batch counted %+v, one by one %+v", cold, bs, os)
					}
					if !cold && !opt.NoCacheProbe && !opt.Direct && bs.CachedReads != bs.Reads {
						t.Fatalf("warm batch not served from the cache: %+v", bs)
					}
					if cold && !opt.NoCacheProbe && len(ids) > 0 && bs.CachedReads == bs.Reads {
						t.Fatalf("cold batch counted as cached: %+v", bs)
					}
				}
				if g, w := batch.Stats(), one.Stats(); g.Reads != w.Reads || g.Bytes != w.Bytes || g.CachedPages != w.CachedPages {
					t.Fatalf("file counters: batch %+v, one by one %+v", g, w)
				}
			})
		}
	}
}

func TestReadVectorsBadInput(t *testing.T) {
	p, _ := writeFile(t, 10, 8, engine.L2)
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ReadVectors(make([]float32, 15), []engine.ID{0, 1}, nil); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("short dst: %v", err)
	}
	var st IOStats
	if err := f.ReadVectors(make([]float32, 16), []engine.ID{0, 10}, &st); !errors.Is(err, engine.ErrNotFound) || st.Reads != 0 || f.Stats().Reads != 0 {
		t.Fatalf("id out of range: %v, counted %+v", err, st)
	}
	f.Close()
	if err := f.ReadVectors(make([]float32, 8), []engine.ID{0}, nil); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestMappedReadFault truncates the file under an open File: reading a
// row whose page is gone faults on the mapping, which must come back as
// an error naming the vector, not kill the process.
func TestMappedReadFault(t *testing.T) {
	p, _ := writeFile(t, 3000, 100, engine.L2)
	f, err := Open(p, Options{NoCacheProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(p, 8192); err != nil {
		t.Fatal(err)
	}
	_, err = f.Vector(make([]float32, 100), 2500)
	if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "vector 2500") {
		t.Fatalf("read past the truncated end: %v", err)
	}
	if err := f.ReadVectors(make([]float32, 200), []engine.ID{1, 2900}, nil); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "vector 2900") {
		t.Fatalf("batch past the truncated end: %v", err)
	}
}

// TestEvictDropsOtherMappings reads a file through one File's mapping and
// evicts it through another File and through a Blob of the same path:
// the pages must go (POSIX_FADV_DONTNEED alone skips mapped pages).
func TestEvictDropsOtherMappings(t *testing.T) {
	p, _ := writeFile(t, 2000, 64, engine.L2)
	reader, err := Open(p, Options{NoCacheProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	other, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	blob, err := OpenBlob(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer blob.Close()
	dst := make([]float32, 64*2000)
	ids := make([]engine.ID, 2000)
	for i := range ids {
		ids[i] = engine.ID(i)
	}
	for _, evict := range []func() (int, error){other.Evict, blob.Evict} {
		if err := reader.ReadVectors(dst, ids, nil); err != nil {
			t.Fatal(err)
		}
		if left, err := evict(); err != nil || left != 0 {
			t.Fatalf("evict after mapped reads: %d pages left, %v", left, err)
		}
	}
}
