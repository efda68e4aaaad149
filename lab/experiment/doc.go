// Package experiment holds the articles' experiments (E01…E27, numbered in
// the order of the three articles; `veclab reproduce -list` prints the
// catalogue) as registered, runnable functions, the runner
// that executes a selection of them, and the reports they produce.
//
// An [Experiment] carries its id, its title, the article it comes from,
// the article's figures with their units ([Figure]) and a Run function
// that measures the same things on the lab's own engine and returns a
// [Report]: tables in which the article's figure stands beside the lab's
// (never in its place), charts and notes. Each experiment lives in its own
// file (e02.go, e06.go, …) and registers itself in init with register, so
// adding one never touches another's file. What several experiments share
// lives in files named for it: quantizers.go (training from lab/quantizers'
// catalogue and its flat-scan measurement, E14, E22–E24), disk.go (the disk-backed
// HNSW and IVF indexes and their measurement, E12–E15, E26, E27),
// filtered.go (the filtered collections and strategies, E03, E07, E08),
// segments.go (segmented collections, E16–E18, E20), measure.go and
// verdict.go.
//
// Every experiment also exports its steps as plain functions, so a notebook
// can run it cell by cell in the article's order, e.g. E06's
//
//	ms, err := e06.Measure(env, []int{10, 50, 200})
//	fms, err := e06.MeasureFiltered(env, []int{10, 50, 200})
//	e06.Table(env, ms, fms)
//
// # The front
//
// What is exported is what a notebook's cells, `veclab` or another package
// call: the set-up ([Notebook], [NewEnv], [Env]), the registry and runner
// ([Lookup], [Select], [Run], [Summary], [Catalogue]), each experiment's
// steps and their defaults, and the types those name. The helpers behind
// them (the verdict constructors, the shared measurement loops, the
// constants a notebook never names) are unexported, so `go doc` lists the
// entry points only. The Examples show every step a notebook calls, in
// the notebook's order; TestFrontUsed fails when an exported name has no
// user outside the package, and TestExamplesCoverNotebookCalls when a
// function a notebook calls has no Example.
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
