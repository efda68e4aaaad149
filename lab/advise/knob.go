package advise

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/veclab/veclab/engine"
)

// Point is one measured setting of a knob: the mean recall@k over the
// queries, its standard error, and the mean hits returned.
type Point struct {
	Value    int     `json:"value"`
	Recall   float64 `json:"recall"`
	SE       float64 `json:"se"` // standard error of the mean recall over the queries
	MeanHits float64 `json:"mean_hits"`
}

// KnobSearch is a search over one integer knob for the smallest value
// whose recall reaches Target.
//
// The search is exponential, then binary: from Start it doubles (or
// halves, when Start already reaches the target) until the target is
// bracketed between a value that misses it and one that reaches it, or
// the range ends; then it bisects the bracket down to adjacent integers.
// That takes about 2·log2(Hi/Lo) measurements instead of a grid's Hi−Lo.
//
// # Non-monotone recall
//
// Bisection assumes recall grows with the knob. For a graph search it
// does on average, but not value by value: a wider beam can trade one
// true neighbour for another, so recall(v+1) can read a little below
// recall(v). Noise here is that wobble, and the sampling error of a mean
// over a finite set of queries; Tol is how much of it is tolerated (the
// caller passes about two standard errors of the mean recall). After
// bisecting, the value found v is confirmed at v + v/4 and 2v: a reading
// below Target − Tol there means v was a lucky reading on a curve that
// has not yet reached the target for good, so the search resumes above
// that dip (doubling, then bisecting again; at most maxRounds times) and
// the dip is reported in [KnobResult.Dips]. Readings between
// Target − Tol and Target are within noise of the target and move
// nothing.
//
// # Plateaus
//
// While doubling, a recall that gains less than Tol/4 over
// plateauDoublings doublings in a row has stopped growing: the search
// stops there and reports the target unreachable (KnobResult.Plateau)
// instead of walking on to Hi, where every measurement costs the most. Values below v are not searched again: v is the smallest
// reaching value the bisection saw, and a value that reaches the target
// below a reading that misses it would be a lucky reading of its own.
type KnobSearch struct {
	Lo, Hi int     // the knob's range: Lo is the smallest value that changes the query, Hi the largest tried
	Start  int     // the first value tried (the store's default, clamped to the range)
	Target float64 // the recall to reach
	Tol    float64 // the recall difference the measurement cannot tell apart (≥ 0)
}

// maxRounds bounds how many times a search resumes above a dip.
const maxRounds = 3

// plateauDoublings is how many doublings in a row must each gain less
// than a quarter of the tolerance before the search stops climbing: a
// graph's recall that has not moved over a beam 2^plateauDoublings times
// wider will not reach the target by widening it further.
const plateauDoublings = 3

// KnobResult is what a [KnobSearch] found.
type KnobResult struct {
	// Reached says whether some value in the range reached the target;
	// Value is then the smallest found, else the largest tried (Hi, or
	// where recall stopped growing: Plateau).
	Reached bool  `json:"reached"`
	Value   int   `json:"value"`
	At      Point `json:"at"`   // the measurement at Value
	Best    Point `json:"best"` // the highest recall measured
	// Curve is every measured point, by value.
	Curve []Point `json:"curve"`
	// Plateau says the search stopped doubling below Hi because recall
	// stopped growing: plateauDoublings doublings in a row each gained
	// less than Tol/4 (a quantized index whose codes cap recall whatever
	// the beam).
	Plateau bool `json:"plateau,omitempty"`
	// Dips are measured values above a reaching one that read below
	// Target − Tol (see the type's doc).
	Dips []Point `json:"dips,omitempty"`
}

// Validate reports every bad field at once.
func (s KnobSearch) Validate() error {
	var bad []string
	if s.Lo < 1 || s.Hi < s.Lo {
		bad = append(bad, fmt.Sprintf("range %d…%d (want 1 ≤ lo ≤ hi)", s.Lo, s.Hi))
	}
	if !(s.Target > 0 && s.Target <= 1) {
		bad = append(bad, fmt.Sprintf("target %v (want 0 < target ≤ 1)", s.Target))
	}
	if !(s.Tol >= 0) || math.IsInf(s.Tol, 0) {
		bad = append(bad, fmt.Sprintf("tolerance %v (want ≥ 0)", s.Tol))
	}
	if len(bad) > 0 {
		return fmt.Errorf("advise: knob search: %v: %w", bad, engine.ErrInvalidArgument)
	}
	return nil
}

