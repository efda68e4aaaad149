// Package metrics turns search results and timings into the figures the
// articles print: recall@k against exact truth, latency quantiles, QPS,
// mean hits, bytes per vector, and the pairing of two recall/QPS sweeps by
// achieved recall (how Elastic's DiskBBQ article compares IVF and HNSW).
//
// Everything here is a plain function of its inputs, non-generic so that a
// notebook (the gomacro interpreter) can call it.
//
// # Conventions
//
// Recall@k of one query is |top-k returned ∩ top-k true| / min(k, |truth|):
// a filtered query whose matching set holds fewer than k documents is
// scored against what exists, and a query with an empty truth scores 1.
// Quantiles use the nearest-rank method (the smallest sample with at least
// a fraction q of the samples at or below it), so p50 of an even-sized
// sample is the lower middle value and every reported quantile is a
// latency that was actually observed.
package metrics
