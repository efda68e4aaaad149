package exercise

import "fmt"

// smallestSpec is an exercise whose answer is the smallest whole number x
// in [lo, hi] at which a measurement reaches a target. reaches runs the lab
// at x (ok: the target is met; what: the measured figure, in words). The
// check measures the answer and one fewer, so "smallest" is what the lab
// says it is for the notebook's data, and any x that reaches the target but
// is not the first is wrong for doing more work than needed.
type smallestSpec struct {
	name, question, hint, solution string
	what                           string // the quantity's name in the verdict: "nprobe", "ef", "oversample"
	lo, hi                         int
	reaches                        func(x int) (ok bool, measured string, err error)
	wrong                          int
}

func smallest(s smallestSpec) *Exercise {
	return &Exercise{
		Name: s.name, Question: s.question, hint: s.hint, solution: s.solution,
		check: func(answer any) (bool, string, error) {
			x, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			if x < s.lo || x > s.hi {
				return false, fmt.Sprintf("%s = %d: the answer lies from %d to %d", s.what, x, s.lo, s.hi), nil
			}
			ok, at, err := s.reaches(x)
			if err != nil {
				return false, "", err
			}
			if !ok {
				return false, fmt.Sprintf("at %s = %d %s: not enough", s.what, x, at), nil
			}
			if x == s.lo {
				return true, fmt.Sprintf("already at %s = %d %s", s.what, x, at), nil
			}
			okBelow, below, err := s.reaches(x - 1)
			if err != nil {
				return false, "", err
			}
			if okBelow {
				return false, fmt.Sprintf("%s = %d is enough (%s), but so is %d (%s): the lab did more work than needed", s.what, x, at, x-1, below), nil
			}
			return true, fmt.Sprintf("at %s = %d %s; at %d %s", s.what, x, at, x-1, below), nil
		},
		right: func() (any, error) {
			for x := s.lo; x <= s.hi; x++ {
				ok, _, err := s.reaches(x)
				if err != nil {
					return nil, err
				}
				if ok {
					return x, nil
				}
			}
			return nil, fmt.Errorf("%s: nothing from %d to %d reaches the target", s.name, s.lo, s.hi)
		},
		wrong: s.wrong,
	}
}
