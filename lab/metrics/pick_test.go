package metrics

import (
	"testing"
	"time"
)

func TestQPSOf(t *testing.T) {
	ms := time.Millisecond
	passes := []time.Duration{40 * ms, 10 * ms, 30 * ms, 20 * ms} // 100 queries each
	for _, tc := range []struct {
		pick    Pick
		perPass bool
		passes  []time.Duration
		bestSum time.Duration
		want    float64
	}{
		{AllPasses, false, passes, 0, 4000},             // 400 queries in 100 ms
		{MedianPass, false, passes, 0, 100 / 0.030},     // the upper middle of 10, 20, 30, 40
		{MedianPass, false, passes[:3], 0, 100 / 0.030}, // the middle of 10, 30, 40
		{BestPass, false, passes, 0, 10000},             // 100 in 10 ms
		{BestPerQuery, false, passes, 5 * ms, 20000},    // the minima sum to 5 ms
		{BestPerQuery, true, passes, 0, 10000},          // per pass: the best pass
		{AllPasses, false, nil, 0, 0},                   // nothing timed
	} {
		got := qpsOf(tc.pick, 100, tc.passes, tc.bestSum, tc.perPass)
		if d := got - tc.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%v (per pass %v) over %v: %v, want %v", tc.pick, tc.perPass, tc.passes, got, tc.want)
		}
	}
	if s := BestPass.String(); s != "best pass" {
		t.Errorf("BestPass prints %q", s)
	}
}
