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
// # Speed
//
// Exact search is bound by memory: it must read every row once. The serial
// scan hands 256-row blocks to the slab kernels (engine/internal/f32.DotRows
// / L2SqRows: four rows per pass over the query, prefetching ahead, each
// distance bit-identical to the four-row kernel's, so a row scores the same
// through every path) and compares each distance with the k-th best, held
// in a register, before touching the heap. BenchmarkFloor and `veclab bench
// flat` time one search against one pass streaming the slab ([Stream]),
// interleaved. [Index.SearchBatch] goes further for many queries: blocks of
// 32 queries share one pass over the slab, each 16-row chunk being scored
// against all of them while it sits in L1, and the blocks run on Workers
// goroutines (engine/internal/batch); `veclab bench batch` compares it with
// FAISS's IndexFlat batch search.
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
