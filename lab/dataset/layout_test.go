package dataset

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

const glove3k = "testdata/glove-3k"

// copyDir copies the checked-in set so a test may change it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestOpenRealGloVe(t *testing.T) {
	r, err := Open(glove3k)
	if err != nil {
		t.Fatal(err)
	}
	if r.Metric != engine.Cosine || r.Base.N != 3000 || r.Queries.N != 100 || r.Base.Dim != 100 || r.Manifest.Name != "glove-3k" {
		t.Fatalf("opened %s %d×%d, %d queries, %q", r.Metric, r.Base.N, r.Base.Dim, r.Queries.N, r.Manifest.Name)
	}
	if err := VerifyDir(glove3k); err != nil {
		t.Fatal(err)
	}
	// The truth shipped with the set is engine/flat's: recompute it here,
	// uncached, and compare with groundtruth.ivecs and the cache file.
	fresh, err := ComputeTruth(r.Base, r.Queries, 100, engine.Cosine, nil)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := r.Truth(100)
	if err != nil {
		t.Fatal(err)
	}
	for q := range fresh.IDs {
		for j, id := range fresh.IDs[q] {
			if int32(id) != r.Given[q][j] || cached.IDs[q][j] != id {
				t.Fatalf("query %d rank %d: flat %d, groundtruth.ivecs %d, cache %d", q, j, id, r.Given[q][j], cached.IDs[q][j])
			}
		}
	}
	// Real word vectors are not isotropic clusters: the nearest neighbour
	// is far closer than the 100th (a spread the generator's clusters
	// also have, but with a different shape). Here, only that the
	// distances are sane cosine distances in increasing order.
	for q := range fresh.Dists {
		d := fresh.Dists[q]
		if !slices.IsSorted(d) || d[0] < 0 || d[len(d)-1] > 2 {
			t.Fatalf("query %d: distances %v…%v", q, d[0], d[len(d)-1])
		}
	}
}

