package exercise

import (
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/lab/experiment"
)

// All returns every exercise of the course, in the notebooks' order; those
// that check against a data set run on env's, and NprobeForRecall on big,
// an IVF index over env's data (notebook 00d builds it).
func All(env *experiment.Env, big *ivf.Index) []*Exercise {
	return []*Exercise{
		SmallestEf(), RecallFunc(), LayerSizes(), // notebook 00
		ScalarCode(), RelativeError(), RescoreOversample(env), // notebook 00b
		SmallestNprobe(), ProbeFunc(), NprobeForRecall(env, big), // notebook 00d
		ADCSum(), PQCodes(), // notebook 00e
	}
}
