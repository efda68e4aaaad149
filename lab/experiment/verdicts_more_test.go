package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// verdictWords returns "agrees"/"differs" per verdict, for compact
// comparisons.
func verdictWords(vs Verdicts) string {
	var w []string
	for _, v := range vs {
		w = append(w, v.Word())
	}
	return strings.Join(w, " ")
}

// TestSpreadSensitivity: at a small scale each spread gets its own data
// set (the recalls differ between spreads), the marked row is the one
// nearest the article's Redis and pgvector figures, and a bad spread or
// a real data set is refused.
func TestSpreadSensitivity(t *testing.T) {
	env, err := NewEnv(Scale{Name: "custom", N: 600, Dim: 64, Clusters: 8, Queries: 10, Warmup: 2, K: 10, Batch: 200}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	rows, err := SpreadSensitivity(env, []float64{0.75, 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Spread != 0.75 || rows[1].Spread != 1.5 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0] == (SpreadRow{Spread: 0.75}) || rows[0].BBQ == rows[1].BBQ && rows[0].Redis == rows[1].Redis {
		t.Errorf("the two spreads measured alike: %+v", rows)
	}
	m, ok := spreadMatch(rows)
	gap := func(r SpreadRow) float64 {
		return math.Max(math.Abs(r.Redis-0.616), math.Abs(r.PGVector-0.951))
	}
	if !ok || gap(m) > gap(rows[0]) || gap(m) > gap(rows[1]) {
		t.Errorf("match %+v is not the nearest of %+v", m, rows)
	}
	if tb := SpreadTable(env, rows); !strings.Contains(tb.String(), "◀ nearest") {
		t.Errorf("table marks no row:\n%s", tb)
	}
	if err := SpreadChart(rows).Err(); err != nil {
		t.Error(err)
	}
	if _, err := env.withSpread(0); !errors.Is(err, ErrBadArgument) {
		t.Errorf("spread 0: %v", err)
	}
	if _, err := SpreadSensitivity(env, nil); !errors.Is(err, ErrBadArgument) {
		t.Errorf("no spreads: %v", err)
	}
}

// TestCount: the closing counts name the experiments that differ (with
// how many claims each), count an experiment that agrees in every claim,
// leave out one without verdicts and list one that did not run.
func TestCount(t *testing.T) {
	agree := Within("E90", "a", 1, 1, 0, "")
	differ := Within("E90", "b", 1, 2, 0, "")
	reports := []*Report{
		{ID: "E01", Status: OK, Verdicts: Verdicts{agree, differ, differ}},
		{ID: "E02", Status: OK, Verdicts: Verdicts{agree, agree}},
		{ID: "E03", Status: OK},
		{ID: "E04", Status: NotRunnable},
		{ID: "E05", Status: OK, Verdicts: Verdicts{differ}},
	}
	c := Count(reports)
	want := "1 of 3 experiments agree in every claim; 6 claims checked, 3 differ: E01 (2), E05 (1); did not run: E04"
	if c.String() != want {
		t.Errorf("counts %q, want %q", c, want)
	}
	j := c.JSON()
	if j["experiments"] != 3 || j["agree_all"] != 1 || j["claims"] != 6 || j["differ"] != 3 || j["differing"].(map[string]any)["E01"] != 2 || j["line"] != want {
		t.Errorf("JSON %v", j)
	}
	if c := Count(nil); c.String() != "0 of 0 experiments agree in every claim; 0 claims checked, 0 differ" {
		t.Errorf("no reports: %q", c)
	}
}
