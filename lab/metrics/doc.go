// Package metrics turns search results and timings into the figures the
// articles print: recall@k against exact truth, latency quantiles, QPS,
// mean hits, bytes per vector, and the pairing of two recall/QPS sweeps by
// achieved recall (how Elastic's DiskBBQ article compares IVF and HNSW).
//
// [Loop] is the one measuring loop behind every speed figure of the lab
// (lab/bench, lab/experiment, lab/explore): warm-up queries, timed passes
// (per query, or per pass for a coarse clock), recall@k of the first pass,
// QPS read from the passes as [Pick] says (all, median, best pass or best
// time per query), latency quantiles, a seeded query order and a context
// that stops it between queries. Two figures measured by it are measured
// alike; a table says which Pick and how many passes. Its runs are the
// ways the lab measures: one query at a time ([Loop.Run]), several
// measured calls per query in turn, each with an untimed hook ahead of it
// for a cold cache ([Loop.RunInterleaved]), a query timed by the system
// it asks ([Loop.RunTimed]), concurrent clients sending batches
// ([Loop.RunBatch]), and, with Untimed, a recall pass that reads no clock.
//
// Everything here is non-generic so that a notebook (the gomacro
// interpreter) can call it.
//
// # Conventions
//
// Recall@k of one query is |returned top k ∩ true top k| / k
// ([RecallDefinition]; a table's column says "recall@k" via
// [RecallHeader]). When a filter leaves fewer than k matching documents the
// true top k holds only those, and k in the denominator is their number:
// the query is scored against what exists, and a query with an empty truth
// scores 1. The mean over queries is the figure. A printed figure states
// this once, with its k filled in: [RecallCaption] (lab/table prints it as
// the caption of every table whose headers name a recall@k, reading k with
// [RecallK]; a text report prints it under its table).
// Quantiles use the nearest-rank method (the smallest sample with at least
// a fraction q of the samples at or below it), so p50 of an even-sized
// sample is the lower middle value and every reported quantile is a
// latency that was actually observed.
//
// # Process meters
//
// [ProcessCPU], [ThreadCPU] and [ProcessReadBytes] read what the kernel
// accounts for this process (getrusage, clock_gettime of the thread,
// /proc/self/io's read_bytes): the CPU time a measurement costs, robust
// to the machine's other load, and the bytes that reached a block device.
// The benchmarks (lab/bench) and the experiments (lab/experiment) both
// take them from here; where the kernel gives nothing they report false
// (or 0), never a made-up figure.
package metrics
