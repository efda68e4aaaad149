package advise

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
)

// curve is a known recall curve 1 − exp(−v/scale) with a deterministic
// wobble of amplitude noise (a hash of v), as a graph search's recall
// wobbles around its trend.
func curve(scale, noise float64) func(v int) float64 {
	return func(v int) float64 {
		h := uint64(v)*0x9e3779b97f4a7c15 ^ 0xdeadbeef
		h ^= h >> 29
		u := float64(h%1000)/999*2 - 1 // −1…1
		return 1 - math.Exp(-float64(v)/scale) + noise*u
	}
}

// TestKnobSearchKnownCurve checks that the value found is the smallest
// reaching the target within the noise, from starts below and above it,
// and that it took far fewer measurements than a grid.
func TestKnobSearchKnownCurve(t *testing.T) {
	const scale, target = 50.0, 0.95
	trueV := int(math.Ceil(scale * math.Log(20))) // 1 − exp(−v/50) ≥ 0.95 ⇔ v ≥ 149.8
	for _, tc := range []struct {
		name          string
		noise, tol    float64
		start, lo, hi int
	}{
		{"exact curve, start below", 0, 0, 40, 1, 1000},
		{"exact curve, start above", 0, 0, 800, 1, 1000},
		{"exact curve, start at lo", 0, 0, 1, 1, 1000},
		{"wobble 0.003, start below", 0.003, 0.006, 10, 1, 1000},
		{"wobble 0.003, start above", 0.003, 0.006, 400, 1, 1000},
		{"wobble 0.003, range from k", 0.003, 0.006, 10, 10, 10000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := curve(scale, tc.noise)
			calls := 0
			r, err := KnobSearch{Lo: tc.lo, Hi: tc.hi, Start: tc.start, Target: target, Tol: tc.tol}.Run(context.Background(), func(v int) (Point, error) {
				calls++
				return Point{Recall: f(v)}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Reached {
				t.Fatalf("not reached; best %+v", r.Best)
			}
			if r.At.Recall < target {
				t.Errorf("value %d reads %.4f < target %.2f", r.Value, r.At.Recall, target)
			}
			// The smallest within noise: the trend at the value found is
			// at least target − 2·noise, and one below it the trend is
			// under target + 2·noise (so no clearly smaller value exists).
			trend := curve(scale, 0)
			if trend(r.Value) < target-2*tc.noise || trend(r.Value-1) >= target+2*tc.noise {
				t.Errorf("value %d: trend %.4f there, %.4f one below; the true threshold is %d", r.Value, trend(r.Value), trend(r.Value-1), trueV)
			}
			if tc.noise == 0 && r.Value != trueV {
				t.Errorf("value %d on the exact curve, want %d", r.Value, trueV)
			}
			if calls > 2*int(math.Ceil(math.Log2(float64(tc.hi))))+4 {
				t.Errorf("%d measurements for a range of %d", calls, tc.hi)
			}
			if len(r.Curve) != calls {
				t.Errorf("curve has %d points for %d measurements", len(r.Curve), calls)
			}
		})
	}
}

// TestKnobSearchDip: a lucky reading below the true threshold (80 reads
// 0.96 on a curve that reaches 0.95 at 150) is caught by the confirmation
// above it, reported as a dip, and the search resumes to the true
// threshold.
func TestKnobSearchDip(t *testing.T) {
	f := curve(50, 0)
	r, err := KnobSearch{Lo: 1, Hi: 1000, Start: 40, Target: 0.95, Tol: 0.01}.Run(context.Background(), func(v int) (Point, error) {
		if v == 80 {
			return Point{Recall: 0.96}, nil
		}
		return Point{Recall: f(v)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Reached || r.Value != 150 {
		t.Errorf("value %d (reached %t), want 150; curve %+v", r.Value, r.Reached, r.Curve)
	}
	if len(r.Dips) == 0 || r.Dips[0].Value != 100 {
		t.Errorf("dips %+v, want the reading at 100 (80 + 80/4)", r.Dips)
	}
}

func TestKnobSearchUnreachable(t *testing.T) {
	r, err := KnobSearch{Lo: 1, Hi: 1000, Start: 40, Target: 0.99, Tol: 0}.Run(context.Background(), func(v int) (Point, error) {
		return Point{Recall: 0.9 * (1 - math.Exp(-float64(v)/50))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reached || r.Value != 1000 || r.Best.Value != 1000 || r.Best.Recall > 0.9 {
		t.Errorf("got %+v, want unreached at 1000 with the best there", r)
	}
}

// TestKnobSearchPlateau: a recall that stops growing (a quantized index
// capped at 0.93) ends the climb early, reported as a plateau.
func TestKnobSearchPlateau(t *testing.T) {
	calls := 0
	r, err := KnobSearch{Lo: 30, Hi: 10000, Start: 30, Target: 0.95, Tol: 0.014}.Run(context.Background(), func(v int) (Point, error) {
		calls++
		return Point{Recall: 0.93 - 0.2*math.Exp(-float64(v)/20)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reached || !r.Plateau || r.Value >= 10000 || calls > 8 {
		t.Errorf("reached %t, plateau %t, stopped at %d after %d measurements; want a plateau well below 10000", r.Reached, r.Plateau, r.Value, calls)
	}
	if r.Best.Recall < 0.929 {
		t.Errorf("best %+v", r.Best)
	}
}

func TestKnobSearchErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		s    KnobSearch
		ctx  context.Context
		want error
	}{
		{"empty range", KnobSearch{Lo: 10, Hi: 5, Target: 0.9}, context.Background(), engine.ErrInvalidArgument},
		{"zero lo", KnobSearch{Lo: 0, Hi: 5, Target: 0.9}, context.Background(), engine.ErrInvalidArgument},
		{"target 1.5", KnobSearch{Lo: 1, Hi: 5, Target: 1.5}, context.Background(), engine.ErrInvalidArgument},
		{"NaN tolerance", KnobSearch{Lo: 1, Hi: 5, Target: 0.9, Tol: math.NaN()}, context.Background(), engine.ErrInvalidArgument},
		{"cancelled", KnobSearch{Lo: 1, Hi: 5, Target: 0.9}, ctx, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Run(tc.ctx, func(v int) (Point, error) { return Point{Recall: 1}, nil })
			if !errors.Is(err, tc.want) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
		})
	}
}
