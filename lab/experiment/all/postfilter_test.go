package all

import (
	"errors"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e03"
	"github.com/veclab/veclab/lab/experiment/e07"
	"github.com/veclab/veclab/lab/profile"
)

// TestPostFilterSmall runs notebook 04's readings of E03 and E07 at the
// small scale: the post-filter's hits follow ef × s for a filter
// independent of the vectors, the per-query split adds up to the mean, and
// an iterative scan bounded below one batch's walk returns fewer rows than
// the default bound.
func TestPostFilterSmall(t *testing.T) {
	env := exptest.Small(t)
	sel, err := experiment.MeasureSelectivity(env, experiment.ArticleFilter)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Matching == 0 || sel.N != env.Scale.N {
		t.Fatalf("selectivity %+v", sel)
	}

	sw, err := experiment.SweepSelectivity(env, []string{"region == 'latam'"}, []string{experiment.ArticleFilter})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Table.Rows) != 2 || len(sw.IndependentHits) != 1 || len(sw.TiedHits) != 1 {
		t.Fatalf("sweep: %d rows, series %v %v", len(sw.Table.Rows), sw.IndependentHits, sw.TiedHits)
	}
	if r := sw.IndependentHits[0] / sw.IndependentWant[0]; r < 0.7 || r > 1.3 {
		t.Errorf("region == 'latam': hits %.2f against ef × s %.2f (ratio %.2f), want about 1", sw.IndependentHits[0], sw.IndependentWant[0], r)
	}
	if !strings.Contains(sw.Table.String(), "the article's filter is the first of the cluster-tied rows") {
		t.Errorf("sweep table does not place the article's filter first among the tied rows:\n%s", sw.Table)
	}
	if _, err := experiment.SweepSelectivity(env, nil, nil); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("sweep without filters: %v, want ErrBadArgument", err)
	}
	if _, err := experiment.SweepSelectivity(env, []string{"year >>= 3"}, nil); err == nil {
		t.Error("sweep accepted a malformed filter")
	}

	// E03's pgvector row, measured with the post-filter (not the planner's
	// sequential scan of E03 at this scale).
	p := profile.Default(profile.PGVector)
	s, coll, err := experiment.FilteredCollection(env, p, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := experiment.MeasureStrategy(env, coll, experiment.ArticleFilter, p.FilterStrategy(), p.FilterParams(env.Scale.K, s.Dim()), "pgvector")
	if err != nil {
		t.Fatal(err)
	}
	ph, err := e03.PostFilterHits(env, []experiment.StrategyMeasurement{m})
	if err != nil {
		t.Fatal(err)
	}
	n := ph.InCategory.Queries + ph.Others.Queries
	mean := (ph.InCategory.MeanHits*float64(ph.InCategory.Queries) + ph.Others.MeanHits*float64(ph.Others.Queries)) / float64(n)
	if n != env.Scale.Queries || mean-ph.MeanHits > 1e-9 || ph.MeanHits-mean > 1e-9 {
		t.Errorf("split: %d queries of mean %.3f, want %d of mean %.3f", n, mean, env.Scale.Queries, ph.MeanHits)
	}
	if ph.InCategory.Queries > 0 && ph.Others.Queries > 0 && ph.InCategory.MeanHits <= ph.Others.MeanHits {
		t.Errorf("queries from a c3 cluster get %.2f hits, the others %.2f: want more (the filter follows the clusters)", ph.InCategory.MeanHits, ph.Others.MeanHits)
	}
	if _, err := e03.PostFilterHits(env, nil); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("E03PostFilterHits without a pgvector row: %v, want ErrBadArgument", err)
	}

	sb, err := e07.ScanBoundSweep(env, []int{1, 20000})
	if err != nil {
		t.Fatal(err)
	}
	if len(sb.Relaxed) != 2 || len(sb.Strict) != 2 || len(sb.Table.Rows) != 4 {
		t.Fatalf("scan bound sweep: %v %v, %d rows", sb.Relaxed, sb.Strict, len(sb.Table.Rows))
	}
	if _, err := e07.ScanBoundSweep(env, []int{0}); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("max_scan_tuples 0: %v, want ErrBadArgument", err)
	}
	if _, err := e07.Read(env, []experiment.StrategyMeasurement{{Label: "forty off"}}); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("E07Read of a bad label: %v, want ErrBadArgument", err)
	}
}
