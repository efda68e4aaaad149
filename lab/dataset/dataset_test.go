package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
)

var small = Config{N: 3000, Queries: 20, Dim: 32, Clusters: 10, Seed: 7}

func TestGenerateDeterministic(t *testing.T) {
	a, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Base.Data, b.Base.Data) || !slices.Equal(a.Queries.Data, b.Queries.Data) || !slices.Equal(a.Meta, b.Meta) {
		t.Fatal("same config gave different data")
	}
	if a.Hash() != b.Hash() {
		t.Fatal("same data, different hash")
	}
	other := small
	other.Seed++
	c, _ := Generate(other)
	if slices.Equal(a.Base.Data, c.Base.Data) || a.Hash() == c.Hash() {
		t.Fatal("another seed gave the same data")
	}
	moreQ := small
	moreQ.Queries = 50
	d, _ := Generate(moreQ)
	if !slices.Equal(a.Base.Data, d.Base.Data) {
		t.Fatal("changing the number of queries changed the base vectors")
	}
	if !slices.Equal(a.Queries.Data, d.Queries.Data[:len(a.Queries.Data)]) {
		t.Fatal("more queries must extend the same query stream")
	}
}

func TestGenerateShape(t *testing.T) {
	ds, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Base.N != 3000 || ds.Base.Dim != 32 || ds.Queries.N != 20 || len(ds.Meta) != 3000 || len(ds.QueryClusters) != 20 {
		t.Fatalf("shape: base %d×%d queries %d meta %d", ds.Base.N, ds.Base.Dim, ds.Queries.N, len(ds.Meta))
	}
	for _, m := range []*vec.Matrix{ds.Base, ds.Queries} {
		for i := 0; i < m.N; i++ {
			if n := vec.Norm(m.Row(i)); math.Abs(float64(n)-1) > 1e-5 {
				t.Fatalf("row %d has norm %v", i, n)
			}
		}
	}
	years := map[int]int{}
	for i, d := range ds.Meta {
		if d.Category != "c"+string(rune('0'+d.Cluster%Categories)) {
			t.Fatalf("doc %d: category %s for cluster %d", i, d.Category, d.Cluster)
		}
		if d.Year < 2015 || d.Year > 2025 || !slices.Contains(Regions, d.Region) || d.Cluster < 0 || d.Cluster >= 10 {
			t.Fatalf("doc %d: bad metadata %+v", i, d)
		}
		years[d.Year]++
	}
	if len(years) != 11 {
		t.Fatalf("years drawn: %v", years)
	}
	// A vector is closer to its own centre than to the average other one.
	own, other := 0.0, 0.0
	for i := 0; i < 200; i++ {
		for j := 0; j < ds.Centers.N; j++ {
			d := float64(vec.Dot(ds.Base.Row(i), ds.Centers.Row(j)))
			if j == ds.Meta[i].Cluster {
				own += d
			} else {
				other += d / float64(ds.Centers.N-1)
			}
		}
	}
	if own < other+0.5*200 {
		t.Fatalf("clusters not visible: mean cos to own centre %.3f, to others %.3f", own/200, other/200)
	}
}

// TestArticleFilterSelectivity pins the figure the package doc quotes: the
// default data set's c3 && year ≥ 2022 filter matches 1,304 documents.
func TestArticleFilterSelectivity(t *testing.T) {
	ds, err := Generate(Config{Dim: 8}) // metadata does not depend on the vectors' dimension much; keep it fast
	if err != nil {
		t.Fatal(err)
	}
	n := len(ds.Matching(ArticleFilter))
	if frac := float64(n) / float64(ds.Config.N); frac < 0.040 || frac > 0.048 {
		t.Fatalf("article filter matches %d of %d (%.2f %%), want about 4.4 %%", n, ds.Config.N, 100*frac)
	}
	if testing.Short() {
		return
	}
	full, err := Generate(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(full.Matching(ArticleFilter)); n != 1304 {
		t.Fatalf("default data set: article filter matches %d, the package doc says 1,304", n)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // substring of the error, "" for valid
	}{
		{Config{}, ""},
		{Config{N: -1}, "n must be"},
		{Config{Queries: -2}, "queries must be"},
		{Config{Dim: -1}, "dim must be"},
		{Config{Dim: 1 << 20}, "dim must be"},
		{Config{Clusters: -4}, "clusters must be"},
		{Config{Spread: -1}, "spread must be"},
		{Config{Spread: math.NaN()}, "spread must be"},
		{Config{Spread: math.Inf(1)}, "spread must be"},
		{Config{N: -1, Dim: -1}, "dim must be"}, // all errors at once
	}
	for _, tc := range tests {
		t.Run(tc.cfg.String(), func(t *testing.T) {
			err := tc.cfg.WithDefaults().Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, gerr := Generate(tc.cfg); gerr == nil {
				t.Fatal("Generate accepted an invalid config")
			}
		})
	}
	c := Config{N: 10, Queries: 2, Dim: 3, Clusters: 4, Spread: 0.25, Seed: 99}
	back, err := ParseConfig(c.String())
	if err != nil || back != c {
		t.Fatalf("ParseConfig(%q) = %+v, %v", c.String(), back, err)
	}
	for _, bad := range []string{"n", "n=x", "colour=red"} {
		if _, err := ParseConfig(bad); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Fatalf("ParseConfig(%q) error %v", bad, err)
		}
	}
	if got := (Config{}).WithDefaults().String(); got != "n=30000 queries=100 dim=384 clusters=40 spread=1 seed=0" {
		t.Fatalf("default config prints %q", got)
	}
}

