// Package advise answers, on a user's own embeddings, what each store of
// the articles returns on its defaults and the smallest setting of that
// store's own query knob that reaches a target recall, with the latency,
// build time and memory there: the question "how do I pick ef for my
// data?" answered by running the data, not a formula.
//
// # What it measures
//
// [Load] reads a file or data set directory and checks it (finite
// values, one dimension, no zero vector under cosine, at least k rows);
// the queries are the file's own or a seeded sample held out of its rows
// ([dataset.HoldOut]), and which is said in the report. [Run] builds each
// store profile of lab/profile over the base rows (pgvector, Redis,
// Qdrant and Elasticsearch at the articles' versions, then Qdrant with
// its scalar (int8) and binary quantization_config and Elasticsearch's
// other index types), measures recall@k and mean hits on the defaults,
// then searches the store's own knob — pgvector hnsw.ef_search, Redis
// EF_RUNTIME, Qdrant hnsw_ef, Elasticsearch num_candidates — for the
// smallest value reaching the target ([KnobSearch]: exponential, then
// binary, with non-monotone readings handled as its doc says). Where a
// quantized index's beam alone does not reach it, the rescoring knob is
// searched next: Elasticsearch's rescore_vector.oversample, Qdrant's
// params.quantization.oversampling with rescore = true (int8's default
// returns the quantized scores). Latency
// p50/p95 is timed at the default and at the value found, one query at a
// time; bytes per vector come from the store's footprint model
// (profile.Store.Footprint) and are projected to -n vectors linearly.
//
// With a filter (a metadata column equal to a value, or a seeded subset
// of a stated selectivity) the filtered recall is measured through each
// store's own filtered strategy (profile.Store.Filtered and SearchFilter;
// Elasticsearch's SearchFiltered), and pgvector's knob is searched with
// hnsw.iterative_scan = relaxed_order, the setting its documentation
// gives for filtered queries.
//
// With a real PostgreSQL (lab/pglive) the emulated pgvector's rows get
// the real pgvector's recall at the same ef_search beside them.
//
// # Determinism
//
// Every graph is built single-threaded with the seed, the held-out
// queries are drawn with the seed: the same seed gives the same recall
// figures and the same knob values. Latencies are this machine's.
package advise
