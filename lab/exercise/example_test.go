package exercise_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/exercise"
)

// A learner's recall function, checked as notebook 00's check cell does:
// against lab/metrics on real searches of the notebook's graph. The first
// attempt reads recall position by position and is told why it is wrong.
func ExampleExercise_Check() {
	q := exercise.RecallFunc()
	byPosition := func(got []engine.Result, truth []engine.ID) float64 {
		hits := 0
		for i := range truth {
			if i < len(got) && got[i].ID == truth[i] {
				hits++
			}
		}
		return float64(hits) / float64(len(truth))
	}
	fmt.Println(q.Check(byPosition).Correct)
	anywhere := func(got []engine.Result, truth []engine.ID) float64 {
		hits := 0
		for _, t := range truth {
			for _, r := range got {
				if r.ID == t {
					hits++
					break
				}
			}
		}
		return float64(hits) / float64(len(truth))
	}
	fmt.Println(q.Check(anywhere))
	// Output:
	// false
	// RecallFunc — ✓ correct: your recall agrees with lab/metrics on all 50 searches
}
