package e02

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// TestLatencyVerdicts feeds the latency verdicts the article's own table,
// then one where Qdrant is faster than Redis (no direction is cut, so its
// ratio differs only out of the band) and one where pgvector is 10× the
// article's ratio: a differing ratio names what the lab does not model.
func TestLatencyVerdicts(t *testing.T) {
	row := func(label string, p50, p95 float64) experiment.Measurement {
		ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
		return experiment.Measurement{Label: label, DistComps: 100, Latency: metrics.Latency{P50: ms(p50), P95: ms(p95)}}
	}
	const fastest = "redis answers fastest of the four on its defaults (p50)"
	for _, tc := range []struct {
		name   string
		ms     []experiment.Measurement
		differ []string // the claims that differ
	}{
		{"the article's table", []experiment.Measurement{row("pgvector", 9.5, 16.4), row("redis", 0.7, 1.1), row("qdrant", 2.8, 6.8), row("elasticsearch", 5.4, 20.5)}, nil},
		{"qdrant faster than redis", []experiment.Measurement{row("pgvector", 9.5, 16.4), row("redis", 0.7, 1.1), row("qdrant", 0.6, 6.8), row("elasticsearch", 5.4, 20.5)},
			[]string{fastest, "qdrant's p50 over redis's on the defaults"}},
		{"pgvector 10× slower", []experiment.Measurement{row("pgvector", 95, 164), row("redis", 0.7, 1.1), row("qdrant", 2.8, 6.8), row("elasticsearch", 5.4, 20.5)},
			[]string{"pgvector's p50 over redis's on the defaults", "pgvector's p95 over redis's on the defaults"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := LatencyVerdicts(tc.ms)
			if len(vs) != 7 {
				t.Fatalf("%d verdicts, want 7: %v", len(vs), vs)
			}
			var differ []string
			for _, v := range vs {
				if v.Agrees {
					continue
				}
				differ = append(differ, v.Claim)
				if v.Claim != fastest && !strings.Contains(v.Reason, "; not modelled: ") {
					t.Errorf("%s differs without naming what is not modelled: %s", v.Claim, v.Reason)
				}
			}
			if got, want := strings.Join(differ, " | "), strings.Join(tc.differ, " | "); got != want {
				t.Errorf("differ: %q, want %q", got, want)
			}
		})
	}
	if vs := LatencyVerdicts([]experiment.Measurement{row("pgvector", 9.5, 16.4)}); len(vs) != 0 {
		t.Errorf("without redis: %v", vs)
	}
}
