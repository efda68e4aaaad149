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
