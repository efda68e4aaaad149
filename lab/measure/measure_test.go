package measure

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

func smallSet(t *testing.T) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Generate(dataset.Config{N: 800, Queries: 12, Dim: 24, Clusters: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The exact index scores recall 1 against Exact's answers, with and
// without a filter, and every query returns k matching documents: the
// answers and the scoring agree with each other.
func TestExactIndexRecallOne(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	fq, err := q.Where("category == 'c1'")
	if err != nil {
		t.Fatal(err)
	}
	if n := fq.Matches(); n == 0 || n >= ds.Base.N {
		t.Fatalf("the filter matches %d of %d", n, ds.Base.N)
	}
	ix, err := flat.New(ds.Base, flat.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, qs := range []*Queries{q, fq} {
		r, err := Index(ix, 0, qs)
		if err != nil {
			t.Fatal(err)
		}
		if r.Recall != 1 || r.MeanHits != 10 || r.Queries != 12 || r.Warmup != 12 || r.Where != qs.Filter {
			t.Errorf("exact index, filter %q: %+v", qs.Filter, r)
		}
		if r.BytesPerVector != ix.BytesPerVector() {
			t.Errorf("bytes/vector %v, index says %v", r.BytesPerVector, ix.BytesPerVector())
		}
	}
	// Every filtered answer matches the filter.
	for i, ids := range fq.Truth {
		for _, id := range ids {
			if ds.Meta[id].Category != "c1" {
				t.Fatalf("query %d: answer %d has category %s", i, id, ds.Meta[id].Category)
			}
		}
	}
}

// Each store measured on the same queries: Store agrees with the store's
// own plan, hits and footprint, with a filter too.
func TestStoreMeasures(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	fq, err := q.Where(dataset.ArticleWhere)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range profile.Defaults() {
		if p.Kind == profile.Qdrant {
			p.Segments = 1 // filtered search binds one segment (Store.Filtered)
		}
		s, err := p.Build(ds.Base, profile.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, qs := range []*Queries{q, fq} {
			r, err := Store(s, qs)
			if err != nil {
				t.Fatalf("%s %q: %v", p.Kind, qs.Filter, err)
			}
			if r.Label != p.Kind.String() || r.Recall <= 0 || r.Recall > 1 || r.MeanHits <= 0 {
				t.Errorf("%s %q: %v", p.Kind, qs.Filter, r)
			}
			if want := p.Plan(10, ds.Base.Dim).String(); qs.Filter == "" && r.Plan != want {
				t.Errorf("%s: plan %q, want %q", p.Kind, r.Plan, want)
			}
			// The thread's CPU clock times the same queries (on Linux;
			// elsewhere it reads 0 and CPUQPS stays 0).
			if r.Latency.P50 <= 0 || runtime.GOOS == "linux" && r.CPUQPS <= 0 {
				t.Errorf("%s %q: p50 %v, CPU QPS %v", p.Kind, qs.Filter, r.Latency.P50, r.CPUQPS)
			}
			if r.BytesPerVector != s.BytesPerVector() {
				t.Errorf("%s: bytes/vector %v, store says %v", p.Kind, r.BytesPerVector, s.BytesPerVector())
			}
		}
		s.Close()
	}
}

// Bad input to every verb gets an error in the caller's terms.
func TestErrors(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	redis, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Close()
	ix, err := flat.New(ds.Base, flat.Config{})
	if err != nil {
		t.Fatal(err)
	}
	second := func(_ any, err error) error { return err }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"Exact nil", second(Exact(nil, 10, engine.Cosine)), "measure: Exact: a data set"},
		{"Exact k 0", second(Exact(ds, 0, engine.Cosine)), "measure: Exact(ds, 0, …): k must be ≥ 1"},
		{"Where bad", second(q.Where("category ==")), `measure: Where("category ==")`},
		{"Where unknown field", second(q.Where("colour == 'red'")), `measure: Where("colour == 'red'")`},
		{"Where without Exact", second((&Queries{}).Where("year > 1")), "queries made by Exact"},
		{"Store nil", second(Store(nil, q)), "measure: Store: no store"},
		{"Store no queries", second(Store(redis, nil)), "measure: Store: queries with their exact answers"},
		{"Store bad view", second(Store(redis.WithEf(0), q)), "WithEf(0) on redis: EF_RUNTIME 0 is out of range, allowed ≥ 1"},
		{"SweepEf bad value", second(SweepEf(redis, []int{10, -3}, q)), "WithEf(-3) on redis"},
		{"SweepEf none", second(SweepEf(redis, nil, q)), "measure: SweepEf: a store and at least one value"},
		{"SweepOversample on redis", second(SweepOversample(redis, []float64{2}, q)), "WithOversample(2) on redis: Redis has no oversample setting"},
		{"Index nil", second(Index(nil, 0, q)), "measure: Index: no index"},
		{"Index breadth", second(Index(ix, -1, q)), "measure: Index(ix, -1, …): the breadth must be ≥ 0"},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || !errors.Is(tc.err, engine.ErrInvalidArgument) {
			t.Errorf("%s: %v, want …%s… wrapping engine.ErrInvalidArgument", tc.name, tc.err, tc.want)
		}
	}
	var ke *profile.KnobError
	if _, err := SweepEf(redis, []int{-3}, q); !errors.As(err, &ke) || ke.Call != "WithEf(-3)" {
		t.Errorf("SweepEf: %v, want the store's KnobError unchanged", err)
	}
}

func TestBeside(t *testing.T) {
	rs := []Result{
		{Label: "10", Knob: "EF_RUNTIME", Warmup: 2, Measured: metrics.Measured{Queries: 5, K: 10, Recall: 0.6, Latency: metrics.Latency{P50: 1500 * time.Microsecond}}},
		{Label: "50", Knob: "EF_RUNTIME", Warmup: 2, Measured: metrics.Measured{Queries: 5, K: 10, Recall: 0.9}},
	}
	fig := func(row, m string, v float64, unit string) Figure {
		return Figure{Row: row, Measure: m, Value: v, Unit: unit}
	}
	t.Run("both", func(t *testing.T) {
		tb, err := Beside("t", rs, []Figure{fig("10", "recall@10", 0.616, ""), fig("10", "p50", 0.6, "ms"), fig("50", "recall@10", 0.962, ""), fig("200", "recall@10", 1, "")})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"EF_RUNTIME", "recall@10 (article)", "recall@10 (lab)", "p50 ms (article)", "p50 ms (lab)"}
		var got []string
		for _, c := range tb.Columns {
			got = append(got, c.Label())
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("columns %q, want %q", got, want)
		}
		s := tb.String()
		for _, w := range []string{"0.616", "0.600", "0.962", "0.900", "1.50", "the article's rows 200 were not measured here", "lab: 5 queries after 2 warm-up"} {
			if !strings.Contains(s, w) {
				t.Errorf("table lacks %q:\n%s", w, s)
			}
		}
		if c, ok := tb.Lookup("50", "p50 ms (article)"); !ok || c.Kind != table.Missing {
			t.Errorf("an article figure the article did not give: %+v %v", c, ok)
		}
	})
	for name, figs := range map[string][]Figure{
		"unknown measure": {fig("10", "docs/s", 3039, "docs/s")},
		"wrong unit":      {fig("10", "p50", 600, "µs")},
		"other k":         {fig("10", "recall@100", 0.9, "")},
		"no figures":      nil,
	} {
		if _, err := Beside("t", rs, figs); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Beside("t", nil, []Figure{fig("10", "recall@10", 1, "")}); err == nil {
		t.Error("no results: no error")
	}
	tb, err := Table("lab", rs)
	if err != nil || tb.Column("recall@10") < 0 || tb.Column("query plan") < 0 {
		t.Errorf("Table: %v %v", tb, err)
	}
}
