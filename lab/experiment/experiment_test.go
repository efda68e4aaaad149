package experiment

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// The small-scale environment is shared by the tests of this file (its
// stores take a few seconds to build on a busy machine).
var (
	smallOnce sync.Once
	smallEnv  *Env
	smallErr  error
)

func small(t *testing.T) *Env {
	t.Helper()
	smallOnce.Do(func() { smallEnv, smallErr = NewEnv(Small, 1) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallEnv
}

func TestRegistry(t *testing.T) {
	for _, id := range []string{"E01", "E02", "E04", "E05", "E06"} {
		e, ok := Lookup(strings.ToLower(id))
		if !ok || e.Run == nil || e.Title == "" || e.Article == "" {
			t.Errorf("%s not registered properly: %+v", id, e)
		}
	}
	got, err := Select(" e06, E02,e06 ")
	if err != nil || len(got) != 2 || got[0].ID != "E02" || got[1].ID != "E06" {
		t.Errorf("Select = %v, %v; want E02, E06 in order", ids(got), err)
	}
	if all, _ := Select(""); len(all) != len(registered()) {
		t.Error("empty selection is not all")
	}
	_, err = Select("E02,E99,X")
	if !errors.Is(err, errUnknown) || !strings.Contains(err.Error(), "E99, X") || !strings.Contains(err.Error(), "registered: ") {
		t.Errorf("Select unknown: %v", err)
	}
	panics := func(name string, e Experiment) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			Register(e)
		})
	}
	run := func(*Env) (*Report, error) { return nil, nil }
	panics("duplicate", Experiment{ID: "E02", Run: run})
	panics("bad id", Experiment{ID: "X1", Run: run})
	panics("no run", Experiment{ID: "E98"})
}

func ids(es []Experiment) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return s
}

