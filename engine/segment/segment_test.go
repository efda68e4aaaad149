package segment

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

const testDim = 16

func testConfig(fsys vfs.FS) Config {
	return Config{FS: fsys, Dir: "coll", Dim: testDim, Metric: engine.L2, Graph: hnsw.Config{M: 8, EfConstruction: 64},
		BuildWorkers: 1, Seed: 7, FlushDocs: 1 << 30}
}

func docs(m *vec.Matrix, from, to int) []Doc {
	out := make([]Doc, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, Doc{Key: uint64(i), Vector: m.Row(i), Source: []byte(fmt.Sprintf(`{"id":%d,"title":"doc %d"}`, i, i))})
	}
	return out
}

func keys(hs []Hit) []uint64 {
	out := make([]uint64, len(hs))
	for i, h := range hs {
		out[i] = h.Key
	}
	return out
}

func recallKeys(got []Hit, want []engine.Result) float64 {
	set := map[uint64]bool{}
	for _, r := range want {
		set[uint64(r.ID)] = true
	}
	hit := 0
	for _, h := range got {
		if set[h.Key] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// TestLifecycle walks a collection through every state: acknowledged but
// invisible, refreshed, deleted, updated, merged, committed and reopened.
func TestLifecycle(t *testing.T) {
	fsys := vfs.NewMem()
	data := indextest.Clustered(1200, testDim, 8, 1)
	c, err := Open(testConfig(fsys))
	if err != nil {
		t.Fatal(err)
	}
	q := data.Row(5)
	if _, _, err := c.Search(q, Options{K: 5}); !errors.Is(err, engine.ErrEmpty) {
		t.Fatalf("search of an empty collection: %v, want ErrEmpty", err)
	}
	for b := 0; b < 4; b++ {
		if err := c.Add(docs(data, b*250, (b+1)*250)); err != nil {
			t.Fatal(err)
		}
		if c.Acknowledged() != (b+1)*250 || c.Searchable() != b*250 {
			t.Fatalf("batch %d: acknowledged %d, searchable %d; want %d and %d (invisible until refresh)",
				b, c.Acknowledged(), c.Searchable(), (b+1)*250, b*250)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(c.Segments()); got != 4 {
		t.Fatalf("%d segments after 4 refreshes", got)
	}
	hs, st, err := c.Search(q, Options{K: 5, Ef: 64})
	if err != nil {
		t.Fatal(err)
	}
	if hs[0].Key != 5 || hs[0].Dist != 0 || st.Segments != 4 {
		t.Fatalf("nearest to row 5: %v (segments %d)", hs, st.Segments)
	}
	// Delete and update.
	if n, err := c.Delete(5, 6, 99999); err != nil || n != 2 {
		t.Fatalf("Delete: %d, %v", n, err)
	}
	hs, _, _ = c.Search(q, Options{K: 5, Ef: 64})
	for _, h := range hs {
		if h.Key == 5 || h.Key == 6 {
			t.Fatalf("deleted key %d returned", h.Key)
		}
	}
	moved := append([]float32(nil), data.Row(700)...)
	if err := c.Add([]Doc{{Key: 10, Vector: moved, Source: []byte("v2")}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	if c.Acknowledged() != 998 || c.Searchable() != 998 {
		t.Fatalf("after delete and update: acknowledged %d, searchable %d, want 998", c.Acknowledged(), c.Searchable())
	}
	if _, src, err := c.Get(10); err != nil || string(src) != "v2" {
		t.Fatalf("Get(10) = %q, %v; want the new version", src, err)
	}
	// Force merge to one segment and reopen from the commit.
	if err := c.ForceMerge(1); err != nil {
		t.Fatal(err)
	}
	if segs := c.Segments(); len(segs) != 1 || segs[0].Docs != 998 || segs[0].Deleted != 0 {
		t.Fatalf("after force merge: %+v", segs)
	}
	before, _, _ := c.Search(q, Options{K: 10, Ef: 64, Fetch: Source})
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	names, _ := fsys.List("coll")
	if len(names) != 3 {
		t.Fatalf("files after commit of one merged segment: %v (want the commit point, the segment and its graph)", names)
	}
	c2, err := Open(testConfig(fsys))
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := c2.Search(q, Options{K: 10, Ef: 64, Fetch: Source})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys(before)) != fmt.Sprint(keys(after)) || string(after[0].Source) != string(before[0].Source) {
		t.Fatalf("reopened: %v, before: %v", keys(after), keys(before))
	}
}

// TestVisibilityOnAdd: under OnAdd a batch is searchable when Add returns.
func TestVisibilityOnAdd(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Visibility = OnAdd
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(300, testDim, 4, 2)
	for b := 0; b < 3; b++ {
		if err := c.Add(docs(data, b*100, (b+1)*100)); err != nil {
			t.Fatal(err)
		}
		if c.Searchable() != (b+1)*100 {
			t.Fatalf("batch %d: searchable %d right after Add", b, c.Searchable())
		}
	}
}

// TestBadBatch: a bad document refuses the whole batch, naming it.
func TestBadBatch(t *testing.T) {
	c, err := Open(testConfig(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(10, testDim, 2, 3)
	nan := append([]float32(nil), data.Row(3)...)
	nan[2] = float32(math.NaN())
	cases := []struct {
		name string
		doc  Doc
		want error
		pos  string
	}{
		{"short vector", Doc{Key: 100, Vector: data.Row(3)[:5]}, engine.ErrDimension, "document 4"},
		{"NaN", Doc{Key: 100, Vector: nan}, engine.ErrInvalidVector, "document 4"},
		{"duplicate key", Doc{Key: 2, Vector: data.Row(3)}, engine.ErrDuplicateID, "documents 2 and 4"},
	}
	for _, tc := range cases {
		batch := append(docs(data, 0, 4), tc.doc)
		err := c.Add(batch)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.pos) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.pos)
		}
		if c.Acknowledged() != 0 {
			t.Fatalf("%s: %d documents acknowledged from a refused batch", tc.name, c.Acknowledged())
		}
	}
	if err := c.Refresh(); err != nil || c.Searchable() != 0 {
		t.Fatalf("refused batches became searchable: %d, %v", c.Searchable(), err)
	}
}

// TestMultiSegmentSearch checks each search mode against exact search and
// that the shared bound saves distance computations at equal recall.
func TestMultiSegmentSearch(t *testing.T) {
	data := indextest.Clustered(4000, testDim, 10, 4)
	queries := indextest.Clustered(50, testDim, 10, 5)
	c, err := Open(testConfig(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 16; b++ {
		if err := c.Add(docs(data, b*250, (b+1)*250)); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	exact, err := flat.New(data, flat.Config{Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	const k = 10
	type row struct {
		recall float64
		dists  int
	}
	run := func(o Options) row {
		var r row
		for i := 0; i < queries.N; i++ {
			want, _, _ := exact.Search(queries.Row(i), k, nil)
			got, st, err := c.Search(queries.Row(i), o)
			if err != nil {
				t.Fatal(err)
			}
			r.recall += recallKeys(got, want) / float64(queries.N)
			r.dists += st.DistComps
		}
		return r
	}
	seq := run(Options{K: k, Ef: 40})
	conc := run(Options{K: k, Ef: 40, Mode: Concurrent})
	shared := run(Options{K: k, Ef: 40, SharedBound: true})
	t.Logf("16 segments: sequential recall %.3f (%d distances), concurrent %.3f, shared bound %.3f (%d distances)",
		seq.recall, seq.dists, conc.recall, shared.recall, shared.dists)
	if seq.recall < 0.95 || conc.recall != seq.recall {
		t.Fatalf("recall: sequential %.3f, concurrent %.3f (want ≥ 0.95 and equal)", seq.recall, conc.recall)
	}
	// The bound prunes: fewer distances at the same ef, for some recall
	// (whether it wins at equal recall is measured by bench segments).
	if shared.dists >= seq.dists*3/4 || shared.recall < 0.9 {
		t.Fatalf("shared bound: %d distances at recall %.3f vs %d at %.3f without", shared.dists, shared.recall, seq.dists, seq.recall)
	}
}

// TestFetch: ids from the column read no stored fields; from stored
// fields they decompress blocks, and both give the same keys.
func TestFetch(t *testing.T) {
	data := indextest.Clustered(2000, testDim, 6, 6)
	cfg := testConfig(vfs.NewMem())
	cfg.StoredBlockBytes = 4 << 10
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(docs(data, 0, 2000)); err != nil {
		t.Fatal(err)
	}
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	q := data.Row(17)
	col, st1, _ := c.Search(q, Options{K: 10, Ef: 50})
	sto, st2, _ := c.Search(q, Options{K: 10, Ef: 50, Fetch: IDsFromStored})
	src, _, _ := c.Search(q, Options{K: 10, Ef: 50, Fetch: Source})
	if fmt.Sprint(keys(col)) != fmt.Sprint(keys(sto)) || fmt.Sprint(keys(col)) != fmt.Sprint(keys(src)) {
		t.Fatalf("keys differ: column %v, stored %v, source %v", keys(col), keys(sto), keys(src))
	}
	if st1.Decompressed != 0 || st2.Decompressed == 0 || st2.Blocks == 0 {
		t.Fatalf("decompressed: column %d, stored %d bytes in %d blocks", st1.Decompressed, st2.Decompressed, st2.Blocks)
	}
	want := fmt.Sprintf(`{"id":%d,"title":"doc %d"}`, src[0].Key, src[0].Key)
	if string(src[0].Source) != want {
		t.Fatalf("source %q, want %q", src[0].Source, want)
	}
	lazy, _, _ := c.Search(q, Options{K: 1, Ef: 50, Fetch: Lazy})
	body, n, err := c.Source(lazy[0])
	if err != nil || string(body) != want || n == 0 {
		t.Fatalf("lazy source %q (%d bytes decompressed), %v", body, n, err)
	}
}

// TestTieredMerge: the policy keeps the segment count bounded as
// refreshes add small segments, and merges keep every document.
func TestTieredMerge(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Merge = MergePolicy{SegmentsPerTier: 4, MaxMergeAtOnce: 4, FloorDocs: 100}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(3000, testDim, 6, 8)
	for b := 0; b < 30; b++ {
		if err := c.Add(docs(data, b*100, (b+1)*100)); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.MaybeMerge(); err != nil {
			t.Fatal(err)
		}
		if n := len(c.Segments()); n > 12 {
			t.Fatalf("after %d refreshes: %d segments", b+1, n)
		}
	}
	if c.Searchable() != 3000 {
		t.Fatalf("searchable %d after merges, want 3000", c.Searchable())
	}
	for i := 0; i < 3000; i += 97 {
		if _, _, err := c.Get(uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackgroundMergeConcurrent: searches and adds go on while merges run
// in the background (run under -race in CI).
func TestBackgroundMergeConcurrent(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Merge = MergePolicy{SegmentsPerTier: 3, MaxMergeAtOnce: 3, FloorDocs: 50}
	cfg.BackgroundMerge = true
	cfg.Visibility = OnAdd
	cfg.Writers = 2
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(2000, testDim, 6, 9)
	if err := c.Add(docs(data, 0, 50)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	for w := 0; w < 2; w++ {
		go func() {
			for b := 1 + w; b < 40; b += 2 {
				if err := c.Add(docs(data, b*50, (b+1)*50)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for i := 0; i < 200; i++ {
			if _, _, err := c.Search(data.Row(i), Options{K: 5, Ef: 20, Mode: Concurrent, SharedBound: i%2 == 0}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 3; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Searchable() != 2000 {
		t.Fatalf("searchable %d, want 2000", c.Searchable())
	}
}

// TestFlatSegments: plain segments (exact scan) answer exactly.
func TestFlatSegments(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Index = Flat
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(600, testDim, 4, 10)
	for b := 0; b < 3; b++ {
		c.Add(docs(data, b*200, (b+1)*200))
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	exact, _ := flat.New(data, flat.Config{Metric: engine.L2})
	want, _, _ := exact.Search(data.Row(1), 10, nil)
	got, _, err := c.Search(data.Row(1), Options{K: 10})
	if err != nil || recallKeys(got, want) != 1 {
		t.Fatalf("flat segments: %v vs %v (%v)", keys(got), want, err)
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got2, _, _ := c2.Search(data.Row(1), Options{K: 10})
	if fmt.Sprint(keys(got2)) != fmt.Sprint(keys(got)) {
		t.Fatalf("reopened flat segments: %v, before %v", keys(got2), keys(got))
	}
}

// TestFullDisk: a flush refused by the disk watermark is a clear error and
// the collection reopens at its last commit.
func TestFullDisk(t *testing.T) {
	mem := vfs.NewMem()
	const total = 1 << 30
	used := uint64(total / 2)
	wfs, err := vfs.NewWatermark(vfs.Watermark{FS: mem, Usage: func(string) (uint64, uint64, error) { return used, total, nil }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(wfs)
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(400, testDim, 4, 11)
	c.Add(docs(data, 0, 200))
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	used = total / 100 * 97
	c.Add(docs(data, 200, 400))
	err = c.Commit()
	if !errors.Is(err, vfs.ErrDiskWatermark) {
		t.Fatalf("commit on a full disk: %v, want ErrDiskWatermark", err)
	}
	used = total / 2
	c2, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Searchable() != 200 {
		t.Fatalf("reopened after a refused flush: %d documents, want the 200 committed", c2.Searchable())
	}
	// A merge refused mid-way: the error names the watermark, the
	// segments stay as they were, and the last commit still opens.
	c2.Add(docs(data, 200, 400))
	if err := c2.Commit(); err != nil {
		t.Fatal(err)
	}
	before := len(c2.Segments())
	used = total / 100 * 97
	err = c2.ForceMerge(1)
	if !errors.Is(err, vfs.ErrDiskWatermark) || !strings.Contains(err.Error(), "watermark") {
		t.Fatalf("merge on a full disk: %v, want ErrDiskWatermark", err)
	}
	if n := len(c2.Segments()); n != before || c2.Searchable() != 400 {
		t.Fatalf("after a refused merge: %d segments (was %d), %d searchable", n, before, c2.Searchable())
	}
	used = total / 2
	c3, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c3.Searchable() != 400 || len(c3.Segments()) != before {
		t.Fatalf("reopened after a refused merge: %d documents in %d segments", c3.Searchable(), len(c3.Segments()))
	}
}

// TestHeadVisibilities: the appendable head under each store's rule —
// pgvector's (searchable on return), Redis's (searchable once indexed in
// the background) and Qdrant's (searched exactly at once, indexed past the
// threshold) — with deletes and updates of head documents, and a commit
// that makes the head durable.
func TestHeadVisibilities(t *testing.T) {
	data := indextest.Clustered(900, testDim, 6, 13)
	for _, vis := range []Visibility{OnAdd, Queued, Plain} {
		t.Run(vis.String(), func(t *testing.T) {
			fsys := vfs.NewMem()
			cfg := testConfig(fsys)
			cfg.Visibility = vis
			cfg.IndexingThreshold = 600
			cfg.IndexChunk = 32
			c, err := Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3; b++ {
				if err := c.Add(docs(data, b*300, (b+1)*300)); err != nil {
					t.Fatal(err)
				}
				if vis != Queued && c.Searchable() != (b+1)*300 {
					t.Fatalf("batch %d: %d searchable right after Add", b, c.Searchable())
				}
				if c.Acknowledged() != (b+1)*300 {
					t.Fatalf("batch %d: %d acknowledged", b, c.Acknowledged())
				}
			}
			if err := c.WaitIndexed(); err != nil {
				t.Fatal(err)
			}
			if c.Searchable() != 900 {
				t.Fatalf("after WaitIndexed: %d searchable", c.Searchable())
			}
			if vis == Plain {
				kinds := map[IndexKind]int{}
				for _, s := range c.Segments() {
					kinds[s.Index]++
				}
				if kinds[HNSW] != 1 || kinds[Flat] != 1 {
					t.Fatalf("plain head past the threshold: segments %+v, want one indexed and one plain", c.Segments())
				}
			}
			if n, _ := c.Delete(899, 3); n != 2 {
				t.Fatalf("deleted %d", n)
			}
			moved := append([]float32(nil), data.Row(0)...)
			if err := c.Add([]Doc{{Key: 898, Vector: moved, Source: []byte("v2")}}); err != nil {
				t.Fatal(err)
			}
			c.WaitIndexed()
			hs, _, err := c.Search(data.Row(0), Options{K: 3, Ef: 50, Fetch: Source})
			if err != nil {
				t.Fatal(err)
			}
			if hs[0].Dist > 1e-6 || (hs[0].Key != 0 && hs[0].Key != 898) {
				t.Fatalf("nearest to row 0: %+v", hs)
			}
			for _, h := range hs {
				if h.Key == 3 || h.Key == 899 {
					t.Fatalf("deleted key %d returned", h.Key)
				}
			}
			if c.Searchable() != 898 || c.Acknowledged() != 898 {
				t.Fatalf("searchable %d, acknowledged %d; want 898 (900, two deleted, one updated)", c.Searchable(), c.Acknowledged())
			}
			if err := c.Commit(); err != nil {
				t.Fatal(err)
			}
			c.Close()
			c2, err := Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			if c2.Searchable() != 898 {
				t.Fatalf("reopened: %d documents, want 898", c2.Searchable())
			}
			if _, src, err := c2.Get(898); err != nil || string(src) != "v2" {
				t.Fatalf("Get(898) after reopen: %q, %v", src, err)
			}
		})
	}
}

// TestQueuedSearchesSeeIndexedOnly: under Queued a search never sees a
// document before the indexer has put it in the graph.
func TestQueuedSearchesSeeIndexedOnly(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Visibility = Queued
	cfg.IndexChunk = 16
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := indextest.Clustered(2000, testDim, 6, 14)
	if err := c.Add(docs(data, 0, 2000)); err != nil {
		t.Fatal(err)
	}
	seen := c.Searchable()
	if seen == 2000 {
		t.Logf("the indexer finished before the first look (fast machine)")
	}
	for c.Searchable() < 2000 {
		n := c.Searchable()
		if n < seen {
			t.Fatalf("searchable went back from %d to %d", seen, n)
		}
		seen = n
		if _, _, err := c.Search(data.Row(1999), Options{K: 1, Ef: 20}); err != nil && n > 0 {
			t.Fatal(err)
		}
	}
	if err := c.WaitIndexed(); err != nil {
		t.Fatal(err)
	}
}

// TestIVFSegments: IVF segments probe a fraction of their lists, answer
// the same after a reopen (the lists are re-clustered with the same seed)
// and reach full recall when every list is visited.
func TestIVFSegments(t *testing.T) {
	fsys := vfs.NewMem()
	cfg := testConfig(fsys)
	cfg.Index = IVF
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(3000, testDim, 8, 15)
	for b := 0; b < 3; b++ {
		c.Add(docs(data, b*1000, (b+1)*1000))
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	exact, _ := flat.New(data, flat.Config{Metric: engine.L2})
	var part, all float64
	var partDist, allDist int
	for i := 0; i < 20; i++ {
		q := data.Row(i * 7)
		want, _, _ := exact.Search(q, 10, nil)
		a, st1, err := c.Search(q, Options{K: 10, Visit: 0.34})
		if err != nil {
			t.Fatal(err)
		}
		b, st2, _ := c.Search(q, Options{K: 10, Visit: 1})
		part += recallKeys(a, want) / 20
		all += recallKeys(b, want) / 20
		partDist += st1.DistComps
		allDist += st2.DistComps
	}
	if all < 1-1e-9 || part > all || partDist >= allDist {
		t.Fatalf("IVF segments: recall %.3f at a third of the lists (%d distances), %.3f at all (%d)", part, partDist, all, allDist)
	}
	if _, _, err := c.Search(data.Row(0), Options{K: 10, Visit: 1.5}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("visit 1.5: %v", err)
	}
	before, _, _ := c.Search(data.Row(3), Options{K: 10, Visit: 0.34})
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	after, _, _ := c2.Search(data.Row(3), Options{K: 10, Visit: 0.34})
	if fmt.Sprint(keys(before)) != fmt.Sprint(keys(after)) {
		t.Fatalf("reopened IVF segments answer %v, before %v", keys(after), keys(before))
	}
}

// TestGraphTemplate: a segment's graph follows the template (here
// pgvector's insertion policy) with the collection's seed per segment.
func TestGraphTemplate(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Graph = hnsw.PgvectorConfig(testDim, engine.L2, 8, 32)
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := indextest.Clustered(300, testDim, 4, 16)
	c.Add(docs(data, 0, 300))
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	g := c.snap[0].graph.Config()
	want := hnsw.PgvectorConfig(testDim, engine.L2, 8, 32)
	if g.Selection != want.Selection || g.KeepPruned != want.KeepPruned || g.NewNodeDegreeL0 != want.NewNodeDegreeL0 || g.M != 8 || g.Seed != cfg.Seed+c.snap[0].id {
		t.Fatalf("segment graph %v, want pgvector's policy %v with seed %d", g, want, cfg.Seed+c.snap[0].id)
	}
	bad := testConfig(vfs.NewMem())
	bad.Graph.M = 1
	if _, err := Open(bad); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "Graph") {
		t.Fatalf("M = 1: %v", err)
	}
}

// TestPlainHeads: under Plain with two heads each batch goes to the
// smaller head (a new head counts as empty; ties go to the first slot),
// each head is indexed on its own once it holds IndexingThreshold
// documents, and heads under it stay plain and are counted as exact scans
// (Qdrant's default_segment_number appendable segments). 14 batches of
// 100 at threshold 600: slot 0 takes batches 0, 2, …, 10 (indexed at
// 600), slot 1 batches 1, 3, …, 9 (500), then slot 0's new head 11–13
// (300). Heads > 1 under another visibility is refused.
func TestPlainHeads(t *testing.T) {
	cfg := testConfig(vfs.NewMem())
	cfg.Visibility, cfg.Heads, cfg.IndexingThreshold = Plain, 2, 600
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := indextest.Clustered(1400, testDim, 6, 17)
	for b := 0; b < 14; b++ {
		if err := c.Add(docs(data, b*100, (b+1)*100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.WaitIndexed(); err != nil {
		t.Fatal(err)
	}
	if c.Indexing() {
		t.Fatal("Indexing after WaitIndexed")
	}
	var hnswDocs, flats []int
	for i, s := range c.Segments() {
		d, err := c.Segment(i)
		if err != nil || d.ID != s.ID || len(d.Keys) != s.Docs || d.Vectors.N != s.Docs {
			t.Fatalf("Segment(%d) = %+v, %v; Segments()[%d] = %+v", i, d.SegmentInfo, err, i, s)
		}
		switch s.Index {
		case HNSW:
			hnswDocs = append(hnswDocs, s.Docs)
		case Flat:
			flats = append(flats, s.Docs)
		}
	}
	slices.Sort(flats)
	if !slices.Equal(hnswDocs, []int{600}) || !slices.Equal(flats, []int{300, 500}) {
		t.Fatalf("segments %+v: want one indexed of 600 and plain heads of 500 and 300", c.Segments())
	}
	_, st, err := c.Search(data.Row(5), Options{K: 5, Ef: 40})
	if err != nil || st.Segments != 3 || st.Exact != 2 {
		t.Fatalf("search: %+v, %v; want 3 segments, 2 scanned exactly", st, err)
	}
	if _, err := c.Segment(3); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("Segment(3) of 3: %v", err)
	}
	// Merged, the plain heads stay plain while under the threshold, and
	// the whole collection passes it.
	small, err := Open(func() Config { c := cfg; c.FS = vfs.NewMem(); return c }())
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	for b := 0; b < 2; b++ {
		if err := small.Add(docs(data, b*100, (b+1)*100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := small.ForceMerge(1); err != nil {
		t.Fatal(err)
	}
	if segs := small.Segments(); len(segs) != 1 || segs[0].Index != Flat || segs[0].Docs != 200 {
		t.Fatalf("two plain heads of 100 merged: %+v, want one plain segment of 200", segs)
	}
	if err := c.ForceMerge(1); err != nil {
		t.Fatal(err)
	}
	if segs := c.Segments(); len(segs) != 1 || segs[0].Index != HNSW || segs[0].Docs != 1400 {
		t.Fatalf("everything merged: %+v, want one indexed segment of 1400", segs)
	}
	bad := testConfig(vfs.NewMem())
	bad.Visibility, bad.Heads = OnAdd, 2
	if _, err := Open(bad); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "Heads") {
		t.Fatalf("Heads 2 under OnAdd: %v", err)
	}
}

// TestIdleMerge: with IdleMerge, the collection TestPlainHeads builds
// (one indexed segment and two plain heads) merges itself down to two
// segments in the background once the indexing optimizer is idle, into
// the same segments, with the same graphs, as a ForceMerge(2) called after
// WaitIndexed without it; IdleMerge needs the Plain visibility.
func TestIdleMerge(t *testing.T) {
	data := indextest.Clustered(1400, testDim, 6, 17)
	build := func(idle int) *Collection {
		cfg := testConfig(vfs.NewMem())
		cfg.Visibility, cfg.Heads, cfg.IndexingThreshold, cfg.IdleMerge = Plain, 2, 600, idle
		c, err := Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		for b := 0; b < 14; b++ {
			if err := c.Add(docs(data, b*100, (b+1)*100)); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.WaitIndexed(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	bg := build(2)
	if c := bg.Segments(); len(c) != 2 || bg.Indexing() {
		t.Fatalf("after WaitIndexed with IdleMerge 2: segments %+v (indexing %v), want 2", c, bg.Indexing())
	}
	fg := build(0)
	if n := len(fg.Segments()); n != 3 {
		t.Fatalf("without IdleMerge: %d segments, want 3 (no merge)", n)
	}
	if err := fg.ForceMerge(2); err != nil {
		t.Fatal(err)
	}
	a, b := bg.Segments(), fg.Segments()
	for i := range a {
		a[i].Committed, b[i].Committed = false, false
	}
	if !slices.Equal(a, b) {
		t.Fatalf("background merge %+v, ForceMerge %+v", a, b)
	}
	for q := 0; q < 50; q++ {
		ha, _, err1 := bg.Search(data.Row(q*7), Options{K: 10, Ef: 40})
		hb, _, err2 := fg.Search(data.Row(q*7), Options{K: 10, Ef: 40})
		if err1 != nil || err2 != nil || !slices.Equal(keys(ha), keys(hb)) {
			t.Fatalf("query %d: background %v (%v), ForceMerge %v (%v)", q, keys(ha), err1, keys(hb), err2)
		}
	}
	cfg := testConfig(vfs.NewMem())
	cfg.Visibility, cfg.IdleMerge = Queued, 2
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "IdleMerge") {
		t.Errorf("IdleMerge under Queued: %v, want an error naming IdleMerge", err)
	}
}

// TestSegmentCPU: with Options.SegmentCPU every segment's search has a
// thread CPU time (on Linux), sequential or concurrent, with the same
// hits as without it; without the option the slice stays nil.
func TestSegmentCPU(t *testing.T) {
	data := indextest.Clustered(1200, testDim, 10, 7)
	cfg := testConfig(vfs.NewMem())
	cfg.SearchWorkers = 2
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 4; b++ {
		if err := c.Add(docs(data, b*300, (b+1)*300)); err != nil {
			t.Fatal(err)
		}
		if err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	q := data.Row(5)
	plain, st, err := c.Search(q, Options{K: 10, Ef: 40})
	if err != nil {
		t.Fatal(err)
	}
	if st.SegmentCPU != nil {
		t.Fatalf("SegmentCPU = %v without the option, want nil", st.SegmentCPU)
	}
	for _, mode := range []Mode{Sequential, Concurrent} {
		hits, st, err := c.Search(q, Options{K: 10, Ef: 40, Mode: mode, SegmentCPU: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(hits, plain, func(a, b Hit) bool { return a.Key == b.Key && a.Dist == b.Dist }) {
			t.Fatalf("mode %d: timing the segments changed the hits", mode)
		}
		if runtime.GOOS != "linux" {
			if st.SegmentCPU != nil {
				t.Fatalf("mode %d: SegmentCPU = %v off Linux, want nil", mode, st.SegmentCPU)
			}
			continue
		}
		if len(st.SegmentCPU) != st.Segments || st.Segments != 4 {
			t.Fatalf("mode %d: %d CPU times for %d segments, want 4", mode, len(st.SegmentCPU), st.Segments)
		}
		for i, d := range st.SegmentCPU {
			if d <= 0 {
				t.Errorf("mode %d: segment %d's search took %v of CPU, want > 0", mode, i, d)
			}
		}
	}
}