func TestRealTruthCache(t *testing.T) {
	dir := copyDir(t, glove3k)
	cacheFiles := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "truth-*.bin"))
		return m
	}
	for _, f := range cacheFiles() {
		os.Remove(f)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t1, err := r.Truth(10)
	if err != nil {
		t.Fatal(err)
	}
	files := cacheFiles()
	if len(files) != 1 || !strings.Contains(files[0], "-k10-cosine.bin") {
		t.Fatalf("cache files %v", files)
	}
	// A torn cache entry is recomputed and replaced, never used.
	b, _ := os.ReadFile(files[0])
	if err := os.WriteFile(files[0], b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	t2, err := r.Truth(10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(t1.IDs[7], t2.IDs[7]) {
		t.Fatal("recomputed truth differs")
	}
	if b2, _ := os.ReadFile(files[0]); len(b2) != len(b) {
		t.Fatalf("torn cache entry not replaced: %d bytes, want %d", len(b2), len(b))
	}
	// Changed content is another key: the old entry does not apply.
	r.Queries.Row(0)[0] += 0.5
	if _, err := r.Truth(10); err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles()); n != 2 {
		t.Fatalf("%d cache files after changing a query, want 2", n)
	}
}

func writeMatrix(t *testing.T, path string, m *vec.Matrix) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch filepath.Ext(path) {
	case ".npy":
		err = WriteNpy(f, m)
	case ".bvecs":
		err = WriteBvecs(f, m)
	default:
		err = WriteFvecs(f, m)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenLayouts(t *testing.T) {
	base := &vec.Matrix{N: 3, Dim: 2, Stride: 2, Data: []float32{1, 2, 3, 4, 5, 6}}
	q := &vec.Matrix{N: 1, Dim: 2, Stride: 2, Data: []float32{0, 1}}
	for _, pair := range [][2]string{{"base.fvecs", "query.npy"}, {"base.npy", "query.fvecs"}, {"base.bvecs", "query.bvecs"}} {
		dir := t.TempDir()
		writeMatrix(t, filepath.Join(dir, pair[0]), base)
		writeMatrix(t, filepath.Join(dir, pair[1]), q)
		r, err := Open(dir)
		if err != nil {
			t.Fatalf("%v: %v", pair, err)
		}
		if r.Metric != engine.L2 || !slices.Equal(r.Base.Data, base.Data) || r.Given != nil {
			t.Fatalf("%v: %s %v", pair, r.Metric, r.Base.Data)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	base := &vec.Matrix{N: 3, Dim: 2, Stride: 2, Data: []float32{1, 2, 3, 4, 5, 6}}
	q := &vec.Matrix{N: 1, Dim: 2, Stride: 2, Data: []float32{0, 1}}
	q3 := &vec.Matrix{N: 1, Dim: 3, Stride: 3, Data: []float32{0, 1, 2}}
	zero := &vec.Matrix{N: 2, Dim: 2, Stride: 2, Data: []float32{1, 0, 0, 0}}
	tests := []struct {
		name  string
		setup func(dir string)
		want  error
		msg   string
	}{
		{"no base", func(dir string) { writeMatrix(t, filepath.Join(dir, "query.fvecs"), q) }, engine.ErrNotFound, "none of [base.fvecs"},
		{"no query", func(dir string) { writeMatrix(t, filepath.Join(dir, "base.fvecs"), base) }, engine.ErrNotFound, "none of [query.fvecs"},
		{"two bases", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "base.npy"), base)
		}, engine.ErrInvalidArgument, "both base.fvecs and base.npy"},
		{"dims differ", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q3)
		}, engine.ErrDimension, "base.fvecs has 2"},
		{"truncated base", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			os.Truncate(filepath.Join(dir, "base.fvecs"), 20)
		}, engine.ErrCorrupt, "base.fvecs: dataset: fvecs: record 1 at offset 12: truncated"},
		{"truth rows", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			f, _ := os.Create(filepath.Join(dir, "groundtruth.ivecs"))
			WriteIvecs(f, [][]int32{{0}, {1}})
			f.Close()
		}, engine.ErrCorrupt, "groundtruth.ivecs has 2 rows"},
		{"truth id", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			f, _ := os.Create(filepath.Join(dir, "groundtruth.ivecs"))
			WriteIvecs(f, [][]int32{{0, 3}})
			f.Close()
		}, engine.ErrCorrupt, "row 0 column 1: id 3 outside 0…2"},
		{"manifest count", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"base": 4}`), 0o644)
		}, engine.ErrCorrupt, "base.fvecs has 3 rows, dataset.json says base 4"},
		{"manifest metric", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), base)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"metric": "hamming"}`), 0o644)
		}, engine.ErrInvalidArgument, `unknown metric "hamming"`},
		{"manifest json", func(dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"metric": `), 0o644)
		}, engine.ErrCorrupt, "dataset.json"},
		{"cosine zero row", func(dir string) {
			writeMatrix(t, filepath.Join(dir, "base.fvecs"), zero)
			writeMatrix(t, filepath.Join(dir, "query.fvecs"), q)
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"metric": "cosine"}`), 0o644)
		}, engine.ErrZeroVector, "base.fvecs: row 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(dir)
			_, err := Open(dir)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestWriteLayout(t *testing.T) {
	r, err := Open(glove3k)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Truth(100)
	if err != nil {
		t.Fatal(err)
	}
	words, err := os.ReadFile(filepath.Join(glove3k, "words.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Open normalised the vectors (cosine); the files hold the source's.
	rawBase, err := LoadMatrix(filepath.Join(glove3k, "base.fvecs"))
	if err != nil {
		t.Fatal(err)
	}
	rawQueries, err := LoadMatrix(filepath.Join(glove3k, "query.fvecs"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(rawBase.Data, r.Base.Data) {
		t.Fatal("Open did not normalise a cosine set")
	}
	l := Layout{Base: rawBase, Queries: rawQueries, Truth: tr, Words: strings.Fields(string(words)), Manifest: r.Manifest}
	dir := filepath.Join(t.TempDir(), "again")
	if err := WriteLayout(dir, l); err != nil {
		t.Fatal(err)
	}
	// The same content writes the same bytes, checksums included.
	for _, name := range []string{"base.fvecs", "query.fvecs", "groundtruth.ivecs", "words.txt", ManifestFile, "truth-039f2f945bf3ab7f-k100-cosine.bin"} {
		a, _ := os.ReadFile(filepath.Join(glove3k, name))
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !slices.Equal(a, b) {
			t.Errorf("%s differs from the checked-in copy (%v)", name, err)
		}
	}
	if err := WriteLayout(dir, l); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("overwrite: %v", err)
	}
	// A failed write leaves nothing under the final name, nor a partial.
	bad := l
	bad.Words = bad.Words[:10]
	failed := filepath.Join(t.TempDir(), "failed")
	if err := WriteLayout(failed, bad); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("short words: %v", err)
	}
	if m, _ := filepath.Glob(failed + "*"); len(m) != 0 {
		t.Fatalf("a failed write left %v", m)
	}
	// One changed byte fails the checksums, naming the file.
	p := filepath.Join(dir, "query.fvecs")
	b, _ := os.ReadFile(p)
	b[100] ^= 1
	os.WriteFile(p, b, 0o644)
	if err := VerifyDir(dir); !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "query.fvecs: SHA-256") {
		t.Fatalf("VerifyDir after a flipped bit: %v", err)
	}
}

func TestOpenData(t *testing.T) {
	root := t.TempDir()
	// glove-3k is compiled in: it opens with nothing under root.
	r, err := OpenData("glove-3k", root)
	if err != nil || r.Base.N != 3000 || r.Metric != engine.Cosine {
		t.Fatalf("embedded glove-3k: %v", err)
	}
	if _, err := OpenData("glove-100k", root); !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "veclab data get glove-100k") {
		t.Fatalf("uncached set: %v", err)
	}
	if _, err := OpenData("no-such-set", root); !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "glove-100k") {
		t.Fatalf("unknown name: %v", err)
	}
	if r, err := OpenData(glove3k, root); err != nil || r.Dir != glove3k {
		t.Fatalf("by directory: %v", err)
	}
}

