package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/veclab/veclab/lab/metrics"
)

// Clock is what the rounds of a speed comparison time.
type Clock int

const (
	// WallTime is elapsed time: what waits on a device, or sleeps in a
	// simulated one, shows in it, and so does every other job on the
	// machine.
	WallTime Clock = iota
	// CPUTime is the process's CPU time (user + system, all threads):
	// what a server kept busy by a load generator pays per query. Another
	// job's load on the machine takes wall time from the process, not CPU
	// time. Where it cannot be read (a browser tab) rounds fall back to
	// wall time and say so.
	CPUTime
)

// String names the clock as a reason prints it.
func (c Clock) String() string {
	if c == CPUTime {
		return "CPU time"
	}
	return "wall time"
}

// usable returns c, or WallTime where the process's CPU time cannot be
// read.
func (c Clock) Usable() Clock {
	if _, ok := metrics.ProcessCPU(); c == CPUTime && !ok {
		return WallTime
	}
	return c
}

// read returns the clock's current reading.
func (c Clock) Read() time.Duration {
	if c == CPUTime {
		if d, ok := metrics.ProcessCPU(); ok {
			return d
		}
	}
	return time.Since(clockEpoch)
}

// clockEpoch is where WallTime's readings start (monotonic).
var clockEpoch = time.Now()

// timed returns fn's cost on the clock.
func (c Clock) Timed(fn func() error) (time.Duration, error) {
	t0 := c.Read()
	err := fn()
	return c.Read() - t0, err
}

// Rounds is a speed ratio measured in alternating rounds: each round
// times side a and side b back to back, a first in even rounds and b
// first in odd ones, so a load that comes and goes on a shared machine
// falls on both sides alike. Each round's ratio is b's cost over a's (how
// many times as fast a is); the median round is the figure, and
// [FasterRounds] judges a speed-up on the rounds' lower quartile. A
// magnitude is judged on the median against its registered band
// ([Within]), which the rounds' spread does not widen: the spread of a
// noisy run would let any figure agree.
type Rounds struct {
	Clock  Clock
	Ratios []float64          // one per round, in the order run
	Costs  [][2]time.Duration // a's and b's cost in each round, where known
}

// medianCosts returns the median round's cost of a and of b (0 where the
// costs are not known).
func (r Rounds) MedianCosts() (a, b time.Duration) {
	if len(r.Costs) == 0 {
		return 0, 0
	}
	as, bs := make([]time.Duration, len(r.Costs)), make([]time.Duration, len(r.Costs))
	for i, c := range r.Costs {
		as[i], bs[i] = c[0], c[1]
	}
	slices.Sort(as)
	slices.Sort(bs)
	return as[len(as)/2], bs[len(bs)/2]
}

// median returns the median round's ratio (NaN without rounds).
func (r Rounds) Median() float64 {
	if len(r.Ratios) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), r.Ratios...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// spread returns how far the farthest round lies from the median (0
// without rounds).
func (r Rounds) spread() float64 {
	m, d := r.Median(), 0.0
	for _, x := range r.Ratios {
		d = math.Max(d, math.Abs(x-m))
	}
	return d
}

func (r Rounds) span() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range r.Ratios {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// String prints the median and the rounds, e.g. "0.78× (median of 5
// alternating rounds of CPU time, 0.74–0.81×)".
func (r Rounds) String() string {
	if len(r.Ratios) == 0 {
		return "not measured"
	}
	lo, hi := r.span()
	return fmt.Sprintf("%.2f× (median of %d alternating rounds of %s, %.2f–%.2f×)", r.Median(), len(r.Ratios), r.Clock, lo, hi)
}

// Alternate runs n rounds of a and b in [roundOrder] (a first in even
// rounds, b first in odd ones); each returns its own cost, so it can
// leave untimed steps (a cache eviction) out. The ratio of a round is b's
// cost over a's.
func Alternate(n int, clock Clock, a, b func() (time.Duration, error)) (Rounds, error) {
	r := Rounds{Clock: clock.Usable()}
	sides := [2]func() (time.Duration, error){a, b}
	for i := range max(n, 1) {
		var cost [2]time.Duration
		for _, s := range roundOrder(i, 2) {
			c, err := sides[s]()
			if err != nil {
				return r, err
			}
			cost[s] = c
		}
		ca, cb := cost[0], cost[1]
		if ca <= 0 || cb <= 0 {
			return r, fmt.Errorf("experiment: round %d cost %v and %v on the %s clock: %w", i, ca, cb, r.Clock, ErrBadArgument)
		}
		r.Ratios = append(r.Ratios, float64(cb)/float64(ca))
		r.Costs = append(r.Costs, [2]time.Duration{ca, cb})
	}
	return r, nil
}

// below returns how far the slowest round lies under the median (0
// without rounds): the side of the spread that could undo a speed-up.
func (r Rounds) below() float64 {
	lo, _ := r.span()
	if len(r.Ratios) == 0 {
		return 0
	}
	return r.Median() - lo
}

// lowerQuartile returns the rounds' lower quartile, by nearest rank: the
// ratio at or below which a quarter of the rounds lie (of 5 rounds the
// second slowest, of 3 the slowest); NaN without rounds.
func (r Rounds) lowerQuartile() float64 {
	if len(r.Ratios) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), r.Ratios...)
	sort.Float64s(s)
	return s[(len(s)-1)/4]
}

