package latency

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// TestRatio judges one ratio each way out of the band, within it, and on
// the wrong side of 1× within it: the reason always carries Why, and
// "not modelled:" with the side's words only when the verdict differs.
func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		name       string
		art, lab   float64
		toward     bool
		agrees     bool
		notModeled string // "" when agrees
	}{
		{"the article's ratio", 3, 3, false, true, ""},
		{"at the band's top", 3, 6, false, true, ""},
		{"above the band", 3, 6.1, false, false, "above"},
		{"below the band", 3, 1.4, false, false, "below"},
		{"below 1× within ×/÷ 2 of 1.5×", 1.5, 0.9, false, true, ""},
		{"below 1× cut by Toward", 1.5, 0.9, true, false, "below"},
		{"above 1× with Toward", 1.5, 1.2, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Ratio{ID: "E99", Claim: "x over y", Article: tc.art, Lab: tc.lab, Toward: tc.toward, Why: "the work", Above: "above", Below: "below"}.Verdict()
			if v.Agrees != tc.agrees {
				t.Fatalf("agrees %v, want %v: %s", v.Agrees, tc.agrees, v)
			}
			if !strings.Contains(v.Reason, "the work") {
				t.Errorf("reason without Why: %s", v.Reason)
			}
			_, after, found := strings.Cut(v.Reason, "; not modelled: ")
			if found != (tc.notModeled != "") || after != tc.notModeled {
				t.Errorf("reason %q, want not modelled %q", v.Reason, tc.notModeled)
			}
			if (v.Direction == "") == tc.toward {
				t.Errorf("direction %q with Toward %v", v.Direction, tc.toward)
			}
		})
	}
}

// TestOverRedisFigures judges only the stores whose figures the article
// gives, and nothing without a Redis row.
func TestOverRedisFigures(t *testing.T) {
	ex := experiment.Experiment{ID: "E99", Figures: []experiment.Figure{
		{Row: "redis", Measure: "p50", Value: 1}, {Row: "redis", Measure: "p95", Value: 2},
		{Row: "qdrant", Measure: "p50", Value: 3}, // no p95, no pgvector
	}}
	c := OverRedis{ID: "E99", Figures: ex, Fastest: "redis is fastest", Claim: "%s's %s over redis's",
		Cheapest: func(int) string { return "cheapest" }, Dearer: "dearer", Work: func(i, rd int) string { return "work" }}
	row := func(name string, p50 time.Duration) Store {
		return Store{Name: name, Latency: metrics.Latency{P50: p50, P95: 2 * p50}}
	}
	vs := c.Verdicts([]Store{row("pgvector", 3*time.Millisecond), row("redis", time.Millisecond), row("qdrant", 3*time.Millisecond)})
	var claims []string
	for _, v := range vs {
		claims = append(claims, v.Claim)
	}
	if got, want := strings.Join(claims, " | "), "redis is fastest | qdrant's p50 over redis's"; got != want {
		t.Errorf("claims %q, want %q", got, want)
	}
	if vs := c.Verdicts([]Store{row("qdrant", time.Millisecond)}); vs != nil {
		t.Errorf("without redis: %v", vs)
	}
	if vs := c.Verdicts([]Store{row("redis", 0)}); vs != nil {
		t.Errorf("redis without a latency: %v", vs)
	}
}

// TestJudgedClock: the verdicts judge every row's thread CPU time when
// every row has one, and say so; a row without it sends all of them to
// the wall clock (never a mix), and the reason says that too. Here the
// wall times (what a loaded machine gave) put qdrant at 10× redis, out of
// the article's 3× band, and the CPU times at 3×, inside it.
func TestJudgedClock(t *testing.T) {
	ex := experiment.Experiment{ID: "E99", Figures: []experiment.Figure{
		{Row: "redis", Measure: "p50", Value: 1}, {Row: "redis", Measure: "p95", Value: 1},
		{Row: "qdrant", Measure: "p50", Value: 3}, {Row: "qdrant", Measure: "p95", Value: 3},
	}}
	c := OverRedis{ID: "E99", Figures: ex, Fastest: "redis is fastest", Claim: "%s's %s over redis's",
		Cheapest: func(int) string { return "cheapest" }, Dearer: "dearer", Work: func(i, rd int) string { return "work" }}
	lat := func(d time.Duration) metrics.Latency { return metrics.Latency{P50: d, P95: d} }
	const us = time.Microsecond
	for _, tc := range []struct {
		name      string
		qdrantCPU time.Duration // 0: not read
		clock     string
		agrees    bool
	}{
		{"CPU time on every row", 300 * us, CPUClock, true},
		{"a row without CPU time", 0, WallClock, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := c.Verdicts([]Store{
				{Name: "redis", Latency: lat(100 * us), CPU: lat(100 * us)},
				{Name: "qdrant", Latency: lat(1000 * us), CPU: lat(tc.qdrantCPU)},
			})
			if len(vs) != 3 {
				t.Fatalf("%d verdicts, want 3: %v", len(vs), vs)
			}
			for _, v := range vs {
				if !strings.Contains(v.Reason, "clock: "+tc.clock) {
					t.Errorf("%s: reason %q does not name the clock %q", v.Claim, v.Reason, tc.clock)
				}
			}
			for _, v := range vs[1:] {
				if v.Agrees != tc.agrees {
					t.Errorf("%s: agrees %v, want %v: %s", v.Claim, v.Agrees, tc.agrees, v)
				}
			}
		})
	}
	if lats, clock := Judged(); len(lats) != 0 || clock != WallClock {
		t.Errorf("no rows: %v, %q", lats, clock)
	}
}
