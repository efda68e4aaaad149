package exercise

import "github.com/veclab/veclab/lab/experiment"

// All returns every exercise of the course, in the notebooks' order; those
// that check against a data set run on env's.
func All(env *experiment.Env) []*Exercise {
	return []*Exercise{
		SmallestEf(), RecallFunc(), LayerSizes(), // notebook 00
		ScalarCode(), RelativeError(), RescoreOversample(env), // notebook 00b
	}
}
