package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

func TestSummarizeHits(t *testing.T) {
	for _, tt := range []struct {
		name string
		hits []int
		want HitsSummary
		text string
	}{
		{"none", nil, HitsSummary{}, "no queries"},
		{"all empty", []int{0, 0}, HitsSummary{Queries: 2, NoHit: 2}, "  2 queries, mean hits 0.00, 2 with no hit at all"},
		{"uneven", []int{10, 0, 2, 0}, HitsSummary{Queries: 4, MeanHits: 3, NoHit: 2}, "  4 queries, mean hits 3.00, 2 with no hit at all"},
		{"full", []int{10, 10, 10}, HitsSummary{Queries: 3, MeanHits: 10}, "  3 queries, mean hits 10.00, 0 with no hit at all"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := summarizeHits(tt.hits)
			if got != tt.want {
				t.Errorf("summarizeHits(%v) = %+v, want %+v", tt.hits, got, tt.want)
			}
			if got.String() != tt.text {
				t.Errorf("String() = %q, want %q", got.String(), tt.text)
			}
		})
	}
}

func TestSplitHits(t *testing.T) {
	for _, tt := range []struct {
		name    string
		hits    []int
		in      []bool
		inside  HitsSummary
		outside HitsSummary
		wantErr bool
	}{
		{"split", []int{10, 0, 8, 1}, []bool{true, false, true, false},
			HitsSummary{Queries: 2, MeanHits: 9}, HitsSummary{Queries: 2, MeanHits: 0.5, NoHit: 1}, false},
		{"all outside", []int{0, 2}, []bool{false, false}, HitsSummary{}, HitsSummary{Queries: 2, MeanHits: 1, NoHit: 1}, false},
		{"length mismatch", []int{1, 2}, []bool{true}, HitsSummary{}, HitsSummary{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, out, err := splitHits(tt.hits, tt.in)
			if tt.wantErr {
				if !errors.Is(err, errBadArgument) {
					t.Fatalf("splitHits error = %v, want ErrBadArgument", err)
				}
				return
			}
			if err != nil || in != tt.inside || out != tt.outside {
				t.Errorf("splitHits = %+v, %+v, %v; want %+v, %+v", in, out, err, tt.inside, tt.outside)
			}
		})
	}
}

func TestSelectivityString(t *testing.T) {
	for _, tt := range []struct {
		sel     Selectivity
		s       float64
		article bool
	}{
		{Selectivity{Filter: ArticleFilter, Matching: 88, N: 2000}, 0.044, true},
		{Selectivity{Filter: "year == 2025", Matching: 500, N: 2000}, 0.25, false},
		{Selectivity{Filter: "year == 2025"}, 0, false},
	} {
		if got := tt.sel.s(); got != tt.s {
			t.Errorf("%+v: S() = %v, want %v", tt.sel, got, tt.s)
		}
		if got := strings.Contains(tt.sel.String(), "article: 1,328 of 30,000 (s = 4.4 %)"); got != tt.article {
			t.Errorf("%+v: String() = %q: has the article's count %v, want %v", tt.sel, tt.sel.String(), got, tt.article)
		}
	}
}

func TestE07Predict(t *testing.T) {
	for _, tt := range []struct {
		label   string
		ef      int
		scan    string
		hits    float64
		wantErr bool
	}{
		{"40 off", 40, "off", 2, false},
		{"200 off", 200, "off", 10, false},
		{"40 relaxed_order", 40, "relaxed_order", 10, false},
		{"40 strict_order max_scan_tuples=100", 40, "strict_order", 10, false},
		{"40", 0, "", 0, true},
		{"x off", 0, "", 0, true},
		{"0 off", 0, "", 0, true},
		{"40 sideways", 0, "", 0, true},
	} {
		ef, scan, hits, err := e07Predict(tt.label, 0.05, 10)
		if tt.wantErr {
			if !errors.Is(err, errBadArgument) {
				t.Errorf("e07Predict(%q) error = %v, want ErrBadArgument", tt.label, err)
			}
			continue
		}
		if err != nil || ef != tt.ef || scan != tt.scan || hits != tt.hits {
			t.Errorf("e07Predict(%q) = %d, %q, %v, %v; want %d, %q, %v", tt.label, ef, scan, hits, err, tt.ef, tt.scan, tt.hits)
		}
	}
}

