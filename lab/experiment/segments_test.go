package experiment

import (
	"testing"
)

// The segment experiments at small scale, on the shared small
// environment: each checks the direction the article reports on counted
// quantities (segments, distances, bytes), which do not depend on the
// machine's speed.

func TestE16Direction(t *testing.T) {
	env := small(t)
	ms, err := E16Measure(env, []int{16, 4, 1}, 10, 40)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{16, 4, 1} {
		if ms[i].Segments != want {
			t.Fatalf("row %d: %d segments, want %d", i, ms[i].Segments, want)
		}
	}
	// More segments: a wider search — more distances, recall no lower.
	if !(ms[0].DistComps > ms[1].DistComps && ms[1].DistComps > ms[2].DistComps) {
		t.Fatalf("distances per query by segments 16/4/1: %.0f %.0f %.0f, want decreasing", ms[0].DistComps, ms[1].DistComps, ms[2].DistComps)
	}
	if ms[0].Recall < ms[2].Recall {
		t.Fatalf("recall 16 segments %.3f < 1 segment %.3f", ms[0].Recall, ms[2].Recall)
	}
}

func TestE18Direction(t *testing.T) {
	env := small(t)
	got, err := E18Measure(env, 2, 500, 10, 40)
	if err != nil {
		t.Fatal(err)
	}
	res := got.Ingests
	for _, r := range []Rounds{got.Parallel, got.IVFBuild, got.FewSegments} {
		if len(r.Ratios) != e18Rounds || !(r.median() > 0) {
			t.Errorf("E18 rounds: %v", r)
		}
	}
	if len(res) != 4 || res[2].Index.String() != "ivf" {
		t.Fatalf("rows: %+v", res)
	}
	par, single := res[0], res[1]
	ipar, isingle := res[2], res[3]
	if isingle.DocsPerS <= single.DocsPerS {
		t.Logf("IVF ingest %.0f docs/s, HNSW %.0f (timed: reported, not asserted)", isingle.DocsPerS, single.DocsPerS)
	}
	if ipar.Search.DistComps/isingle.Search.DistComps >= par.Search.DistComps/single.Search.DistComps {
		t.Fatalf("IVF's work grows %.2f× with the segments, HNSW's %.2f×: want IVF less sensitive",
			ipar.Search.DistComps/isingle.Search.DistComps, par.Search.DistComps/single.Search.DistComps)
	}
	if par.Segments <= single.Segments {
		t.Fatalf("parallel ingest left %d segments, single %d: want more", par.Segments, single.Segments)
	}
	if par.Search.DistComps <= single.Search.DistComps {
		t.Fatalf("queries over %d segments cost %.0f distances, over %d %.0f: want more for more segments",
			par.Segments, par.Search.DistComps, single.Segments, single.Search.DistComps)
	}
}

func TestE20Direction(t *testing.T) {
	env := small(t)
	res, err := E20Measure(env, 8, []int{20, 40}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Sequential {
		s, c, b := res.Sequential[i], res.Concurrent[i], res.Shared[i]
		if c.Recall != s.Recall || c.DistComps != s.DistComps {
			t.Fatalf("ef %d: concurrent search answers differently (recall %.3f vs %.3f)", s.Search.Ef, c.Recall, s.Recall)
		}
		if b.DistComps >= s.DistComps {
			t.Fatalf("ef %d: the shared bound computed %.0f distances, none %.0f", s.Search.Ef, b.DistComps, s.DistComps)
		}
	}
}

func TestE17Direction(t *testing.T) {
	env := small(t)
	rows, err := E17Measure(env, 2, []int{40}, 10)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Column.Decompressed != 0 || r.Stored.Decompressed == 0 {
		t.Fatalf("decompressed per query: column %.0f, stored %.0f", r.Column.Decompressed, r.Stored.Decompressed)
	}
	if r.Column.Recall != r.Stored.Recall {
		t.Fatalf("recall differs by id source: %.3f vs %.3f", r.Column.Recall, r.Stored.Recall)
	}
}
