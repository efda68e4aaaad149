// Package exercise holds the course's self-checking exercises: a notebook
// asks a question, the learner answers in a cell of Go (a value assigned to
// a named variable, or a func), and the next cell makes one call,
//
//	q1 := exercise.SmallestEf()
//	q1.Check(smallestEf)
//
// that shows right, or wrong with what the lab measured for that answer and
// a hint that points at the idea without giving the answer away, as Kaggle
// Learn's "check your answer" cells do. q1.Hint() shows the hint alone and
// q1.Solution() the solution's code.
//
// # Checks recompute
//
// No answer is compared with a stored string or number. Every check runs the
// learner's value or code against the lab: the graph of notebook 00 is
// rebuilt by lab/picture on engine/hnsw and searched, a learner's recall
// function is fed real search results and compared with lab/metrics, a
// scalar code is decoded beside engine/quant's, an oversample is re-ranked
// by lab/experiment's code rankings, an nprobe is searched on engine/ivf;
// in the article notebooks a code size is read off a trained quantizer, a
// save goes through vfs.WatermarkFS on a simulated disk, a graph's bytes
// come from engine/hnsw, documents from nested.Index.ExactParents, and a
// visit or oversample is measured by lab/measure on the notebook's own
// IVF index and vector file, and in notebook 14 each data set the notebook
// opened is ranked by the quantizers' codes again. Exercises whose answer is the smallest value
// reaching a target are checked at the answer and one below it, so a value
// that reaches the target with more work than needed is wrong too.
// A check is then right for the seed and scale the notebook ran at, and
// stays right when the engine changes what the answer is.
//
// # Every exercise is tested
//
// All lists the course's 27, in the notebooks' order, on the Fixtures each
// notebook builds. Each constructor registers a solution (the compiled twin of the code
// Solution shows) and one wrong answer; the package's test feeds every
// exercise both: the solution must pass, the wrong answer must fail with the
// exercise's hint.
//
// # Rendering and the interpreter
//
// A [Result], a [Note] and an [Exercise] render by method set (String,
// Markdown, HTML), so the kernel and the browser show them without this
// package importing either. The API is non-generic, and answers arrive as
// any: gomacro passes an interpreted func to compiled code as a real Go func
// of its declared type, so a func answer is type-asserted like any other. A
// learner's func that panics is a wrong answer, reported; no panic escapes.
package exercise
