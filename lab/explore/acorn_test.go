package explore

import (
	"errors"
	"testing"
)

// TestACORN checks that acorn-gamma searches only after BuildACORN, that
// its graph is the denser one the paper describes (a mean layer-0 degree
// above HNSW's), that a filter above 1/γ walks it and one below falls
// back to exact search, and that Compare puts it beside the others.
func TestACORN(t *testing.T) {
	l, err := Build(small(32), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := SearchParams{K: 10, Ef: 64, Efs: []int{64}, Selectivity: 0.3, Strategy: "acorn-gamma"}
	if _, err := l.Search(p); !errors.Is(err, ErrNoACORN) {
		t.Fatalf("acorn-gamma before BuildACORN: %v, want ErrNoACORN", err)
	}
	if _, err := l.Search(SearchParams{K: 10, Ef: 64, Efs: []int{64}, Strategy: "acorn-gamma"}); err != nil {
		t.Errorf("acorn-gamma without a filter (plain HNSW) before BuildACORN: %v", err)
	}
	rows, err := l.Compare(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Ready != (r.Strategy != "acorn-gamma") {
			t.Errorf("before BuildACORN: %s ready %v", r.Strategy, r.Ready)
		}
	}
	for _, g := range []int{-1, MaxGamma + 1} {
		if _, err := l.BuildACORN(g); !errors.Is(err, ErrBadParams) {
			t.Errorf("BuildACORN(%d): %v, want ErrBadParams", g, err)
		}
	}
	info, err := l.BuildACORN(4)
	if err != nil {
		t.Fatal(err)
	}
	if info.Gamma != 4 || info.M != 8 || info.MBeta != 16 || info.EfConstruction != 32 || info.MinSelectivity != 0.25 {
		t.Errorf("ACORN config %+v: want γ 4, M 8, M_β 16, efConstruction 32, min selectivity 0.25", info)
	}
	if info.MeanDegree <= info.HNSWMeanDegree || info.MeanDegree > float64(info.M*info.Gamma) {
		t.Errorf("ACORN mean layer-0 degree %.1f, HNSW's %.1f: want above HNSW's and at most M·γ = %d", info.MeanDegree, info.HNSWMeanDegree, info.M*info.Gamma)
	}
	if again, _ := l.BuildACORN(4); again != info {
		t.Error("BuildACORN with the same γ built again")
	}
	res, err := l.Search(p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Strategy != "acorn-gamma" || res.Paths != "acorn-gamma×20" || res.Current.Recall < 0.8 {
		t.Errorf("30 %% filter over ACORN-γ (γ 4): strategy %s, paths %q, recall %v; want acorn-gamma×20 and recall ≥ 0.8", res.Strategy, res.Paths, res.Current.Recall)
	}
	p.Selectivity = 0.1
	if res, err = l.Search(p); err != nil || res.Paths != "exact×20" || res.Current.Recall != 1 {
		t.Errorf("10 %% filter, below 1/γ: %v, paths %q, recall %v; want exact×20, recall 1", err, res.Paths, res.Current.Recall)
	}
	p.Selectivity = 0.3
	if rows, err = l.Compare(p); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Strategies()) {
		t.Fatalf("%d rows for %d strategies", len(rows), len(Strategies()))
	}
	for _, r := range rows {
		if !r.Ready || r.Ef != 64 || r.Recall <= 0 || r.QPS <= 0 {
			t.Errorf("compare after BuildACORN: %+v", r)
		}
		if r.Strategy == "exact" && r.Recall != 1 {
			t.Errorf("compare: exact recall %v", r.Recall)
		}
	}
	if _, err := l.Compare(SearchParams{K: 10, Ef: 64}); !errors.Is(err, ErrBadParams) {
		t.Errorf("Compare without a filter: %v, want ErrBadParams", err)
	}
}