func TestAttachMeta(t *testing.T) {
	r, err := Open(glove3k)
	if err != nil {
		t.Fatal(err)
	}
	if err := AttachMeta(r.Dataset, nil, 1); err != nil {
		t.Fatal(err)
	}
	n := len(r.Matching(ArticleFilter))
	// 1/8 × 0.354 of 3,000 is 133; allow four standard deviations.
	if want := 3000.0 / 8 * 0.354; math.Abs(float64(n)-want) > 4*math.Sqrt(want) {
		t.Fatalf("article filter matches %d of 3000, want about %.0f", n, want)
	}
	labels := make([]int32, 3000)
	for i := range labels {
		labels[i] = int32(i % 10)
	}
	if err := AttachMeta(r.Dataset, labels, 1); err != nil || r.Meta[13].Category != "c3" || r.Meta[19].Category != "c1" {
		t.Fatalf("labels: %v %+v", err, r.Meta[13])
	}
	if err := AttachMeta(r.Dataset, labels[:5], 1); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("short labels: %v", err)
	}
}

// TestOpenDataCompiledIn opens the compiled-in glove-3k where nothing can
// be written: it used to be copied to a temporary directory first, which
// the browser's Go (every file call ENOSYS) cannot make, so JupyterLite had
// no real set at all. A temporary directory that does not exist stands in
// for that here. Its truth is the top-100 compiled in beside it, the same
// as exact search computes; another k is computed.
func TestOpenDataCompiledIn(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	r, err := OpenData("glove-3k", t.TempDir())
	if err != nil {
		t.Fatalf("compiled-in glove-3k with no temporary directory: %v", err)
	}
	if r.Dir != "" || r.Base.N != 3000 || r.Metric != engine.Cosine || r.Manifest.Name != "glove-3k" || r.Given == nil {
		t.Fatalf("dir %q, %d rows, %s, name %q, given %v", r.Dir, r.Base.N, r.Metric, r.Manifest.Name, r.Given != nil)
	}
	for _, k := range []int{100, 10} {
		got, err := r.Truth(k)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ComputeTruth(r.Base, r.Queries, k, r.Metric, nil)
		if err != nil {
			t.Fatal(err)
		}
		for q := range want.IDs {
			if !slices.Equal(got.IDs[q], want.IDs[q]) {
				t.Fatalf("k=%d query %d: truth %v, exact search %v", k, q, got.IDs[q][:5], want.IDs[q][:5])
			}
		}
	}
	if _, err := fs.Stat(r.compiled, truthCacheName(r.Dataset.Hash(), 100, r.Metric)); err != nil {
		t.Errorf("the compiled-in top-100 is not the one Truth looks for: %v", err)
	}
}

