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
// # Calibration
//
// The generated data has one fitted parameter, its spread, chosen so that
// the article's Redis EF_RUNTIME curve comes out on it (lab/dataset's
// doc). [Calibrate] appends the line every verdict reason and table whose
// agreement rests on that fit carries: E06's rows, E02's Redis and
// pgvector rows and its outlier order. Every other verdict on the
// generated data is a prediction the fit did not target.
//
// # Machines, seeds and load
//
// VECLAB_SIMD (engine/internal/simdenv) makes one machine stand in for
// another: off runs the pure-Go kernels, avx2 stops below AVX-512.
// TestSpeedVerdictsKernelPaths (lab/experiment/all) runs the speed
// verdicts on each path and fails when the path decides one. The verdicts
// that move with the machine, the seed or the load say why in their
// reasons (measured on 2 shared cores at load average 23 to 50):
//
//   - E19's two magnitudes are the parse saving's share of the ingest,
//     which the machine's indexing speed sets: HNSW +39 % with AVX-512,
//     +36 % with AVX2 and +16 % with the pure-Go kernels (small scale,
//     seed 1); +20 % at article scale under load against +36 to +39 %
//     quiet. Each reason gives both costs and the kernels.
//   - E21's two claims are about SIMD kernels: without them (kernels
//     generic) both differ and say the claim cannot be tested.
//   - E01's Qdrant/Redis ratio times two queue appends of about one cost
//     in wall-time rounds: 1.14× under load at article scale, so its
//     direction differs there; its reason names the rounds' spread.
//   - Rounds whose spread under load covers a speed-up (E15 cold, E18)
//     differ, as [FasterRounds] says. E17's QPS ratios are single timed
//     loops, one side after the other: at article scale under load both
//     of its QPS claims flipped between seeds (its claims say so).
//   - E07's relaxed_order recall reads 0.668 / 0.638 / 0.603 on seeds
//     1 / 2 / 3 at article scale: it differs on seed 1 by 0.007 and
//     agrees on the others, the 100-query sample's doing (its claim says
//     so; the band is not widened). E23's int4 at ×3 against raw reads
//     0.991 / 0.979 / 0.985, at the ± 0.01 band's edge (agrees on seed
//     1 only; its claim says so).
//   - The latency ratios of E02, E03, E06 and E07 are the median of 5
//     alternating rounds ([Env.Alternate]) of each row's CPU time per
//     query. At article scale under load (average 3 to 15), four runs of
//     seed 1 gave the same verdicts but for E02's qdrant p95 over redis
//     (2.27–3.14× against the band's edge, 3.09×), where measuring the
//     rows one after the other flipped five; across seeds 1–3 E07's
//     relaxed_order and strict_order p50 ratios sit at the band's top
//     (10.5–14.9× against 12.8×, 11.6–16.6× against 16.2×). Measured
//     beside the others, E06's EF_RUNTIME 10 row no longer pays for
//     being first: 50 and 200 over 10 now read 2.2–2.4× and 4.2–5.3×
//     (the walk's growth), both beyond the article's flat column's band.
//   - On the pure-Go kernels at article scale (seed 1; E08, E15, E16,
//     E17, E20, E21) only E21's two claims differ from the AVX-512 run.
//   - At the small scale (20 queries, 2,000 documents) some counted
//     verdicts move with the seed (E02's outlier order, E16's recall
//     drop, E23's correction term, E26's IVF against HNSW): each a
//     difference of a few of the 200 hits 20 queries return (E23 with
//     and without the correction: 0.850 against 0.875 on seeds 2 and 3,
//     5 hits).
//
// # Concurrency
//
// The registry is safe for concurrent use; registration normally happens
// in init. An Env is used by one goroutine at a time (a notebook kernel or
// the runner); [Env.Alternate] runs its rows on goroutines of their own,
// one at a time, handing the turn over through channels.
//
// The API is non-generic: notebooks call it through an interpreter that
// cannot import generic functions or types.
package experiment