// FasterRounds is the verdict on a claim that side a is faster than side b, from a
// ratio measured in alternating rounds: it agrees when the rounds' lower
// quartile exceeds 1 by more than noise (the run-to-run noise the caller
// states and justifies), i.e. when three rounds in four are faster by
// more than the noise. The bar stands on the quartile, not on the median
// or the slowest round: the rounds' spread down to the quartile is
// covered, and one round that another job slowed (of 5, the slowest)
// cannot decide it either way, as it could when the slowest round set
// the bar: a cold comparison measured 1.75× on a quiet machine and
// differed, 1.81× on a loaded one and agreed. ifAgrees and ifDiffers are
// the reasons' causes (a measured one, or "not yet explained").
func FasterRounds(id, claim, article string, r Rounds, noise float64, ifAgrees, ifDiffers string) Verdict {
	m, q := r.Median(), r.lowerQuartile()
	bar := 1 + noise
	v := Verdict{ID: id, Claim: claim, Article: fmt.Sprintf("%s (> %s)", article, FmtFig(bar, "×")), Lab: r.String(), Direction: "> " + FmtFig(bar, "×")}
	v.judge(math.NaN(), q, bar, math.Inf(1), true, false, "×")
	faster := 0
	for _, x := range r.Ratios {
		if x > bar {
			faster++
		}
	}
	switch {
	case math.IsNaN(m):
		v.Reason = "the lab did not measure it"
		return v
	case v.Agrees:
		v.Reason = fmt.Sprintf("faster by more than the noise in %d of %d rounds: their lower quartile %s > %s", faster, len(r.Ratios), FmtFig(q, "×"), FmtFig(bar, "×"))
	default:
		v.Reason = fmt.Sprintf("faster by more than the noise in only %d of %d rounds: their lower quartile %s ≤ %s", faster, len(r.Ratios), FmtFig(q, "×"), FmtFig(bar, "×"))
	}
	v.Reason += fmt.Sprintf("; the rounds' spread from the median down to that quartile, %s, is covered", FmtFig(m-q, "×"))
	return Because(v, Why(v.Agrees, ifAgrees, ifDiffers))
}

// roundOrder is the order the sides of round i run in: 0, 1, …, n−1 in
// even rounds and the reverse in odd ones, so that over two rounds every
// side runs as often early as late and a load that comes and goes falls
// on each alike. [Alternate] runs its two sides in it and [Env.Alternate]
// its rows.
func roundOrder(i, n int) []int {
	o := make([]int, n)
	for j := range o {
		o[j] = j
		if i%2 == 1 {
			o[j] = n - 1 - j
		}
	}
	return o
}

// latencyRounds is how many rounds [Env.Alternate] splits each row's
// queries into: 5, the rounds `veclab bench hnsw -rounds` defaults to
// and an odd count, so the median is one round's ratio and two rounds
// that a burst of load slowed on one side cannot move it; at the
// article's 100 queries a round is 20 queries per row, enough for a p50
// of the same 20 queries on every row.
const latencyRounds = 5

