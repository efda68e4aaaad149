package e07

import (
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// TestLatencyVerdicts feeds the p50 verdicts the article's column, one
// scaled to the lab's in-process timings (the same ratios), and one where
// the fixes are cheaper than the default: the ratio, not the milliseconds,
// is judged, and a fix at or below the default's p50 differs.
func TestLatencyVerdicts(t *testing.T) {
	rows := func(scale float64, p50 ...float64) []experiment.StrategyMeasurement {
		var ms []experiment.StrategyMeasurement
		for i, s := range Default {
			d := time.Duration(scale * p50[i] * float64(time.Millisecond))
			ms = append(ms, experiment.StrategyMeasurement{Label: s.Label(), DistComps: 100, Latency: metrics.Latency{P50: d, P95: d}})
		}
		return ms
	}
	for _, tc := range []struct {
		name  string
		ms    []experiment.StrategyMeasurement
		agree int
	}{
		{"the article's column", rows(1, 1.2, 1.7, 28.2, 7.7, 9.7), 4},
		{"the same ratios in microseconds", rows(0.01, 1.2, 1.7, 28.2, 7.7, 9.7), 4},
		{"every fix as cheap as the default", rows(1, 1.2, 1.2, 1.1, 1.2, 0.6), 0},
		{"1000 off 4× too slow", rows(1, 1.2, 1.7, 4*28.2, 7.7, 9.7), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := LatencyVerdicts(tc.ms)
			if len(vs) != 4 {
				t.Fatalf("%d verdicts, want 4: %v", len(vs), vs)
			}
			n := 0
			for _, v := range vs {
				if v.Agrees {
					n++
				}
				if v.Direction != "> 1×" {
					t.Errorf("%s: direction %q", v.Claim, v.Direction)
				}
			}
			if n != tc.agree {
				t.Errorf("%d agree, want %d: %v", n, tc.agree, vs)
			}
		})
	}
	if vs := LatencyVerdicts(rows(1, 1.2, 1.7, 28.2, 7.7, 9.7)[1:]); len(vs) != 0 {
		t.Errorf("without the default row: %v", vs)
	}
}
