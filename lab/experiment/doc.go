// Package experiment is the framework the articles' experiments (E01…E27,
// numbered in the order of the three articles; `veclab reproduce -list`
// prints the catalogue) run on: the environment they share ([Env],
// [Scale]), the registry and the runner ([Lookup], [Select], [Run],
// [Summary], [Catalogue]), the report, the verdict vocabulary ([Within],
// [AtLeast], [AtMost], [Holds], [FasterRounds], [Direction], [Toward])
// and the measuring loops several experiments share (a store's recall
// and latency, a filtered strategy, a quantizer's flat scan, the
// disk-backed indexes, segmented collections).
//
// Each experiment is a package of its own, lab/experiment/e01 …
// lab/experiment/e27, named for its id so a notebook reads e06.Measure
// where it read experiment.E06Measure. Every one exports the same few
// names: Default (its parameters at the article's scale), Measure, Table,
// Chart where it draws one, and Verdicts, which returns the verdicts on
// the article's claims; an experiment with more steps (E07's scan-bound
// sweep, E25's index) names them without the id. Its init registers an
// [Experiment] (id, title, the article's [Figure]s, the notebook, a Run
// function) with the framework; lab/experiment/all imports every one, so
// `veclab reproduce`, the kernel and the tests that need the whole
// registry import all. Why one package per experiment: the framework's
// `go doc` is the framework's (it was 259 lines of E##Measure, E##Table
// and constants such as E17Efs before the split), an experiment is read
// and changed in its own directory, and adding one never touches another.
// Two experiments that measure one thing are still two packages (E22–E24
// share the quantizer flat scan, which lives here as [QuantFlat]); the
// composition notebook 14 runs on real sets is lab/experiment/realsets,
// and `veclab bench segments` is lab/experiment/segbench. Mechanisms
// live in their rooms: the bulk-request codec E19 times is lab/dataset/bulk,
// the process meters (CPU time, device bytes) are lab/metrics'.
//
// # Verdicts are values
//
// A verdict constructor computes Agrees and the reason from the numbers,
// so a verdict is never typed in, and returns it: nothing is recorded as
// a side effect. An experiment's Run puts what its Verdicts returns in
// its report; a notebook cell keeps what it states with [Env.Keep], and
// its last cell lists what it kept with [Env.Verdicts]. On a real data
// set the claims end with the set's name.
//
// A verdict's band is registered before the run, from the article's own
// spread or a stated rule. A claim that states a direction (faster,
// fewer, higher) agrees only when the lab's figure has that direction:
// [Direction] judges the direction alone, and [Toward] cuts a magnitude
// verdict's band at the neutral figure (1×, 0 %), so no tolerance reaches
// across to the opposite sign. Where an article states both, an
// experiment gives two verdicts, so "the direction agrees, the magnitude
// differs" reads off two lines. Every numeric verdict prints its margin,
// how far the lab's figure is from flipping it.
//
// # The front
//
// What is exported is what a notebook's cells, `veclab`, an experiment
// package or another package call; TestFrontUsed fails when an exported
// name has no user outside the package, and TestExamplesCoverNotebookCalls
// when a function a notebook calls has no Example (here or in an
// experiment package).
//
// An [Env] carries what the experiments share: the [Scale] (the article's
// 30,000 × 384, or a small one for tests), the seed, the machine's facts,
// a Progress hook, and caches of the data set, the ground truth and the
// stores already built, so E02 and E06 do not build the same index twice.
//
// An experiment that needs a part of the engine that does not exist yet
// returns an error wrapping [ErrNotRunnable] that says what is missing;
// the runner reports it as not runnable. It never prints a placeholder
// figure.
//
// # Determinism
//
// Every random choice (data, graph levels, quantizer samples) derives from
// Env.Seed; stores are built single-threaded by default, so the same seed
// gives the same recall figures. Latencies are measured and vary.
//
// # Concurrency
//
// The registry is safe for concurrent use; registration normally happens
// in init. An Env is used by one goroutine at a time (a notebook kernel or
// the runner).
//
// The API is non-generic: notebooks call it through an interpreter that
// cannot import generic functions or types.
package experiment