// TestInTabMemory runs the browser's path natively: dataFS swapped for an
// in-memory file system with a byte limit, as a browser tab's
// (lab/scratch.FS). glove-3k written there with WriteLayout under a data
// directory opens by name, its truth from the seeded cache (no exact
// search: a wrong cache would be read as it is, and is caught by the
// comparison with the set's own neighbour lists), a truth computed for
// another k is cached there and read back; a set larger than the limit
// fails naming the file and vfs.ErrMemFull, and leaves nothing behind; a
// named set not in the tab says where sets open in a browser and wraps
// errors.ErrUnsupported.
func TestInTabMemory(t *testing.T) {
	r, err := Open(glove3k)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Truth(100)
	if err != nil {
		t.Fatal(err)
	}
	rawBase, err := LoadMatrix(filepath.Join(glove3k, "base.fvecs"))
	if err != nil {
		t.Fatal(err)
	}
	rawQueries, err := LoadMatrix(filepath.Join(glove3k, "query.fvecs"))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 4 << 20 // glove-3k's files are 1.3 MB
	mem := vfs.NewMemLimit(limit)
	saved := dataFS
	dataFS = mem
	defer func() { dataFS = saved }()

	const root = "/veclab/data"
	l := Layout{Base: rawBase, Queries: rawQueries, Truth: tr, Manifest: r.Manifest}
	l.Manifest.Name = "mine"
	if err := WriteLayout(root+"/mine", l); err != nil {
		t.Fatal(err)
	}
	names, err := mem.List(root + "/mine")
	if err != nil || !slices.Contains(names, ManifestFile) || !slices.Contains(names, "base.fvecs") {
		t.Fatalf("the tab's data directory holds %v (%v)", names, err)
	}
	if top, _ := mem.List(root); !slices.Equal(top, []string{"mine"}) {
		t.Fatalf("%s holds %v, want only the set (no partial)", root, top)
	}
	got, err := OpenData("mine", root)
	if err != nil {
		t.Fatal(err)
	}
	if got.Base.N != r.Base.N || !slices.Equal(got.Base.Data, r.Base.Data) || got.Dir != root+"/mine" {
		t.Fatalf("opened %d rows from %q", got.Base.N, got.Dir)
	}
	gt, err := got.Truth(100)
	if err != nil {
		t.Fatal(err)
	}
	for q := range gt.IDs {
		for j := range 10 {
			if int32(gt.IDs[q][j]) != got.Given[q][j] {
				t.Fatalf("query %d's neighbour %d: %d from the cache, %d in groundtruth.ivecs", q, j, gt.IDs[q][j], got.Given[q][j])
			}
		}
	}
	before, _ := mem.List(root + "/mine")
	t10, err := got.Truth(10)
	if err != nil || t10.K != 10 {
		t.Fatalf("Truth(10): %v", err)
	}
	after, _ := mem.List(root + "/mine")
	if len(after) != len(before)+1 {
		t.Fatalf("Truth(10) cached nothing in the tab: %v then %v", before, after)
	}
	if again, err := got.Truth(10); err != nil || !slices.Equal(again.IDs[3], t10.IDs[3]) {
		t.Fatalf("Truth(10) read back: %v", err)
	}

	// Past the limit: the error names the file and the limit; no partial.
	big := l
	big.Manifest.Name = "big"
	big.Base = vec.NewMatrix(20000, 100) // 8 MB of float32s
	if err := WriteLayout(root+"/big", big); !errors.Is(err, vfs.ErrMemFull) || !strings.Contains(err.Error(), "base.fvecs") {
		t.Fatalf("a set over the tab's limit: %v", err)
	}
	if top, _ := mem.List(root); !slices.Equal(top, []string{"mine"}) {
		t.Fatalf("after the refused write %s holds %v", root, top)
	}

	err = notInTab("fashion-mnist", root)
	for _, want := range []string{`"fashion-mnist"`, root, "glove-3k", "WriteLayout", "veclab data get fashion-mnist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("%v does not wrap errors.ErrUnsupported", err)
	}
}
