package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/profile"
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

// TestRoundOrder: forward in even rounds, backward in odd ones, for
// Alternate's two sides and Env.Alternate's rows alike.
func TestRoundOrder(t *testing.T) {
	for _, tc := range []struct {
		round, n int
		want     []int
	}{
		{0, 1, []int{0}}, {1, 1, []int{0}},
		{0, 2, []int{0, 1}}, {1, 2, []int{1, 0}}, {2, 2, []int{0, 1}},
		{0, 4, []int{0, 1, 2, 3}}, {1, 4, []int{3, 2, 1, 0}}, {4, 4, []int{0, 1, 2, 3}}, {5, 4, []int{3, 2, 1, 0}},
	} {
		if got := roundOrder(tc.round, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("round %d of %d sides: %v, want %v", tc.round, tc.n, got, tc.want)
		}
	}
}

// TestEnvAlternate runs rows whose measuring loop is the one Measure
// builds (env.rounds' hook before each query) and records which row
// answered which query when: every row's queries split into 5 rounds of
// consecutive queries (fewer with fewer queries), the rows of a round in
// roundOrder, the rounds one after the other.
func TestEnvAlternate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows, n int
		want    string // row:query in the order run (the rounds spaced for reading)
	}{
		{"two rows, 5 queries", 2, 5, "0:0 1:0  1:1 0:1  0:2 1:2  1:3 0:3  0:4 1:4"},
		// 7 queries: rounds start at 0, 1, 2, 4, 5 (r·7/5).
		{"two rows, 7 queries", 2, 7, "0:0 1:0  1:1 0:1  0:2 0:3 1:2 1:3  1:4 0:4  0:5 0:6 1:5 1:6"},
		// Fewer queries than rounds: a round per query.
		{"three rows, 3 queries", 3, 3, "0:0 1:0 2:0  2:1 1:1 0:1  0:2 1:2 2:2"},
		{"three rows, 10 queries", 3, 10, "0:0 0:1 1:0 1:1 2:0 2:1  2:2 2:3 1:2 1:3 0:2 0:3  0:4 0:5 1:4 1:5 2:4 2:5  2:6 2:7 1:6 1:7 0:6 0:7  0:8 0:9 1:8 1:9 2:8 2:9"},
		{"one row", 1, 4, "0:0 0:1 0:2 0:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, err := NewEnv(Small, 1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = env.Alternate(tc.rows, func(row int) error {
				before, rounds := env.rounds(tc.n)
				if rounds != min(5, tc.n) {
					t.Errorf("row %d: %d rounds, want %d", row, rounds, min(5, tc.n))
				}
				for q := range tc.n {
					if err := before(); err != nil {
						return err
					}
					got = append(got, fmt.Sprintf("%d:%d", row, q))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Join(strings.Fields(tc.want), " "); strings.Join(got, " ") != want {
				t.Errorf("order\n%s\nwant\n%s", strings.Join(got, " "), want)
			}
			if env.alt != nil {
				t.Error("the alternation outlived Alternate")
			}
			if before, rounds := env.rounds(tc.n); before != nil || rounds != 0 {
				t.Errorf("outside Alternate: hook %v, %d rounds", before != nil, rounds)
			}
		})
	}
}