// Alternate measures rows (measure(0) … measure(rows−1), each building
// or choosing its row and calling one of the measuring loops — Measure,
// MeasureProfile, MeasureFiltered, MeasureStrategy, MeasureAgainst)
// in alternating rounds: each loop's queries are split into 5 rounds
// (latencyRounds) of consecutive queries, and round i runs every row's
// share in [roundOrder] (forward in even rounds, backward in odd ones),
// the warm-up before a row's first round. The rows of one comparison are
// thus measured side by side, so a burst of load or cache contention
// falls on all of them rather than on whichever row ran at the time, and
// each Measurement records its latencies per round (RoundLatency,
// RoundCPU): a latency ratio is the median of its per-round ratios.
//
// Each measure runs on its own goroutine, one at a time (a row waits for
// its turn between rounds, so the rows need no locking); the total
// number of queries is the same as measuring the rows one after the
// other. A row that calls no measuring loop runs once, in its first
// turn; one that calls several runs their rounds in its turns, and what
// is left after the fifth round runs in row order. The first error (or
// panic) stops the rest: every other row's loop returns at its next
// round and Alternate returns that error.
func (e *Env) Alternate(rows int, measure func(row int) error) error {
	switch {
	case rows < 1 || measure == nil:
		return fmt.Errorf("experiment: Alternate: %d rows, measure set %t (want ≥ 1 row and a measure): %w", rows, measure != nil, ErrBadArgument)
	case e.alt != nil:
		return fmt.Errorf("experiment: Alternate: called inside another Alternate's row: %w", ErrBadArgument)
	}
	a := &alternation{wake: make([]chan struct{}, rows), back: make(chan error)}
	for i := range a.wake {
		a.wake[i] = make(chan struct{})
	}
	e.alt = a
	defer func() { e.alt = nil }()
	started, done := make([]bool, rows), make([]bool, rows)
	var first error
	turn := func(i int) {
		a.cur = i
		if started[i] {
			a.wake[i] <- struct{}{}
		} else {
			started[i] = true
			go a.run(i, measure)
		}
		err := <-a.back
		if a.returned {
			done[i] = true
			if err != nil && first == nil {
				first, a.stopped = err, true
			}
		}
	}
	for r := 0; r < latencyRounds && !a.stopped; r++ {
		for _, i := range roundOrder(r, rows) {
			if !done[i] && !a.stopped {
				turn(i)
			}
		}
	}
	for i := range rows { // rows left waiting: stopped, or more than one loop
		for started[i] && !done[i] {
			turn(i)
		}
	}
	return first
}

// alternation is the hand-over of the turn between [Env.Alternate]'s
// rows: one row's goroutine runs at a time, and a measuring loop gives
// the turn back between its rounds (pause). Every field is written by the
// goroutine that holds the turn, before it hands the turn over through a
// channel.
type alternation struct {
	wake     []chan struct{} // row i's turn comes again
	back     chan error      // the turn comes back: a row paused or returned (returned set)
	cur      int             // the row that holds the turn
	returned bool            // the row that gave the turn back returned (its error on back)
	stopped  bool            // a row failed: paused rows' loops return errStopped
}

// errStopped is what a paused row's loop returns once another row failed.
var errStopped = errors.New("experiment: alternating rounds stopped by another row's error")

// run is row i's goroutine: measure(i), a panic turned into an error.
func (a *alternation) run(i int, measure func(int) error) {
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("experiment: Alternate: row %d panicked: %v", i, r)
			}
		}()
		return measure(i)
	}()
	a.returned = true
	a.back <- err
}

// pause gives the turn back between two rounds of the calling row's
// loop and waits for its next turn.
func (a *alternation) pause() error {
	i := a.cur
	a.returned = false
	a.back <- nil
	<-a.wake[i]
	if a.stopped {
		return errStopped
	}
	return nil
}

// rounds returns, for a measuring loop over n queries, the Before hook
// that pauses it between its rounds when it runs inside [Env.Alternate]
// (nil outside one), and the rounds it splits into (0 outside one).
// Queries must run once each, in order (one pass, no seeded order), and
// the hook is called before each of them.
func (e *Env) rounds(n int) (before func() error, rounds int) {
	a := e.alt
	if a == nil || n < 1 {
		return nil, 0
	}
	rounds = min(latencyRounds, n)
	q, r := 0, 1
	return func() error {
		if r < rounds && q == roundStart(r, n, rounds) {
			r++
			if err := a.pause(); err != nil {
				return err
			}
		}
		q++
		return nil
	}, rounds
}

// roundStart is the first of n queries in round r of rounds: rounds of
// consecutive queries, as even as n allows.
func roundStart(r, n, rounds int) int { return r * n / rounds }

// roundLatencies summarises times, one per query in the order run, per
// round (nil when rounds < 1 or the times are not one per query).
func roundLatencies(times []time.Duration, n, rounds int) []metrics.Latency {
	if rounds < 1 || len(times) != n {
		return nil
	}
	out := make([]metrics.Latency, rounds)
	for r := range out {
		out[r] = metrics.Summarize(times[roundStart(r, n, rounds):roundStart(r+1, n, rounds)])
	}
	return out
}
