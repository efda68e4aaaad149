package e03

import (
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
)

// TestLatencyVerdicts feeds the filtered latency verdicts the article's
// own table, then one where a store is faster than Redis: a ratio below
// 1× differs although ×/÷ 2 of the article's 1.94× reaches down to 0.97×,
// and Redis is then not the fastest.
func TestLatencyVerdicts(t *testing.T) {
	row := func(label string, p50, p95 float64) experiment.StrategyMeasurement {
		ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
		return experiment.StrategyMeasurement{Label: label, DistComps: 100, Latency: metrics.Latency{P50: ms(p50), P95: ms(p95)}}
	}
	article := []experiment.StrategyMeasurement{row("pgvector", 10, 15.7), row("redis", 1.6, 2.4), row("qdrant", 27.6, 38.9), row("elasticsearch", 3.1, 7.7)}
	vs := LatencyVerdicts(article)
	if len(vs) != 7 {
		t.Fatalf("%d verdicts, want 7: %v", len(vs), vs)
	}
	for _, v := range vs {
		if !v.Agrees {
			t.Errorf("the article's own figures: %s", v)
		}
	}
	faster := []experiment.StrategyMeasurement{row("pgvector", 10, 15.7), row("redis", 1.6, 2.4), row("qdrant", 27.6, 38.9), row("elasticsearch", 1.58, 7.7)}
	vs = LatencyVerdicts(faster)
	for _, v := range vs {
		switch v.Claim {
		case "redis answers the filtered query fastest of the four on its defaults (p50)", "elasticsearch's filtered p50 over redis's on the defaults":
			if v.Agrees {
				t.Errorf("elasticsearch faster than redis: %s", v)
			}
		default:
			if !v.Agrees {
				t.Errorf("%s", v)
			}
		}
	}
	if vs := LatencyVerdicts(article[2:]); len(vs) != 0 {
		t.Errorf("without redis: %v", vs)
	}
}