func TestE10Sizes(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	dim := float64(4 * env.Scale.Dim)
	ms := []Measurement{{Label: "bbq_hnsw"}, {Label: "int8_hnsw"}, {Label: "hnsw"}}
	bytes := []float64{dim + 100 + 20, dim + 100 + 50, dim + 100}
	tb, err := E10Sizes(env, ms, bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		row, col string
		want     float64
	}{
		{"bbq_hnsw", "codes", 20},
		{"int8_hnsw", "codes", 50},
		{"hnsw", "codes", 0},
		{"hnsw", "graph links", 100},
		{"bbq_hnsw", "float32 vector", dim},
		{"int8_hnsw", "vs hnsw", 100 * 50 / (dim + 100)},
		{"bbq_hnsw", "store size vs hnsw % (article)", 100 * (54.4/52.6 - 1)},
	} {
		c, ok := tb.Lookup(tt.row, tt.col)
		if !ok || c.Kind != table.FloatKind && c.Kind != table.IntKind {
			t.Fatalf("no number at (%s, %s): %v", tt.row, tt.col, c)
		}
		got := c.Float
		if c.Kind == table.IntKind {
			got = float64(c.Int)
		}
		if d := got - tt.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("(%s, %s) = %v, want %v", tt.row, tt.col, got, tt.want)
		}
	}
	if _, err := E10Sizes(env, ms[:2], bytes[:2]); !errors.Is(err, errBadArgument) {
		t.Errorf("E10Sizes without an hnsw row: error %v, want ErrBadArgument", err)
	}
	if _, err := E10Sizes(env, ms, bytes[:1]); !errors.Is(err, errBadArgument) {
		t.Errorf("E10Sizes with too few sizes: error %v, want ErrBadArgument", err)
	}
}

// TestPostFilterSmall runs notebook 04's readings of E03 and E07 at the
// small scale: the post-filter's hits follow ef × s for a filter
// independent of the vectors, the per-query split adds up to the mean, and
// an iterative scan bounded below one batch's walk returns fewer rows than
// the default bound.
func TestPostFilterSmall(t *testing.T) {
	env := small(t)
	sel, err := MeasureSelectivity(env, ArticleFilter)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Matching == 0 || sel.N != env.Scale.N {
		t.Fatalf("selectivity %+v", sel)
	}

	sw, err := E03SelectivitySweep(env, []string{"region == 'latam'"}, []string{ArticleFilter})
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
	if _, err := E03SelectivitySweep(env, nil, nil); !errors.Is(err, errBadArgument) {
		t.Errorf("sweep without filters: %v, want ErrBadArgument", err)
	}
	if _, err := E03SelectivitySweep(env, []string{"year >>= 3"}, nil); err == nil {
		t.Error("sweep accepted a malformed filter")
	}

	// E03's pgvector row, measured with the post-filter (not the planner's
	// sequential scan of E03 at this scale).
	p := profile.Default(profile.PGVector)
	s, coll, err := filteredCollection(env, p, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := measureStrategy(env, coll, ArticleFilter, p.FilterStrategy(), p.FilterParams(env.Scale.K, s.Dim()), "pgvector")
	if err != nil {
		t.Fatal(err)
	}
	ph, err := E03PostFilterHits(env, []StrategyMeasurement{m})
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
	if _, err := E03PostFilterHits(env, nil); !errors.Is(err, errBadArgument) {
		t.Errorf("E03PostFilterHits without a pgvector row: %v, want ErrBadArgument", err)
	}

	sb, err := E07ScanBoundSweep(env, []int{1, 20000})
	if err != nil {
		t.Fatal(err)
	}
	if len(sb.Relaxed) != 2 || len(sb.Strict) != 2 || len(sb.Table.Rows) != 4 {
		t.Fatalf("scan bound sweep: %v %v, %d rows", sb.Relaxed, sb.Strict, len(sb.Table.Rows))
	}
	if _, err := E07ScanBoundSweep(env, []int{0}); !errors.Is(err, errBadArgument) {
		t.Errorf("max_scan_tuples 0: %v, want ErrBadArgument", err)
	}
	if _, err := E07Read(env, []StrategyMeasurement{{Label: "forty off"}}); !errors.Is(err, errBadArgument) {
		t.Errorf("E07Read of a bad label: %v, want ErrBadArgument", err)
	}
}

func TestOrdinal(t *testing.T) {
	for i, want := range map[int]string{0: "first", 1: "second", 9: "tenth", 10: "11th", 11: "12th", 12: "13th", 20: "21st", 21: "22nd", 22: "23rd", 110: "111th", 120: "121st"} {
		if got := ordinal(i); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", i, got, want)
		}
	}
}
