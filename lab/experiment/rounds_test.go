package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestRounds(t *testing.T) {
	r := Rounds{Clock: CPUTime, Ratios: []float64{1.2, 0.8, 1.0, 1.1}}
	if m, s := r.Median(), r.spread(); math.Abs(m-1.05) > 1e-12 || math.Abs(s-0.25) > 1e-12 {
		t.Errorf("median %v spread %v, want 1.05 and 0.25", m, s)
	}
	if got := r.String(); got != "1.05× (median of 4 alternating rounds of CPU time, 0.80–1.20×)" {
		t.Errorf("String: %q", got)
	}
	if m := (Rounds{}).Median(); !math.IsNaN(m) {
		t.Errorf("no rounds: median %v", m)
	}

	// alternate runs a first in even rounds and b first in odd ones, and
	// each round's ratio is b's cost over a's.
	var order []string
	a := func() (time.Duration, error) { order = append(order, "a"); return 2 * time.Millisecond, nil }
	b := func() (time.Duration, error) { order = append(order, "b"); return 6 * time.Millisecond, nil }
	got, err := Alternate(3, WallTime, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, "") != "abbaab" || len(got.Ratios) != 3 || got.Median() != 3 || got.spread() != 0 {
		t.Errorf("order %v, rounds %v", order, got)
	}
	zero := func() (time.Duration, error) { return 0, nil }
	if _, err := Alternate(1, WallTime, a, zero); !errors.Is(err, ErrBadArgument) {
		t.Errorf("a round costing nothing: %v", err)
	}
	// The CPU clock advances with work done (where it can be read).
	if CPUTime.Usable() == CPUTime {
		d, _ := CPUTime.Timed(func() error {
			x := 0.0
			for i := range 20_000_000 {
				x += math.Sqrt(float64(i))
			}
			sinkF = x
			return nil
		})
		if d <= 0 {
			t.Errorf("CPU time of a busy loop: %v", d)
		}
	}
}

var sinkF float64

func TestRoundsVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ratios []float64
		faster string // fasterRounds(noise 0.13)
	}{
		{"the article's ratio, tight rounds", []float64{1.1, 1.12, 1.15}, "differs"},
		{"twice as fast, tight rounds", []float64{2, 2.1, 1.95}, "agrees"},
		{"twice as fast, scattered rounds", []float64{2, 3.2, 0.9}, "differs"},
		{"faster, one round faster still", []float64{2, 2.1, 7}, "agrees"},
		{"slower, tight rounds", []float64{0.5, 0.52, 0.48}, "differs"},
		{"faster, one slow round of five", []float64{1.8, 1.75, 1.7, 0.9, 1.9}, "agrees"},
		{"faster in three rounds of five", []float64{1.8, 1.75, 1.1, 0.9, 1.9}, "differs"},
		{"no rounds", nil, "differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Rounds{Clock: WallTime, Ratios: tc.ratios}
			f := FasterRounds("E99", "faster "+tc.name, "faster", r, 0.13, "a measured cause", "not yet explained")
			if f.Word() != tc.faster {
				t.Errorf("faster %s (%s); want %s", f.Word(), f.Reason, tc.faster)
			}
			if tc.ratios != nil && !strings.Contains(f.Reason, Why(f.Agrees, "a measured cause", "not yet explained")) {
				t.Errorf("faster's reason %q lacks its cause", f.Reason)
			}
		})
	}
}
