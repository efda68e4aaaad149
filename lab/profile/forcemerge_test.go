package profile_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// refreshed opens p over ds's base vectors, refreshing after every
// 1/segments of them (p's periodic refresh pushed out of the way).
func refreshed(t testing.TB, p profile.Profile, base *vec.Matrix, segments int) *profile.Store {
	t.Helper()
	p.RefreshInterval = time.Hour
	s, err := p.Open(base.Dim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for g := 0; g < segments; g++ {
		lo, hi := g*base.N/segments, (g+1)*base.N/segments
		if err := s.Ingest(&vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}); err != nil {
			t.Fatal(err)
		}
		if err := s.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestForceMerge(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 800, Queries: 5, Dim: 16, Clusters: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	es := profile.Default(profile.Elasticsearch)
	es.Type = profile.HNSWType
	s := refreshed(t, es, ds.Base, 8)
	if n := len(s.Segments()); n != 8 {
		t.Fatalf("after 8 refreshes: %d segments, want 8", n)
	}
	for _, tc := range []struct {
		max, want int
		err       error
	}{
		{0, 8, engine.ErrInvalidArgument},
		{-2, 8, engine.ErrInvalidArgument},
		{16, 8, nil}, // already under: left as it is
		{4, 4, nil},
		{1, 1, nil},
	} {
		err := s.ForceMerge(tc.max)
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Fatalf("ForceMerge(%d): %v, want %v", tc.max, err, tc.err)
		}
		if n := len(s.Segments()); n != tc.want {
			t.Fatalf("ForceMerge(%d): %d segments, want %d", tc.max, n, tc.want)
		}
		if s.Visible() != ds.Base.N {
			t.Fatalf("ForceMerge(%d): %d documents visible, want %d", tc.max, s.Visible(), ds.Base.N)
		}
	}
	res, err := s.Search(ds.Queries.Row(0), 10)
	if err != nil || len(res) != 10 {
		t.Fatalf("search after the merges: %d results, %v", len(res), err)
	}

	other, err := profile.Default(profile.Qdrant).Build(ds.Base, profile.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.ForceMerge(1); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("Qdrant ForceMerge(1): %v, want an invalid-argument error", err)
	}
	s.Close()
	if err := s.ForceMerge(1); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("ForceMerge on a closed store: %v, want ErrClosed", err)
	}
}

// Before Elasticsearch 9.2 (Lucene 9) every segment is searched for the
// whole num_candidates, so work grows with the segment count; 9.2+
// collects optimistically, each segment for its share.
func TestSegmentSearchByVersion(t *testing.T) {
	// k = 100 over segments of 200: Lucene's pro-rata share plus its
	// margin (about 57) is well under num_candidates (150).
	ds, err := dataset.Generate(dataset.Config{N: 3200, Queries: 5, Dim: 16, Clusters: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	work := func(version string) (many, one int) {
		p := profile.Default(profile.Elasticsearch)
		p.Type, p.Version, p.EarlyTermination = profile.HNSWType, version, "false"
		s := refreshed(t, p, ds.Base, 16)
		count := func() int {
			total := 0
			for i := 0; i < ds.Queries.N; i++ {
				_, st, err := s.SearchStats(ds.Queries.Row(i), 100)
				if err != nil {
					t.Fatal(err)
				}
				total += st.DistComps
			}
			return total
		}
		many = count()
		if err := s.ForceMerge(1); err != nil {
			t.Fatal(err)
		}
		return many, count()
	}
	for _, tc := range []struct {
		version string
		ratio   float64 // 16 segments' work over one segment's, at least
	}{
		{"8.13", 3}, // every segment walked at num_candidates
		{"9.5", 1},  // optimistic: each segment its share
	} {
		many, one := work(tc.version)
		if float64(many) < tc.ratio*float64(one) {
			t.Errorf("Elasticsearch %s: 16 segments %d distances, one segment %d: want ≥ %.0f×", tc.version, many, one, tc.ratio)
		}
	}
	m8, _ := work("8.13")
	m9, _ := work("9.5")
	if m9 >= m8 {
		t.Errorf("16 segments: 9.5 computed %d distances, 8.13 %d: the optimistic collection should do less", m9, m8)
	}
}

// Elasticsearch's force merge: ten refreshes leave ten segments, one
// _forcemerge?max_num_segments=1 leaves one.
func ExampleStore_ForceMerge() {
	ds, err := dataset.Generate(dataset.Config{N: 1000, Queries: 1, Dim: 16, Clusters: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := profile.Default(profile.Elasticsearch)
	p.RefreshInterval = time.Hour // no periodic refresh: refresh by hand
	s, err := p.Open(ds.Base.Dim)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for lo := 0; lo < ds.Base.N; lo += 100 {
		_ = s.Ingest(&vec.Matrix{N: 100, Dim: ds.Base.Dim, Stride: ds.Base.Stride, Data: ds.Base.Data[lo*ds.Base.Stride:]})
		_ = s.Refresh()
	}
	fmt.Println(len(s.Segments()), "segments")
	fmt.Println(s.ForceMerge(1), len(s.Segments()), "segment")
	// Output:
	// 10 segments
	// <nil> 1 segment
}
