package latency

import (
	"fmt"
	"slices"
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
		return Store{Name: name, Timing: Timing{Wall: metrics.Latency{P50: p50, P95: 2 * p50}}}
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
				{Name: "redis", Timing: Timing{Wall: lat(100 * us), CPU: lat(100 * us)}},
				{Name: "qdrant", Timing: Timing{Wall: lat(1000 * us), CPU: lat(tc.qdrantCPU)}},
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
	if j := Judged(); len(j.Lats) != 0 || j.Clock != WallClock {
		t.Errorf("no rows: %v, %q", j.Lats, j.Clock)
	}
}

// TestOverRounds: a ratio measured in alternating rounds is the median
// of the per-round ratios, not the ratio of the whole run's quantiles nor
// the ratio of the rounds' median quantiles; a round where the base is
// zero is left out; rows without rounds, or with unequal rounds, or on the
// other clock, give the whole run's ratio. Each row here is (p50, p95) in
// µs per round.
func TestOverRounds(t *testing.T) {
	const us = time.Microsecond
	lat := func(p50 int) metrics.Latency {
		return metrics.Latency{P50: time.Duration(p50) * us, P95: time.Duration(2*p50) * us}
	}
	rounds := func(p50s ...int) []metrics.Latency {
		var ls []metrics.Latency
		for _, p := range p50s {
			ls = append(ls, lat(p))
		}
		return ls
	}
	for _, tc := range []struct {
		name        string
		a, b        Timing // a over b
		want        float64
		ratios      []float64 // the rounds' ratios, in order run
		clock       experiment.Clock
		wholeRunish bool
	}{
		// Base rounds 10 10 10 10 10; a's 20 30 100 25 22: ratios 2 3 10 2.5
		// 2.2, median 2.5 (the whole run's 40/10 would say 4).
		{"five rounds, one slowed by load", Timing{CPU: lat(40), RoundCPU: rounds(20, 30, 100, 25, 22)}, Timing{CPU: lat(10), RoundCPU: rounds(10, 10, 10, 10, 10)},
			2.5, []float64{2, 3, 10, 2.5, 2.2}, experiment.CPUTime, false},
		// The median of the ratios, not the ratio of the median rounds: a's
		// rounds 20 40 30, b's 10 40 10: ratios 2 1 3, median 2 (medians
		// 30/10 would say 3).
		{"median of ratios, not ratio of medians", Timing{CPU: lat(30), RoundCPU: rounds(20, 40, 30)}, Timing{CPU: lat(10), RoundCPU: rounds(10, 40, 10)},
			2, []float64{2, 1, 3}, experiment.CPUTime, false},
		// An even count: the mean of the middle two (2 and 3).
		{"four rounds", Timing{CPU: lat(1), RoundCPU: rounds(10, 20, 30, 40)}, Timing{CPU: lat(1), RoundCPU: rounds(10, 10, 10, 10)},
			2.5, []float64{1, 2, 3, 4}, experiment.CPUTime, false},
		{"a round without a base", Timing{CPU: lat(1), RoundCPU: rounds(10, 20, 30)}, Timing{CPU: lat(1), RoundCPU: rounds(10, 0, 10)},
			2, []float64{1, 3}, experiment.CPUTime, false},
		{"no rounds: the whole run", Timing{CPU: lat(40)}, Timing{CPU: lat(10)}, 4, nil, experiment.CPUTime, true},
		{"unequal rounds: the whole run", Timing{CPU: lat(40), RoundCPU: rounds(20, 30)}, Timing{CPU: lat(10), RoundCPU: rounds(10, 10, 10)}, 4, nil, experiment.CPUTime, true},
		// One row without CPU time sends both to the wall clock and its rounds.
		{"wall clock rounds", Timing{Wall: lat(40), RoundWall: rounds(30, 50, 40), RoundCPU: rounds(1, 1, 1)}, Timing{Wall: lat(10), RoundWall: rounds(10, 10, 10)},
			4, []float64{3, 5, 4}, experiment.WallTime, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Judged(tc.a, tc.b)
			got, r := j.Over(0, 1, P50)
			if got != tc.want || !slices.Equal(r.Ratios, tc.ratios) || r.Clock != tc.clock {
				t.Errorf("ratio %v over rounds %v on %v, want %v over %v on %v", got, r.Ratios, r.Clock, tc.want, tc.ratios, tc.clock)
			}
			if p95, _ := j.Over(0, 1, P95); p95 != tc.want { // every p95 is twice the p50
				t.Errorf("p95 ratio %v, want %v", p95, tc.want)
			}
			v := Ratio{ID: "E99", Claim: "a over b", Article: tc.want, Lab: got, Rounds: r, Why: "work"}.Verdict()
			if v.Lab != experiment.FmtFig(tc.want, "×") {
				t.Errorf("verdict's lab figure %q, want %v", v.Lab, tc.want)
			}
			said := strings.Contains(v.Reason, fmt.Sprintf("median of %d alternating rounds of %s", len(tc.ratios), tc.clock))
			if said == tc.wholeRunish {
				t.Errorf("reason %q: names the rounds %v, want %v", v.Reason, said, !tc.wholeRunish)
			}
			if !tc.wholeRunish {
				lo, hi := slices.Min(tc.ratios), slices.Max(tc.ratios)
				if span := fmt.Sprintf("%.2f–%.2f×", lo, hi); !strings.Contains(v.Reason, span) {
					t.Errorf("reason %q without the rounds' span %s", v.Reason, span)
				}
			}
		})
	}
}