// TestEnvAlternateErrors: bad arguments, a nested call, a row that
// measures nothing, and a row that fails or panics mid-way, which stops
// the others at their next round with the failing row's error.
func TestEnvAlternateErrors(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Alternate(0, func(int) error { return nil }); !errors.Is(err, ErrBadArgument) {
		t.Errorf("no rows: %v", err)
	}
	if err := env.Alternate(1, nil); !errors.Is(err, ErrBadArgument) {
		t.Errorf("nil measure: %v", err)
	}
	var nested error
	if err := env.Alternate(1, func(int) error { nested = env.Alternate(1, func(int) error { return nil }); return nil }); err != nil || !errors.Is(nested, ErrBadArgument) {
		t.Errorf("nested: %v, inner %v", err, nested)
	}
	// Row 1 measures nothing; rows 0 and 2 run their 5 rounds.
	var ran []int
	err = env.Alternate(3, func(row int) error {
		if row == 1 {
			ran = append(ran, -1)
			return nil
		}
		before, _ := env.rounds(5)
		for range 5 {
			if err := before(); err != nil {
				return err
			}
			ran = append(ran, row)
		}
		return nil
	})
	if err != nil || fmt.Sprint(ran) != "[0 -1 2 2 0 0 2 2 0 0 2]" {
		t.Errorf("a row without a loop: %v, order %v", err, ran)
	}
	errRow := errors.New("row 1 failed")
	for _, tc := range []struct {
		name string
		fail func() error
		want func(error) bool
	}{
		{"error", func() error { return errRow }, func(err error) bool { return errors.Is(err, errRow) }},
		{"panic", func() error { panic("boom") }, func(err error) bool { return err != nil && strings.Contains(err.Error(), "row 1 panicked: boom") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stopped := map[int]error{}
			err := env.Alternate(3, func(row int) error {
				before, _ := env.rounds(10)
				for q := range 10 {
					if err := before(); err != nil {
						stopped[row] = err
						return err
					}
					if row == 1 && q == 4 { // round 2, after rows 0 and 1 ran rounds 0 and 1
						return tc.fail()
					}
				}
				return nil
			})
			if !tc.want(err) {
				t.Errorf("Alternate returned %v", err)
			}
			for _, row := range []int{0, 2} {
				if !errors.Is(stopped[row], errStopped) {
					t.Errorf("row %d: %v, want errStopped", row, stopped[row])
				}
			}
		})
	}
}

// TestRoundLatencies: the rounds' shares of the per-query times are the
// consecutive runs roundStart gives (r·n/rounds), and nothing comes out
// of times that are not one per query.
func TestRoundLatencies(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	for _, tc := range []struct {
		name      string
		times     []time.Duration
		n, rounds int
		want      string // each round's n, min and max
	}{
		{"7 in 5", ms(1, 2, 3, 4, 5, 6, 7), 7, 5, "1 1ms 1ms, 1 2ms 2ms, 2 3ms 4ms, 1 5ms 5ms, 2 6ms 7ms"},
		{"10 in 5", ms(9, 1, 8, 2, 7, 3, 6, 4, 5, 5), 10, 5, "2 1ms 9ms, 2 2ms 8ms, 2 3ms 7ms, 2 4ms 6ms, 2 5ms 5ms"},
		{"4 in 2", ms(1, 2, 3, 4), 4, 2, "2 1ms 2ms, 2 3ms 4ms"},
		{"not one per query", ms(1, 2, 3), 4, 2, ""},
		{"no rounds", ms(1, 2), 2, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range roundLatencies(tc.times, tc.n, tc.rounds) {
				got = append(got, fmt.Sprintf("%d %v %v", l.N, l.Min, l.Max))
			}
			if s := strings.Join(got, ", "); s != tc.want {
				t.Errorf("%s, want %s", s, tc.want)
			}
		})
	}
}

// TestMeasureInRounds: Measure inside Env.Alternate records each row's
// latencies per round, the rounds' queries adding up to the scale's, and
// the same whole-run figures (recall) as outside it, where it records no
// rounds.
func TestMeasureInRounds(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := env.Store(profile.Default(profile.Redis))
	if err != nil {
		t.Fatal(err)
	}
	efs := []int{10, 40}
	ms := make([]Measurement, len(efs))
	if err := env.Alternate(len(efs), func(i int) error {
		var err error
		ms[i], err = Measure(env, s.WithEf(efs[i]), fmt.Sprint(efs[i]))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		one, err := Measure(env, s.WithEf(efs[i]), "alone")
		if err != nil {
			t.Fatal(err)
		}
		if one.RoundLatency != nil || one.RoundCPU != nil || one.Recall != m.Recall {
			t.Errorf("ef %d alone: %d and %d rounds, recall %v (in rounds %v)", efs[i], len(one.RoundLatency), len(one.RoundCPU), one.Recall, m.Recall)
		}
		n := 0
		for _, l := range m.RoundLatency {
			n += l.N
		}
		if len(m.RoundLatency) != latencyRounds || n != Small.Queries {
			t.Errorf("ef %d: %d rounds of %d queries in all, want %d of %d", efs[i], len(m.RoundLatency), n, latencyRounds, Small.Queries)
		}
		if threadClock() != nil && len(m.RoundCPU) != latencyRounds {
			t.Errorf("ef %d: %d CPU rounds", efs[i], len(m.RoundCPU))
		}
	}
}
