package e06

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// TestFilteredAndLatencyVerdicts feeds the verdicts rows of known
// latencies and recall: the p50 ratios are judged against the article's
// (1× and 1.33× unfiltered, 0.812× filtered) within ×/÷ 2, both ways out
// of the band differ, and the filtered recall is the article's 1.000
// within 0.05.
func TestFilteredAndLatencyVerdicts(t *testing.T) {
	row := func(label string, p50 time.Duration, recall, dist float64) experiment.Measurement {
		return experiment.Measurement{Label: label, Recall: recall, DistComps: dist, Latency: metrics.Latency{P50: p50, P95: 2 * p50}}
	}
	const us = time.Microsecond
	for _, tc := range []struct {
		name  string
		ms    []experiment.Measurement
		fms   []experiment.Measurement
		words []string // 50, 200 unfiltered, then 50, 200 filtered
	}{
		{"the article's shape",
			[]experiment.Measurement{row("10", 600*us, 0.62, 200), row("50", 600*us, 0.96, 600), row("200", 800*us, 1, 1600)},
			[]experiment.Measurement{row("10", 1600*us, 1, 80), row("50", 1300*us, 1, 80), row("200", 1300*us, 1, 80)},
			[]string{"agrees", "agrees", "agrees", "agrees"}},
		{"the walk's growth, an exact filter",
			[]experiment.Measurement{row("10", 30*us, 0.62, 200), row("50", 60*us, 0.96, 600), row("200", 170*us, 1, 1600)},
			[]experiment.Measurement{row("10", 6*us, 1, 80), row("50", 6*us, 1, 80), row("200", 6*us, 1, 80)},
			[]string{"agrees", "differs", "agrees", "agrees"}},
		{"wider is far faster",
			[]experiment.Measurement{row("10", 600*us, 0.62, 200), row("50", 200*us, 0.96, 600), row("200", 300*us, 1, 1600)},
			[]experiment.Measurement{row("10", 1600*us, 1, 80), row("50", 300*us, 1, 80), row("200", 5000*us, 1, 80)},
			[]string{"differs", "differs", "differs", "differs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := LatencyVerdicts(tc.ms, tc.fms)
			if len(vs) != len(tc.words) {
				t.Fatalf("%d verdicts, want %d: %v", len(vs), len(tc.words), vs)
			}
			for i, v := range vs {
				if v.Word() != tc.words[i] {
					t.Errorf("%s: %s, want %s (%s)", v.Claim, v.Word(), tc.words[i], v.Reason)
				}
				if !v.Agrees && !strings.Contains(v.Reason, "not modelled") {
					t.Errorf("%s differs without naming what is not modelled: %s", v.Claim, v.Reason)
				}
			}
			fv := FilteredVerdicts(tc.fms)
			if len(fv) != 3 {
				t.Fatalf("%d filtered recall verdicts: %v", len(fv), fv)
			}
			for _, v := range fv {
				if !v.Agrees || v.Article != "1 (± 0.05)" {
					t.Errorf("filtered recall: %s", v)
				}
			}
		})
	}
	if vs := LatencyVerdicts(nil, nil); len(vs) != 0 {
		t.Errorf("no rows: %v", vs)
	}
	if vs := FilteredVerdicts([]experiment.Measurement{row("10", us, 0.9, 80)}); len(vs) != 1 || vs[0].Agrees {
		t.Errorf("filtered recall 0.9: %v", vs)
	}
}
