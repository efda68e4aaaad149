package measure

import (
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/dataset"
)

// diskFixture is the smallSet with an IVF (2-bit lists), an HNSW graph
// walked with two_bits codes, and its vector file on an in-memory file
// system, whose page cache engine/store simulates (so eviction is exact
// on any machine).
type diskFixture struct {
	ds   *dataset.Dataset
	q    *Queries
	iv   *ivf.Index
	hn   *hnsw.Index
	fsys *vfs.MemFS
	vf   *store.File
	rs   *rescore.Rescorer
}

func newDiskFixture(t *testing.T) *diskFixture {
	t.Helper()
	f := &diskFixture{ds: smallSet(t), fsys: vfs.NewMem()}
	var err error
	if f.q, err = Exact(f.ds, 10, engine.Cosine); err != nil {
		t.Fatal(err)
	}
	if f.iv, err = ivf.Build(f.ds.Base, ivf.Config{Metric: engine.Cosine, Bits: 2, ClusterSize: 100, Seed: 1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	bq, err := quant.TrainBinary(f.ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
	if err != nil {
		t.Fatal(err)
	}
	if f.hn, err = hnsw.New(hnsw.Config{Dim: f.ds.Base.Dim, Metric: engine.Cosine, M: 8, EfConstruction: 50, Seed: 1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, f.ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := f.hn.AddBatch(keys, f.ds.Base); err != nil {
		t.Fatal(err)
	}
	if err := f.hn.AttachCodes(quant.NewStore(bq)); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteMatrixFS(f.fsys, "/v.vec", f.ds.Base, engine.Cosine); err != nil {
		t.Fatal(err)
	}
	if f.vf, err = store.OpenFS(f.fsys, "/v.vec", store.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.vf.Close() })
	if f.rs, err = rescore.New(f.vf, engine.Cosine, rescore.Options{}); err != nil {
		t.Fatal(err)
	}
	return f
}

// The sweeps label and parametrise each point, read exactly ⌈oversample·k⌉
// originals per query, and a full scan with oversample 3 finds nearly
// every true neighbour; cold, the device serves reads, warm none,
// and the answers are the same.
func TestDiskSweepsAndCache(t *testing.T) {
	f := newDiskFixture(t)
	iv, err := SweepVisit(f.iv, []float64{10, 100}, 3, f.rs, f.q)
	if err != nil {
		t.Fatal(err)
	}
	hn, err := SweepEfDisk(f.hn, []int{20, 200}, 1, f.rs, f.q)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		r     DiskResult
		label string
		param float64
		reads float64
	}{{iv[0], "visit=10%", 10, 30}, {iv[1], "visit=100%", 100, 30}, {hn[0], "ef=20", 20, 10}, {hn[1], "ef=200", 200, 10}} {
		if c.r.Label != c.label || c.r.Param != c.param || c.r.Reads != c.reads || c.r.K != 10 || c.r.Queries != f.q.Vectors.N || !(c.r.QPS > 0) {
			t.Errorf("point %d: %+v, want %s, param %v, %v reads/q", i, c.r, c.label, c.param, c.reads)
		}
	}
	if iv[1].Recall < 0.9 || iv[1].Recall < iv[0].Recall {
		t.Errorf("IVF recall@10 %.3f at visit 100%% (%.3f at 10%%): a full scan rescoring 30 should find nearly all", iv[1].Recall, iv[0].Recall)
	}
	search := IVFDisk(f.iv, 100, 3, f.rs)
	cold, err := Disk("cold", search, f.q, Evict(f.vf))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.vf.Warm(); err != nil {
		t.Fatal(err)
	}
	warm, err := Disk("warm", search, f.q, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Cold, the first read of each page goes to the device (rows of 24
	// dimensions share pages, so later reads of a query may hit); warm, none.
	if cold.DeviceReads <= 0 || cold.DeviceReads > cold.Reads || cold.DevPages <= 0 || warm.DeviceReads != 0 || warm.DevPages != 0 {
		t.Errorf("cold %v of %v reads from the device (%v pages), warm %v (%v pages): want some, then none",
			cold.DeviceReads, cold.Reads, cold.DevPages, warm.DeviceReads, warm.DevPages)
	}
	if cold.Recall != warm.Recall || cold.Recall != iv[1].Recall {
		t.Errorf("recall cold %.3f, warm %.3f, sweep %.3f: the cache must not change the answers", cold.Recall, warm.Recall, iv[1].Recall)
	}
	tb, err := DiskTable("points", append(iv, hn...))
	if err != nil || len(tb.Rows) != 4 {
		t.Errorf("DiskTable: %v, %v", tb, err)
	}
}

// Every bad argument is an error wrapping engine.ErrInvalidArgument,
// named in the caller's terms, never a panic.
func TestDiskBadArguments(t *testing.T) {
	f := newDiskFixture(t)
	bad := []struct {
		name string
		run  func() error
	}{
		{"Disk without a search", func() error { _, err := Disk("x", nil, f.q, nil); return err }},
		{"Disk without queries", func() error { _, err := Disk("x", IVFDisk(f.iv, 5, 1, f.rs), nil, nil); return err }},
		{"IVFDisk without a rescorer", func() error { _, err := Disk("x", IVFDisk(f.iv, 5, 1, nil), f.q, nil); return err }},
		{"HNSWDisk without an index", func() error { _, err := Disk("x", HNSWDisk(nil, 5, 1, f.rs), f.q, nil); return err }},
		{"visit 0", func() error { _, err := SweepVisit(f.iv, []float64{0}, 1, f.rs, f.q); return err }},
		{"visit 101", func() error { _, err := SweepVisit(f.iv, []float64{101}, 1, f.rs, f.q); return err }},
		{"visit NaN", func() error { _, err := SweepVisit(f.iv, []float64{math.NaN()}, 1, f.rs, f.q); return err }},
		{"no visit", func() error { _, err := SweepVisit(f.iv, nil, 1, f.rs, f.q); return err }},
		{"oversample 0.5", func() error { _, err := SweepVisit(f.iv, []float64{5}, 0.5, f.rs, f.q); return err }},
		{"oversample +Inf", func() error { _, err := SweepEfDisk(f.hn, []int{5}, math.Inf(1), f.rs, f.q); return err }},
		{"ef 0", func() error { _, err := SweepEfDisk(f.hn, []int{0}, 1, f.rs, f.q); return err }},
		{"no ef", func() error { _, err := SweepEfDisk(f.hn, nil, 1, f.rs, f.q); return err }},
		{"First(0)", func() error { _, err := f.q.First(0); return err }},
		{"Evict a nil file", func() error { return Evict(nil)() }},
		{"DiskTable of nothing", func() error { _, err := DiskTable("x", nil); return err }},
	}
	for _, c := range bad {
		if err := c.run(); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: %v, want an error wrapping engine.ErrInvalidArgument", c.name, err)
		}
	}
}

// First keeps the first n queries with their own answers, and all of
// them when n is larger.
func TestQueriesFirst(t *testing.T) {
	f := newDiskFixture(t)
	q3, err := f.q.First(3)
	if err != nil {
		t.Fatal(err)
	}
	if q3.Vectors.N != 3 || len(q3.Truth) != 3 || q3.Truth[2][0] != f.q.Truth[2][0] || &q3.Vectors.Row(2)[0] != &f.q.Vectors.Row(2)[0] {
		t.Errorf("First(3): %d queries, %d answers", q3.Vectors.N, len(q3.Truth))
	}
	if all, err := f.q.First(1000); err != nil || all != f.q {
		t.Errorf("First(1000) = %v, %v: want the queries themselves", all, err)
	}
	r, err := Disk("three", IVFDisk(f.iv, 100, 1, f.rs), q3, nil)
	if err != nil || r.Queries != 3 {
		t.Errorf("Disk on First(3): %+v, %v", r, err)
	}
}
