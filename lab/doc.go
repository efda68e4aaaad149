// Package lab is veclab's laboratory: everything that turns the engine into
// the experiments of the three articles, and nothing that knows about
// Jupyter or browsers.
//
// An experiment follows one data path:
//
//	dataset (generated, or read from .fvecs)   lab/dataset
//	  → truth (exact search, engine/flat)       lab/dataset.Truth
//	  → a store profile builds an index          lab/profile
//	  → queries with a filter, a k, a breadth    lab/measure (Exact, Where,
//	  → results + per-query statistics            Store, Index, SweepEf, …),
//	                                              lab/experiment
//	  → metrics (recall, latency, QPS, hits)     lab/metrics
//	    timed by one loop (metrics.Loop) in
//	    every bench, experiment and the explorer
//	  → a table / chart with the article's       lab/table, lab/chart
//	    figure beside the lab's; a recall@k
//	    column brings metrics' definition as
//	    the table's caption
//
// # Design rules
//
//   - lab imports engine and never kernel, wasm or cmd (a layering test in
//     internal/layering enforces it).
//   - The notebook-facing API is non-generic: notebooks reach it through the
//     gomacro interpreter, which cannot import generic functions or types.
//   - Everything random takes a seed; the same seed gives the same numbers.
//   - Heavy work is compiled Go called from a notebook cell; an interpreted
//     inner loop is a bug.
//   - Results render themselves through method sets (String, Markdown, HTML,
//     SVG) so the kernel and the browser page can show them without lab
//     importing either.
//   - lab/explore is the explorer page's computing side (wasm/explorer is
//     its browser glue only); it runs natively too, under its tests.
//   - An article's figure is quoted, never computed: it sits in its own
//     column beside the lab's measurement.
package lab
