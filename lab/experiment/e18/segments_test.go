package e18

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

func TestE18Direction(t *testing.T) {
	env := exptest.Small(t)
	got, err := Measure(env, 2, 500, 10, 40)
	if err != nil {
		t.Fatal(err)
	}
	res := got.Ingests
	for _, r := range []experiment.Rounds{got.Parallel, got.IVFBuild, got.FewSegments} {
		if len(r.Ratios) != e18Rounds || !(r.Median() > 0) {
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
