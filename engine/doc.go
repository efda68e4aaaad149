// Package engine holds the types every part of veclab's vector engine shares:
// dense document ids, metrics, search results, the allow-list filter, the
// vector-source interface and the sentinel errors callers branch on.
//
// # One search call
//
// Every index answers one call, [Index].Query(q, [Request]), as every
// faiss::Index answers search(…, SearchParameters*): the Request carries
// k, the breadth knob (ef, nprobe), the allow-list, a bound shared across
// segments, layer-0 seeds, patience, and in Params what only one index
// understands (hnsw.Lucene, hnsw.Rescore). [Request.Validate] checks it in
// one place and names the field ([ArgError]); [QueryBatch] runs many
// queries on all cores; [RescoreDepth] is the one k′ = ⌈oversample·k⌉.
//
// The engine knows nothing of experiments, Jupyter or browsers. Its tree:
//
//   - [github.com/veclab/veclab/engine/vec]: flat float32 slabs and checked distances
//   - engine/internal/f32: the trusted SIMD kernels and their pure-Go twins
//   - engine/internal/topk: bounded heaps and epoch visited sets
//   - engine/flat: exact search, the oracle of every recall figure
//   - engine/hnsw: the HNSW graph (Malkov & Yashunin)
//   - engine/ivf, engine/quant, engine/store, engine/rescore: compression and disk
//   - engine/filter: metadata, stored fields, payload indexes and the filter language
//   - engine/filtered: every filtered-search strategy (post-filter, pgvector's
//     iterative scan, in-graph, Qdrant's planner, Redis's hybrid policy, ACORN)
//   - engine/nested: several vectors per parent document (k nearest parents)
//   - engine/vfs, engine/internal/blockfile: the file-system seam and file framing
//   - engine/internal/kmeans, engine/internal/bitsx: k-means and kernels on codes
//   - engine/indextest: the conformance suite every index passes against flat
//
// # Distances
//
// Every index reports a distance where smaller is closer, whatever the metric:
// squared Euclidean distance for [L2], 1 − cos for [Cosine] (vectors are
// normalised once at insert, the query once per search) and −⟨a,b⟩ for [Dot].
package engine
