// Package flat is exact nearest-neighbour search: every stored vector is
// scored against the query and a bounded heap keeps the k nearest. It is the
// oracle behind every recall figure in veclab and the floor every index is
// compared with for speed.
//
// # Invariants
//
// Results come in increasing distance order with ties broken by increasing
// id, whatever the number of workers, so two runs (and a serial and a
// parallel run) return identical slices. Distances follow engine's
// smaller-is-closer convention: 1 − cos for [engine.Cosine] (computed with
// the precomputed inverse norm of every row, so the slab need not be
// normalised), −⟨q, x⟩ for [engine.Dot] and squared Euclidean distance for
// [engine.L2]. A search for k greater than the number of eligible rows
// returns all of them.
//
// # Concurrency
//
// An [Index] is read-only after [New]: any number of goroutines may search it
// at once. The caller must not modify the matrix while the index is in use.
// With Config.Workers > 1 a single search splits the rows into contiguous
// ranges, one goroutine each, and merges their heaps; [Index.SearchBatch]
// instead runs whole queries in parallel, which is how ground truth is
// computed.
package flat
