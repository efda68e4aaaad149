// Package filtered runs filtered vector search with every strategy the lab's
// articles met, each selectable per search, counted and timed: post-filter
// (pgvector, iterative_scan = off), pgvector 0.8's iterative index scan in
// relaxed and strict order, in-graph filtering (hnswlib / Lucene), Qdrant's
// cardinality planner, Redis's hybrid policy (BATCHES / ADHOC_BF and the
// switch between them), ACORN-γ and ACORN-1 (Patel et al., SIGMOD 2024,
// arXiv:2403.04871) and exact search over the matching set (the truth).
//
// A [Collection] binds a vector slab, a [filter.Store] of metadata for the
// same dense ids and an HNSW [Graph] (engine/hnsw's Index satisfies it; the
// package never writes to it). For ACORN-γ it builds its own denser graph
// ([BuildACORN]) because ACORN's construction differs from HNSW's: M·γ
// nearest candidates per node without the diversity heuristic and the
// M_β neighbour-list compression, which engine/hnsw's knobs do not express.
//
// Qdrant's "filterable HNSW" extra edges ([BuildPayloadLinks],
// [Collection.WithPayloadLinks]) are an overlay graph ([PayloadGraph]):
// an HNSW per payload block of each indexed field (a keyword value, an
// overlapping numeric range) above the full-scan threshold and below the
// percolation bound, its layer-0 links merged into the main graph's.
//
// The in-graph strategy can score with quantized codes ([Collection.WithCodes],
// an engine.CodeStore such as engine/quant's BBQ/OSQ store) and rescore the
// best Params.Rescore with float32, as Elasticsearch over a bbq_hnsw field.
//
// ACORN is predicate-agnostic: over a filter without payload indexes it
// asks each node's stored payload when the walk meets it (once per query,
// however many two-hop neighbourhoods hold it), where exact search has to
// decode every payload to know the matching set first.
//
// The strategies do not use engine/hnsw's Searcher because each changes the
// inside of the loop: pgvector records discarded candidates for the next
// batch, Qdrant drops non-matching neighbours before scoring them, ACORN
// expands two hops. They all run the engine's one layer-0 loop
// (engine/internal/beam, which engine/hnsw and engine/nested run too) with
// the package's rule for W, so a speed-up of that loop is theirs; scores
// are one row per kernel call, bit for bit the distances exact search
// computes. Every strategy counts distance computations, expanded nodes
// and payload checks ([Stats]).
//
// # Concurrency
//
// A Collection is read-only after New: searches may run concurrently, each
// with its own *filter.Compiled (Compiled.Clone) because a compiled filter
// counts the payloads it decodes.
package filtered