func TestParseScale(t *testing.T) {
	tests := []struct {
		in   string
		want Scale
		err  string
	}{
		{"article", Article, ""},
		{"", Article, ""},
		{"SMALL", Small, ""},
		{"n=5000,queries=50", func() Scale { s := Article; s.Name, s.N, s.Queries = "custom", 5000, 50; return s }(), ""},
		{"n=5000 k=20", func() Scale { s := Article; s.Name, s.N, s.K = "custom", 5000, 20; return s }(), ""},
		{"huge", Scale{}, "neither a scale name"},
		{"n=abc", Scale{}, "invalid syntax"},
		{"colour=3", Scale{}, "unknown key"},
		{"n=0", Scale{}, "n must be ≥ 1"},
		{"n=5,k=10", Scale{}, "exceeds n"},
	}
	for _, tt := range tests {
		got, err := ParseScale(tt.in)
		if tt.err != "" {
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseScale(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseScale(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := NewEnv(Scale{}, 0); err == nil {
		t.Error("NewEnv accepted an empty scale")
	}
}

// lab returns the lab's float in row/column of t.
func lab(t *testing.T, tb *table.Table, row, col string) float64 {
	t.Helper()
	c, ok := tb.Lookup(row, col)
	if !ok || c.Kind != table.FloatKind {
		t.Fatalf("table %q has no float at (%s, %s): %v", tb.Title, row, col, c)
	}
	return c.Float
}

func TestMeasureFilteredPGVector(t *testing.T) {
	env := small(t)
	// On 2,000 rows PostgreSQL's planner prefers filtering every row to
	// the HNSW index: exact answers, k hits.
	s, err := env.Store(profile.Default(profile.PGVector))
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeasureFiltered(env, s, ArticleFilter, "pgvector")
	if err != nil {
		t.Fatal(err)
	}
	if m.Recall != 1 || m.MeanHits != float64(env.Scale.K) {
		t.Errorf("pgvector on %d rows: recall %.3f, %.1f hits, want the sequential scan's exact answer", env.Scale.N, m.Recall, m.MeanHits)
	}
	// With enable_seqscan = off the index scan post-filters its 40 rows:
	// about 40 × 4.4 % of them are left.
	off := profile.Default(profile.PGVector)
	off.SeqScanOff = true
	if s, err = env.Store(off); err != nil {
		t.Fatal(err)
	}
	if m, err = MeasureFiltered(env, s, ArticleFilter, "pgvector enable_seqscan=off"); err != nil {
		t.Fatal(err)
	}
	if m.MeanHits >= float64(env.Scale.K) {
		t.Errorf("pgvector post-filter mean hits %.1f, want fewer than k=%d", m.MeanHits, env.Scale.K)
	}
	if _, err := MeasureFiltered(env, s, "colour == 'red'", "bad"); err == nil {
		t.Error("a filter on an undeclared field was accepted")
	}
}

func TestRunRecoversAndReports(t *testing.T) {
	env := small(t)
	boom := Experiment{ID: "E97", Title: "panics", Run: func(*Env) (*Report, error) { panic("boom") }}
	r := Run(env, boom)
	if r.Status != Failed || !strings.Contains(r.Err, "boom") {
		t.Errorf("panicking experiment: %s %q", r.Status, r.Err)
	}
	missing := Experiment{ID: "E96", Title: "needs a missing part", Run: func(*Env) (*Report, error) {
		return nil, errors.Join(ErrNotRunnable, errors.New("engine/nothing has not landed"))
	}}
	r2 := Run(env, missing)
	if r2.Status != NotRunnable || !strings.Contains(r2.String(), "not runnable") {
		t.Errorf("not-runnable experiment: %s\n%s", r2.Status, r2)
	}
	sum := Summary([]*Report{r, r2})
	if !strings.Contains(sum, "E97  failed") || !strings.Contains(sum, "E96  not runnable") {
		t.Errorf("Summary:\n%s", sum)
	}
}

// TestRows checks that a notebook's measure.Result rows reach the verdicts
// with every figure they read.
func TestRows(t *testing.T) {
	in := []measure.Result{{Label: "50", DistComps: 812, Measured: metrics.Measured{Queries: 100, K: 10, Recall: 0.93, MeanHits: 10, QPS: 4000}}}
	got := Rows(in)
	want := Measurement{Label: "50", Queries: 100, K: 10, Recall: 0.93, MeanHits: 10, QPS: 4000, DistComps: 812}
	if len(got) != 1 || got[0].String() != want.String() {
		t.Fatalf("Rows(%+v) = %+v, want %+v", in, got, want)
	}
	if got := Rows(nil); len(got) != 0 {
		t.Errorf("Rows(nil) = %v, want none", got)
	}
}

// TestFilteredRows checks that a notebook's filtered rows reach the
// filtered verdicts with the figures they read (label, recall, hits,
// payload reads, plan) and that those verdicts judge them.
func TestFilteredRows(t *testing.T) {
	in := []measure.Result{{Label: "40 off", DistComps: 650, PayloadReads: 30000, Plan: "k=10 ef=40; filtered: postfilter (query 0)",
		Measured: metrics.Measured{Queries: 100, K: 10, Recall: 0.186, MeanHits: 2.1}}}
	got := FilteredRows(in)
	want := StrategyMeasurement{Label: "40 off", Recall: 0.186, MeanHits: 2.1, DistComps: 650, PayloadChecks: 30000, Plan: in[0].Plan}
	if len(got) != 1 || got[0].Label != want.Label || got[0].Recall != want.Recall || got[0].MeanHits != want.MeanHits ||
		got[0].DistComps != want.DistComps || got[0].PayloadChecks != want.PayloadChecks || got[0].Plan != want.Plan {
		t.Fatalf("FilteredRows(%+v) = %+v, want %+v", in, got, want)
	}
	if got := FilteredRows(nil); len(got) != 0 {
		t.Errorf("FilteredRows(nil) = %v, want none", got)
	}
}
