package e25

import (
	"errors"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// e25Rows returns the rows of one method, in ef order.
func e25Rows(rows []Row, method string) []Row {
	var out []Row
	for _, r := range rows {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// TestE25Small checks what the mechanism promises at the small scale, for
// several passage-count distributions: the parent walk returns k distinct
// parents at a recall above the naive plan's, and the naive plan returns
// fewer than k parents on average as soon as parents have several passages
// (with one passage per parent the plans coincide).
func TestE25Small(t *testing.T) {
	env := exptest.Small(t)
	k := env.Scale.K
	tests := []struct {
		name      string
		cfg       Config
		several   bool    // parents have several passages
		minRecall float64 // floor of the parent walk's recall at ef 40
	}{
		{"default 2-8", Config{}, true, 0.95},
		{"fixed 4", Config{MinPassages: 4, MaxPassages: 4}, true, 0.95},
		{"wide 1-16 spread 1", Config{MinPassages: 1, MaxPassages: 16, Spread: 1}, true, 0.9},
		{"one passage", Config{MinPassages: 1, MaxPassages: 1}, false, 0.95},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Build(env, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if x.Passages < env.Scale.N*9/10 || x.Passages > env.Scale.N*11/10 {
				t.Errorf("%d passages, want about n=%d", x.Passages, env.Scale.N)
			}
			h := x.countHistogram()
			sum := 0
			for c, n := range h {
				if n > 0 && (c < x.Config.MinPassages || c > x.Config.MaxPassages) {
					t.Errorf("%d parents with %d passages, outside %v", n, c, x.Config)
				}
				sum += c * n
			}
			if sum != x.Passages {
				t.Errorf("histogram counts %d passages, index has %d", sum, x.Passages)
			}
			rows, err := Measure(env, x, []int{40})
			if err != nil {
				t.Fatal(err)
			}
			par, naive := e25Rows(rows, e25Parents), e25Rows(rows, e25Naive)
			if len(par) != 1 || len(naive) != 1 || len(e25Rows(rows, e25NaiveKPrime)) != 1 {
				t.Fatalf("rows %+v", rows)
			}
			p, n := par[0], naive[0]
			t.Logf("%v: parents %.2f distinct, recall %.3f; naive %.2f distinct, recall %.3f", x.Config, p.MeanParents, p.Recall, n.MeanParents, n.Recall)
			if p.MeanParents != float64(k) || p.Short != 0 {
				t.Errorf("parent walk: %.2f distinct parents (%.0f%% short), want exactly %d", p.MeanParents, 100*p.Short, k)
			}
			if p.Recall < tc.minRecall {
				t.Errorf("parent walk recall %.3f < %.2f", p.Recall, tc.minRecall)
			}
			if tc.several {
				if n.MeanParents >= float64(k) {
					t.Errorf("naive: %.2f distinct parents, want fewer than %d", n.MeanParents, k)
				}
				if n.Recall >= p.Recall {
					t.Errorf("naive recall %.3f not below the parent walk's %.3f", n.Recall, p.Recall)
				}
			} else {
				if n.MeanParents != float64(k) || n.Recall != p.Recall {
					t.Errorf("one passage per parent: naive %.2f parents recall %.3f, parent walk %.2f recall %.3f; want equal",
						n.MeanParents, n.Recall, p.MeanParents, p.Recall)
				}
			}
		})
	}
}

// TestE25Determinism builds the collection twice with the same seed (same
// passages, parents and graph, so the same recall and work) and once with
// another seed.
func TestE25Determinism(t *testing.T) {
	env := exptest.Small(t)
	measure := func(env *experiment.Env) (*Index, []Row) {
		t.Helper()
		x, err := Build(env, Config{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Measure(env, x, []int{15, 40})
		if err != nil {
			t.Fatal(err)
		}
		return x, rows
	}
	strip := func(rows []Row) []Row {
		out := append([]Row(nil), rows...)
		for i := range out {
			out[i].Latency = metrics.Latency{}
		}
		return out
	}
	x1, r1 := measure(env)
	x2, r2 := measure(env)
	if !reflect.DeepEqual(x1.ParentOf, x2.ParentOf) || !reflect.DeepEqual(x1.graph.Vectors().Data, x2.graph.Vectors().Data) ||
		x1.graph.EntryPoint() != x2.graph.EntryPoint() || x1.graph.MaxLevel() != x2.graph.MaxLevel() {
		t.Error("same seed, different collections")
	}
	if !reflect.DeepEqual(strip(r1), strip(r2)) {
		t.Errorf("same seed, different measurements:\n%+v\n%+v", strip(r1), strip(r2))
	}
	other, err := experiment.NewEnv(experiment.Small, 2)
	if err != nil {
		t.Fatal(err)
	}
	x3, _ := measure(other)
	if reflect.DeepEqual(x1.Counts, x3.Counts) {
		t.Error("seeds 1 and 2 drew the same passage counts")
	}
}

// TestE25Config checks the config's defaults, its printed form read back,
// and that every invalid field is reported.
func TestE25Config(t *testing.T) {
	tests := []struct {
		in   string
		want Config
		err  string // substring of the error; "" for none
	}{
		{"", Config{2, 8, 0.5}, ""},
		{"passages=2-8 spread=0.5", Config{2, 8, 0.5}, ""},
		{"passages=4", Config{4, 4, 0.5}, ""},
		{"passages=1-16,spread=1", Config{1, 16, 1}, ""},
		{"spread=0.25", Config{2, 8, 0.25}, ""},
		{"passages=9", Config{9, 9, 0.5}, ""},
		{"passages=8-2", Config{}, "max passages 2 below min 8"},
		{"passages=0-3", Config{}, "must be positive"},
		{"spread=0", Config{}, "must be positive"},
		{"passages=2-2000", Config{}, "≤ 1000"},
		{"spread=-1", Config{}, "spread"},
		{"spread=NaN", Config{}, "spread"},
		{"spread=+Inf", Config{}, "spread"},
		{"passages=a", Config{}, "passages"},
		{"depth=3", Config{}, "unknown key"},
		{"passages", Config{}, "not key=value"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseConfig(tc.in)
			if tc.err != "" {
				if !errors.Is(err, experiment.ErrBadArgument) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseConfig(%q) = %v, %v; want an ErrBadArgument containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseConfig(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			back, err := ParseConfig(got.String())
			if err != nil || back != got {
				t.Errorf("round trip of %q: %q → %+v, %v", tc.in, got.String(), back, err)
			}
		})
	}
	if err := (Config{MinPassages: -1, MaxPassages: -2, Spread: -1}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "min passages") || !strings.Contains(err.Error(), "spread") {
		t.Errorf("Validate reports every field: %v", err)
	}
}

// TestE25BadArguments checks the notebook-facing functions refuse bad
// input with errBadArgument instead of panicking or measuring nonsense.
func TestE25BadArguments(t *testing.T) {
	env := exptest.Small(t)
	x, err := Build(env, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := experiment.NewEnv(experiment.Scale{Name: "custom", N: 30, Dim: 8, Clusters: 2, Queries: 3, K: 10, Batch: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"bad config", func() error { _, err := Build(env, Config{MinPassages: 5, MaxPassages: 3}); return err }},
		{"fewer parents than k", func() error { _, err := Build(tiny, Config{MinPassages: 8, MaxPassages: 8}); return err }},
		{"nil index", func() error { _, err := Measure(env, nil, []int{40}); return err }},
		{"zero index", func() error { _, err := Measure(env, &Index{}, []int{40}); return err }},
		{"no ef", func() error { _, err := Measure(env, x, nil); return err }},
		{"ef 0", func() error { _, err := Measure(env, x, []int{40, 0}); return err }},
		{"query out of range", func() error { _, err := x.Query(env, env.Scale.Queries, 40); return err }},
		{"negative query", func() error { _, err := x.Query(env, -1, 40); return err }},
		{"query ef 0", func() error { _, err := x.Query(env, 0, 0); return err }},
		{"no shapes", func() error { _, _, err := Shapes(env, nil, 40); return err }},
		{"shapes ef 0", func() error { _, _, err := Shapes(env, []Config{{}}, 0); return err }},
		{"sweep bad config", func() error { _, err := e25Sweep(env, Config{Spread: -1}, []int{40}); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, experiment.ErrBadArgument) {
				t.Errorf("err = %v, want ErrBadArgument", err)
			}
		})
	}
}

// TestE25Report runs the registered experiment and the notebook's helpers
// at the small scale: table, chart, one query's view, the distributions.
func TestE25Report(t *testing.T) {
	env := exptest.Small(t)
	r := experiment.Run(env, e25)
	if r.Status != experiment.OK {
		t.Fatalf("E25: %s: %s", r.Status, r.Err)
	}
	if len(r.Tables) != 1 || len(r.Charts) != 1 || len(e25.Figures) != 0 {
		t.Fatalf("E25 report: %d tables, %d charts; %d article figures (the article gives none)", len(r.Tables), len(r.Charts), len(e25.Figures))
	}
	tb := r.Tables[0]
	if want := 2*len(efSweep) + 1; len(tb.Rows) < want {
		t.Errorf("E25 table has %d rows, want at least %d", len(tb.Rows), want)
	}
	if !strings.Contains(r.Charts[0].SVG(), "<svg") {
		t.Error("E25 chart is not SVG")
	}
	x, err := Build(env, Config{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := x.Query(env, 0, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Rows) != env.Scale.K {
		t.Errorf("Query: %d rows, want k=%d", len(q.Rows), env.Scale.K)
	}
	// Query's naive column is HNSW's own k nearest passages: deduplicated,
	// they must be the naive walk's parents, in order.
	for qi := 0; qi < 5; qi++ {
		qv := x.queries.Row(qi)
		pass, _, err := x.graph.Query(qv, engine.Request{K: env.Scale.K, Breadth: 40})
		if err != nil {
			t.Fatal(err)
		}
		naive, _, err := x.ix.SearchNaive(qv, env.Scale.K, 40)
		if err != nil {
			t.Fatal(err)
		}
		var got []uint32
		seen := map[uint32]bool{}
		for _, p := range pass {
			if par := x.ParentOf[p.ID]; !seen[par] {
				seen[par] = true
				got = append(got, par)
			}
		}
		var want []uint32
		for _, h := range naive {
			want = append(want, h.Parent)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("query %d: HNSW passages name parents %v, the naive walk %v", qi, got, want)
		}
	}
	st, shapes, err := Shapes(env, []Config{{MinPassages: 1, MaxPassages: 1}, {MinPassages: 8, MaxPassages: 8}}, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Rows) != 2 || len(shapes) != 2 {
		t.Fatalf("Shapes: %d rows", len(st.Rows))
	}
	one, eight := e25Rows(shapes[0].Rows, e25Naive)[0], e25Rows(shapes[1].Rows, e25Naive)[0]
	if one.MeanParents <= eight.MeanParents {
		t.Errorf("naive distinct parents: 1 passage each %.2f, 8 each %.2f; want fewer with more passages", one.MeanParents, eight.MeanParents)
	}
	if kp := e25Rows(shapes[1].Rows, e25NaiveKPrime)[0]; kp.Asked != 8*env.Scale.K || kp.Ef < kp.Asked {
		t.Errorf("8 passages each: k'=%d ef=%d, want k'=%d and ef ≥ k'", kp.Asked, kp.Ef, 8*env.Scale.K)
	}
}
