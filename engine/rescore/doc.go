// Package rescore re-ranks approximate candidates with full-precision
// vectors: the second phase of every quantized search (Elasticsearch's
// rescore_vector with its oversample, DiskBBQ's and bbq_hnsw's rescoring of
// the top oversample·k by raw float vectors: index_options.rescore_vector in
// https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector,
// Elasticsearch 9.1).
//
// The vectors come from any engine.VectorSource: a slab in RAM ([Slab]),
// originals stored as bfloat16 at half the bytes ([BFloat16Slab],
// Elasticsearch's element_type bfloat16), or a vector file on disk
// (engine/store.File), whose reads are counted per call. Reads are issued one after the other — from a File, in ascending
// id order, 64 candidates per File.ReadVectors call — or by a bounded set
// of goroutines each issuing its own reads so several are in flight at
// once — the analogue of Elasticsearch's io_uring-backed scorer (E15).
//
// # Concurrency
//
// A [Rescorer] is safe for concurrent use; each Rescore call owns its
// scratch. The query must already be prepared as the index prepared its
// vectors (unit-normalised under Cosine).
package rescore
