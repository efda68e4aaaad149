package exercise

import (
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
)

// Fixtures are what the notebooks build and their exercises check against:
// the environment (its data set and exact answers) and each notebook's own
// index, named as the notebook's cells name them.
type Fixtures struct {
	Env *experiment.Env // every notebook's env
	Big *ivf.Index      // notebook 00d's big: an IVF index over Env's data

	Base *vec.Matrix // notebook 06's ds.Base: the vectors the stores keep

	Nested  *nested.Index    // notebook 09's x: passages bound to their documents
	Parents *measure.Queries // notebook 09's parents: the exact nearest documents

	IVF      *ivf.Index        // notebook 12's iv: DiskBBQ's 2-bit lists
	Rescorer *rescore.Rescorer // notebook 12's rsLocal: the vector file's rescorer
	Q100     *measure.Queries  // notebook 12's q100: the exact top 100

	Real *experiment.RealSets // notebook 14's sets: the generated set and the real ones opened
}

// All returns every exercise of the course, in the notebooks' order, each
// on the fixtures its notebook builds.
func All(f Fixtures) []*Exercise {
	var queries *vec.Matrix
	k := 0
	if f.Parents != nil {
		queries, k = f.Parents.Vectors, f.Parents.K
	}
	return []*Exercise{
		SmallestEf(), RecallFunc(), LayerSizes(), // notebook 00
		ScalarCode(), RelativeError(), RescoreOversample(f.Env), // notebook 00b
		SmallestNprobe(), ProbeFunc(), NprobeForRecall(f.Env, f.Big), // notebook 00d
		ADCSum(), PQCodes(), // notebook 00e
		Int8Bytes(), DiskHeadroom(f.Base), GraphBytes(), // notebook 06
		DocsFromPassages(), PassagesForK(f.Nested, queries, k), ParentEf(f.Nested, f.Parents), // notebook 09
		CodeBytes(), Int4Oversample(f.Env), CorrectionReads(f.Env), // notebook 11
		ListsForVisit(f.IVF, f.Q100), RescoreReads(f.IVF, f.Rescorer, f.Q100), // notebook 12
		VisitForRecall(f.IVF, f.Rescorer, f.Q100), OversampleAtVisit(f.IVF, f.Rescorer, f.Q100),
		GloveBBQOversample(f.Real), CorrectionMatters(f.Real), BBQAtDefault(f.Real), // notebook 14
	}
}
