// Package profile emulates the four vector stores of the Spring AI VectorStore article,
// pgvector 0.8, Redis (RediSearch/VecSim), Qdrant 1.x and Elasticsearch
// 9.1+, on the lab's own engine: each [Profile] is the store's defaults as
// data (HNSW parameters, insertion policy, query breadth and how it is
// derived from k, Qdrant's thresholds, Elasticsearch's index type and
// rescoring), and a [Store] built from it ingests, indexes, publishes and
// searches documents the way that store does.
//
// The defaults follow each store's own source and documentation:
//
//   - pgvector: m 16, ef_construction 64, hnsw.ef_search 40 — and the scan
//     yields at most ef_search rows, the LIMIT is not passed to the index;
//     a new element gets 2·m layer-0 links and keeps pruned candidates
//     (pgvector/pgvector v0.8.0 src/hnsw.h, src/hnswutils.c,
//     src/hnswscan.c, README.md).
//   - Redis: M 16, EF_CONSTRUCTION 200, EF_RUNTIME 10 with effective
//     ef = max(EF_RUNTIME, k); hnswlib's insertion (M links per new node)
//     (RedisAI/VectorSimilarity src/VecSim/vec_sim_common.h and
//     src/VecSim/algorithms/hnsw/hnsw.h, as in RediSearch 2.10;
//     nmslib/hnswlib v0.8.0 hnswlib/hnswalg.h).
//   - Qdrant: m 16, ef_construct 100, hnsw_ef unset → ef_construct;
//     full_scan_threshold 10,000 KB converted to a vector count by vector
//     size (a smaller segment is searched exactly), indexing_threshold
//     10,000 KB per segment, two segments (clamp(CPUs/2, 2, 8) on the
//     article's 2-vCPU machine) (qdrant/qdrant v1.19 config/config.yaml,
//     lib/segment/src/types.rs, lib/segment/src/index/hnsw_index/config.rs).
//     No quantization_config (as Spring AI creates the collection);
//     quantization=int8 or binary is the variant a user switches to:
//     each indexed segment quantized (int8 over the whole range of the
//     values, quantile not set; binary one_bit) and its graph built over
//     the codes, searched with rescore false for int8 and true for
//     binary and oversampling 1 unless the view says otherwise
//     (Store.WithRescore, Store.WithOversample; qdrant/qdrant v1.19.0
//     lib/quantization/src/encoded_vectors_u8.rs, encoded_vectors_binary.rs,
//     lib/segment/src/index/vector_index_search_common.rs).
//   - Elasticsearch: m 16, ef_construction 100, index_options.type
//     bbq_hnsw for dims ≥ 384 else int8_hnsw; num_candidates =
//     min(⌈1.5·k⌉, 10000); for bbq the rescore oversample is 3:
//     k' = ⌈k·oversample⌉, num_candidates = max(nc, k'), the graph is
//     walked with codes and the k' best are rescored with float32 vectors;
//     a cosine field's vectors are normalised at index time and handed to
//     Lucene as DOT_PRODUCT, so bbq_hnsw centres its codes on the plain
//     segment mean, not on the mean normalised to unit length that Lucene
//     gives a COSINE field (segment.Config.CosineAsDotProduct;
//     server/src/main/java/org/elasticsearch/index/codec/vectors/es818/ES818BinaryQuantizedVectorsWriter.java)
//     (Elasticsearch 9.1:
//     https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector,
//     https://www.elastic.co/docs/reference/query-languages/query-dsl/query-dsl-knn-query,
//     elastic/elasticsearch server/src/main/java/org/elasticsearch/index/mapper/vectors/DenseVectorFieldMapper.java).
//
// # Which store calls it what
//
// lab/profile owns every store rule: [Profile.WithDefaults] fills the
// stores' defaults, [Profile.Plan] resolves a query's breadth once
// (max(ef, k), num_candidates, k') and [Profile.FilterParams] the
// filtered knobs; engine/segment and engine/filtered receive the
// resolved values and hold no store's default. A parameter keeps one
// name from the notebook to the engine (the engine.Index seam calls
// the beam Breadth, its name for ef, IVF's probes and the like):
//
//	lab name                     pgvector              Redis                    Qdrant                      Elasticsearch                         engine
//	Profile.Ef → Plan.Ef         hnsw.ef_search 40     EF_RUNTIME 10,           hnsw_ef → ef_construct,     num_candidates min(⌈1.5·k⌉, 10000),   segment.Options.Ef, filtered.Params.Ef,
//	                             (not raised to k)     max(ef, k)               max(ef, k)                  raised to k'                          engine.Request.Breadth
//	Profile.EfConstruction       ef_construction 64    EF_CONSTRUCTION 200      ef_construct 100            ef_construction 100                   hnsw.Config.EfConstruction
//	Profile.M                    m 16                  M 16                     m 16                        m 16                                  hnsw.Config.M
//	Profile.Oversample →         —                     —                        —                           rescore_vector.oversample (3 for      segment.Options.Rescore,
//	Plan.Rescore (k')                                                                                       bbq_hnsw), k' = min(⌈k·os⌉, 10000)    filtered.Params.Rescore
//	Plan.Candidates              min(k, ef_search)     k                        k                           k' (k without rescoring)              segment.Options.K (Elasticsearch: k, Rescore k')
//	Profile.FullScanThresholdKB  —                     —                        full_scan_threshold_kb      —                                     filtered.Params.FullScanThreshold (vectors)
//	Profile.IndexingThresholdKB  —                     —                        indexing_threshold_kb       —                                     segment.Config.IndexingThreshold (vectors)
//	Profile.PayloadM             —                     —                        payload_m                   —                                     filtered.PayloadLinksConfig.PayloadM
//	Profile.PayloadIndex         —                     —                        create_payload_index        —                                     filter.Store.CreateIndex (Profile.Payload)
//	                                                                            field_name (none)
//	Profile.IterativeScan        hnsw.iterative_scan   —                        —                           —                                     filtered.Request.Strategy
//	→ Store.WithIterativeScan    (off)                                                                                                            (IterativeRelaxed, IterativeStrict)
//	Profile.Fetch                —                     —                        —                           stored_fields (_id beside _source)    segment.Options.Fetch
//	→ Store.WithFetch                                                                                       or docvalue_fields (lab default)      (IDsFromStored, IDsFromColumn)
//	Profile.Segments             1                     1                        default_segment_number      segments left by refresh and merges   segment.Config.Heads / ForceMerge
//	Profile.Type                 —                     —                        —                           index_options.type                    segment.Config.Encoding
//	Profile.RefreshInterval      —                     —                        —                           index.refresh_interval                segment.Collection.Refresh
//	Profile.FilterHeuristic      —                     —                        —                           hnsw_filter_heuristic                 segment.Options.FilteredSearchThreshold
//	Profile.EarlyTermination     —                     —                        —                           hnsw_enable_early_termination         segment.Options.Patience
//
// docs/parameters.md holds the same table; TestStoreRules states each
// rule once with its source.
//
// A profile prints and parses ([Profile.String], [Parse]) and describes
// itself the way the live service shows its index ([Profile.Describe]).
// Query-time settings are overridden per view ([Store.WithEf],
// [Store.WithOversample], [Store.WithIterativeScan], [Store.WithFetch])
// without rebuilding. A view is validated on the
// way in, as Open validates a profile: a value out of the store's own
// range (and a search's k out of it) makes every verb answer a
// [KnobError] in the learner's terms: the call as written, the store's
// name for the setting, the value, the allowed range, and the store's
// rule with the source file and version it comes from (knob.go holds
// the rules, TestKnobErrors covers every knob of every store).
//
// # On engine/segment
//
// Every store is a configuration of one engine/segment collection (on an
// in-memory file system): pgvector is the OnAdd visibility (one graph
// growing in place, pgvector's insertion policy), Redis the Queued one (a
// background indexer, 64 documents at a time), Qdrant the Plain one with
// default_segment_number appendable segments: a batch goes to the
// smallest, which is searched exactly until it passes
// indexing_threshold; the indexing optimizer then builds its graph and a
// new appendable segment takes the next points, and
// [Store.WaitSearchable] runs the merge optimizer down to
// default_segment_number segments (rebuilding the merged graphs).
// Elasticsearch is the OnRefresh one with quantized segments (bbq_hnsw →
// segment.BBQ; int8_hnsw → segment.Int8OSQ, Elasticsearch 9.4+'s 7-bit
// optimized scalar quantization (ES94HnswScalarQuantizedVectorsFormat
// over Lucene 10.4's Lucene104ScalarQuantizedVectorsFormat SEVEN_BIT),
// or segment.Int8, Lucene 9.9's scalar quantizer, for a profile whose
// Version is below 9.4; int4_hnsw → segment.Int4OSQ, PACKED_NIBBLE, or
// segment.Int4 below 9.4): a
// refresh every refresh_interval of ingest at the article's rate
// ([ESIngestRate]) seals the buffer into a segment whose quantizer is
// trained on it and whose graph is built with float32 scores;
// [Store.WaitSearchable] refreshes, and force-merges down to
// Profile.Segments only when there are more: by default ten
// ([ESSegments]), the segments the article's 9.9 s load at
// refresh_interval 1s leaves and TieredMergePolicy keeps (ten per tier);
// Segments = 1 is the force-merged variant, whose merge retrains the
// quantizer on all the documents (bbq: the flushed segments' centroids
// weighted by size) and builds the graph with the codes' scores, as
// Lucene's merges do. The segments are searched as Lucene 10.3+ searches
// several (Elasticsearch 9.2+): each for its pro-rata share of
// num_candidates, then the segments whose every hit reached the merged
// top k (k' when rescoring) again, seeded with their hits, for
// num_candidates (engine/segment Options.Optimistic); the candidates
// are merged by quantized score to k' before rescoring. Every one of
// these walks ends early as 9.3+ indices do by default
// (index.dense_vector.hnsw_enable_early_termination,
// AdaptiveHnswQueueSaturationCollector: engine/segment Options.Patience)
// once candidates stop entering the segment's top.
//
// # Known simplifications
//
// Elasticsearch builds a segment's graph when the refresh seals it, not
// document by document on the indexing thread as Lucene does, so its
// acknowledgements carry the flushes' graph builds in lumps. Refreshes
// count documents, not the lab's clock (see [ESIngestRate]). Qdrant's
// full_scan_threshold is applied through indexing_threshold only: a
// segment under it is plain and scanned exactly, an indexed one (at
// least indexing_threshold points) is walked even when
// full_scan_threshold is set higher. Every store builds its graph with
// Profile.Workers goroutines (1 by default, so the same seed gives the
// same graph).
//
// # Concurrency
//
// See [Store]. A Profile is a plain value.
//
// The API is non-generic so notebooks can call it through the interpreter.
package profile
