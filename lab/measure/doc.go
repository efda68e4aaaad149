// Package measure is the lab's measuring vocabulary: the few verbs a
// notebook cell reads aloud to measure a store or an index against exact
// search, one step per cell.
//
//	queries, err := measure.Exact(ds, 10, engine.Cosine)           // exact top-10 of every query
//	redis, err := profile.Default(profile.Redis).Build(ds.Base, …)  // a store on its defaults, loaded
//	r, err := measure.Store(redis.WithEf(50), queries)              // recall@10, p50/p95, hits, bytes/vector
//	sweep, err := measure.SweepEf(redis, []int{10, 50, 200}, queries)
//	t, err := measure.Beside("E06", sweep, article)                 // the article's figures beside the lab's
//
// The data comes from lab/dataset, the stores from lab/profile (a
// [profile.Store] and its views, [profile.Store.WithEf] and
// [profile.Store.WithOversample], each validated on the way in), the
// indexes from the engine (any [engine.Index], with explicit
// parameters). This package adds what turns them into figures:
//
//   - [Queries]: the query vectors, k, and their exact answers (engine/flat
//     through [dataset.ComputeTruth]); [Queries.Where] restricts them to the
//     documents a filter matches, with the filtered exact answers.
//   - [Store] and [Index]: run the queries once after a warm-up through the
//     lab's one timed loop ([metrics.Loop]) and score them
//     ([metrics.RecallDefinition]): a [Result].
//   - [SweepEf] and [SweepOversample]: one Result per setting of a knob, on
//     one built store (query-time knobs need no rebuild).
//   - [Rescored]: the same loop on a graph walked with its codes whose
//     ⌈oversample·k⌉ candidates are rescored from a vector file
//     (engine/rescore over engine/store), warm or evicted before every query:
//     a [Rescoring], with the reads, device reads and pages per query.
//   - [Footprint]: what a built store holds, measured from the lab's
//     structures (vectors, links, codes) and the metadata's (stored fields,
//     payload indexes): [Sizes], with the resident bytes per vector.
//   - [Beside]: a [table.Table] with the article's figure in one column and
//     the lab's beside it, row by row; chart.Compare draws it.
//   - [Disk], for an index whose originals are on disk (ondisk.go): a
//     search ([IVFDisk], [HNSWDisk]) rescoring from a vector file, measured
//     warm (median of [DiskRepeats] passes) or cold ([Evict] before every
//     query), with the reads and pages the device served: a [DiskResult];
//     [SweepVisit] and [SweepEfDisk] sweep each index's query-time knob,
//     [Queries.First] keeps fewer queries for a simulated device, and
//     [DiskTable] tabulates the results.
//   - [SweepRescore] and [BesideCodes]: an index of codes (a quant.Store)
//     searched for ⌈o·k⌉ candidates and rescored from the float32 vectors,
//     once per oversample, and the quantizers tabulated with the articles'
//     compression beside the lab's (E22–E24).
//   - [ExactParents]: the exact k nearest documents of a nested index
//     (passages of one document, E25), so that [Index] on it, or on its
//     nested.Naive view, measures parent recall.
//   - [Ingest]: a store of a profile opened and loaded in batches, timed
//     until the last batch is acknowledged and until the store reports
//     itself searchable, with what a search saw in between ([AtOnce]: every
//     query once, untimed, on the store as it stands); [BesideIngest] puts
//     the article's seconds and docs/s beside the lab's.
//
// # Why a package of its own
//
// lab/metrics is the arithmetic under every figure (recall@k, quantiles,
// the timed loop) and imports only the engine; lab/table imports it to
// caption recall columns. The verbs here need a store (lab/profile),
// a data set (lab/dataset) and a table (lab/table): in lab/metrics they
// would point its imports up and close a cycle with lab/table. They do no
// arithmetic of their own: recall, hits, quantiles and the loop are
// lab/metrics', the exact answers lab/dataset's, the store's plan and
// footprint lab/profile's. lab/experiment's runners, which predate this
// package, are their first callers to move onto it.
//
// # Conventions
//
// Everything is non-generic (notebook cells run on the gomacro
// interpreter, which cannot call generic code), every error names what
// was asked in the caller's terms, and the same seed gives the same
// figures but for the timings: latencies are one timed pass of the
// queries, single-threaded, as the articles measured them.
package measure
