package experiment

import (
	"errors"
	"strings"
	"testing"
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
			in, out, err := SplitHits(tt.hits, tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrBadArgument) {
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
		if got := tt.sel.S(); got != tt.s {
			t.Errorf("%+v: S() = %v, want %v", tt.sel, got, tt.s)
		}
		if got := strings.Contains(tt.sel.String(), "article: 1,328 of 30,000 (s = 4.4 %)"); got != tt.article {
			t.Errorf("%+v: String() = %q: has the article's count %v, want %v", tt.sel, tt.sel.String(), got, tt.article)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for i, want := range map[int]string{0: "first", 1: "second", 9: "tenth", 10: "11th", 11: "12th", 12: "13th", 20: "21st", 21: "22nd", 22: "23rd", 110: "111th", 120: "121st"} {
		if got := ordinal(i); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", i, got, want)
		}
	}
}