func TestTruthMatchesFlatAndCache(t *testing.T) {
	ds, err := Generate(small)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr, err := Truth(ds, 15, engine.Cosine, dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := flat.New(ds.Base, flat.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for q := 0; q < ds.Queries.N; q++ {
		rs, _, err := x.Search(ds.Queries.Row(q), 15, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if tr.IDs[q][i] != r.ID || tr.Dists[q][i] != r.Dist {
				t.Fatalf("query %d rank %d: truth %d/%v, flat %d/%v", q, i, tr.IDs[q][i], tr.Dists[q][i], r.ID, r.Dist)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "truth-*"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	path := files[0]

	// The cache is read: plant a valid file with a marker id and see it come back.
	planted := &GroundTruth{K: 15, Metric: engine.Cosine, IDs: slices.Clone(tr.IDs), Dists: tr.Dists}
	planted.IDs[0] = append([]engine.ID{2999}, tr.IDs[0][1:]...)
	var buf bytes.Buffer
	if err := writeTruth(&buf, planted, ds.Hash()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, err := Truth(ds, 15, engine.Cosine, dir)
	if err != nil || got.IDs[0][0] != 2999 {
		t.Fatalf("cached truth not used: %v %v", got.IDs[0][:1], err)
	}

	// A corrupt cache is recomputed, never used.
	b := buf.Bytes()
	b[40] ^= 0xff
	os.WriteFile(path, b, 0o644)
	got, err = Truth(ds, 15, engine.Cosine, dir)
	if err != nil || !slices.Equal(got.IDs[0], tr.IDs[0]) {
		t.Fatalf("corrupt cache used: %v %v", got.IDs[0], err)
	}
	// A stale cache (same file name, other data set's key) is recomputed.
	buf.Reset()
	writeTruth(&buf, planted, ds.Hash()+1)
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, err = Truth(ds, 15, engine.Cosine, dir)
	if err != nil || !slices.Equal(got.IDs[0], tr.IDs[0]) {
		t.Fatalf("stale cache used: %v %v", got.IDs[0], err)
	}
	// Truncations never decode.
	full, _ := os.ReadFile(path)
	for cut := 0; cut < len(full); cut += 97 {
		if _, err := decodeTruth(full[:cut], ds.Hash(), 15, engine.Cosine, ds.Queries.N); err == nil {
			t.Fatalf("truncated cache (%d of %d bytes) decoded", cut, len(full))
		}
	}
}

func TestTruthErrors(t *testing.T) {
	ds, _ := Generate(small)
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"k=0", second(Truth(ds, 0, engine.Cosine, "")), engine.ErrInvalidArgument},
		{"metric", second(Truth(ds, 1, engine.Metric(7), "")), engine.ErrInvalidArgument},
		{"nil", second(Truth(nil, 1, engine.Cosine, "")), engine.ErrInvalidArgument},
		{"dims", second(ComputeTruth(ds.Base, vec.NewMatrix(1, 3), 1, engine.L2, nil)), engine.ErrDimension},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestFilteredTruth(t *testing.T) {
	ds, _ := Generate(small)
	ids := ds.Matching(func(d Doc) bool { return d.Category == "c3" })
	bs := engine.NewBitset(ds.Base.N)
	for _, id := range ids {
		bs.Set(id)
	}
	tr, err := ComputeTruth(ds.Base, ds.Queries, 10, engine.Cosine, bs)
	if err != nil {
		t.Fatal(err)
	}
	for q := range tr.IDs {
		for _, id := range tr.IDs[q] {
			if ds.Meta[id].Category != "c3" {
				t.Fatalf("query %d: filtered truth holds doc %d of %s", q, id, ds.Meta[id].Category)
			}
		}
	}
}

func TestPlane(t *testing.T) {
	a, err := Plane(300, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Plane(300, 6, 1)
	c, _ := Plane(300, 6, 2)
	if a.N != 300 || a.Dim != 2 {
		t.Fatalf("Plane(300, 6, 1) is %d × %d, want 300 × 2", a.N, a.Dim)
	}
	same, differ := true, false
	for i := range a.Data {
		same = same && a.Data[i] == b.Data[i]
		differ = differ || a.Data[i] != c.Data[i]
	}
	if !same || !differ {
		t.Fatalf("the same seed must give the same points (%v) and another seed others (%v)", same, differ)
	}
	for _, bad := range [][2]int{{0, 1}, {1, 0}, {-3, 2}} {
		if _, err := Plane(bad[0], bad[1], 1); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("Plane(%d, %d): %v, want engine.ErrInvalidArgument", bad[0], bad[1], err)
		}
	}
}