// Run searches with measure, which returns the recall at a value; a value
// is measured once. It stops with ctx's error between measurements.
func (s KnobSearch) Run(ctx context.Context, measure func(v int) (Point, error)) (KnobResult, error) {
	if err := s.Validate(); err != nil {
		return KnobResult{}, err
	}
	seen := map[int]Point{}
	at := func(v int) (Point, error) {
		if p, ok := seen[v]; ok {
			return p, nil
		}
		if err := ctx.Err(); err != nil {
			return Point{}, err
		}
		p, err := measure(v)
		if err != nil {
			return Point{}, err
		}
		p.Value = v
		seen[v] = p
		return p, nil
	}
	reaches := func(p Point) bool { return p.Recall >= s.Target }
	plateau := false
	// ascend doubles from lo (which misses) until a value reaches: the
	// bracket's top, or −1 when the range ends first.
	ascend := func(lo int) (int, int, error) {
		flat := 0 // doublings in a row that gained less than Tol/4
		for lo < s.Hi {
			w := min(lo*2, s.Hi)
			q, err := at(w)
			if err != nil {
				return lo, -1, err
			}
			if reaches(q) {
				return lo, w, nil
			}
			if q.Recall-seen[lo].Recall < s.Tol/4 {
				flat++
			} else {
				flat = 0
			}
			lo = w
			if s.Tol > 0 && flat == plateauDoublings {
				plateau = true
				return lo, -1, nil
			}
		}
		return lo, -1, nil
	}
	var dips []Point
	v := min(max(s.Start, s.Lo), s.Hi)
	p, err := at(v)
	if err != nil {
		return KnobResult{}, err
	}
	// Bracket: lo misses (or is Lo−1, "below the range"), hi reaches.
	lo, hi := s.Lo-1, -1
	if reaches(p) {
		hi = v
		for hi > s.Lo {
			w := max(hi/2, s.Lo)
			q, err := at(w)
			if err != nil {
				return KnobResult{}, err
			}
			if !reaches(q) {
				lo = w
				break
			}
			hi = w
		}
	} else if lo, hi, err = ascend(v); err != nil {
		return KnobResult{}, err
	}
	for round := 0; hi >= 0; round++ {
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			q, err := at(mid)
			if err != nil {
				return KnobResult{}, err
			}
			if reaches(q) {
				hi = mid
			} else {
				lo = mid
			}
		}
		// Confirm: recall must hold above the value found. A reading
		// below Target − Tol there is a dip the bisection jumped over
		// (or a lucky reading it landed on): search again above it.
		dip := -1
		for _, c := range []int{hi + max(1, hi/4), 2 * hi} {
			if c > s.Hi || round == maxRounds {
				continue
			}
			q, err := at(c)
			if err != nil {
				return KnobResult{}, err
			}
			if q.Recall < s.Target-s.Tol {
				dips = append(dips, q)
				dip = c
			}
		}
		if dip < 0 {
			break
		}
		if lo, hi, err = ascend(dip); err != nil {
			return KnobResult{}, err
		}
	}
	r := KnobResult{Dips: dips, Plateau: plateau}
	for _, p := range seen {
		r.Curve = append(r.Curve, p)
	}
	slices.SortFunc(r.Curve, func(a, b Point) int { return a.Value - b.Value })
	r.Best = r.Curve[0]
	for _, p := range r.Curve {
		if p.Recall > r.Best.Recall {
			r.Best = p
		}
	}
	if hi < 0 {
		r.Value, r.At = lo, seen[lo] // Hi, or where recall stopped growing
		return r, nil
	}
	r.Reached, r.Value, r.At = true, hi, seen[hi]
	return r, nil
}
