package profile

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/veclab/veclab/engine/filtered"
)

// TestStoreRules states every store rule the lab emulates once, against
// the store's documented default, with the source and version it comes
// from. lab/profile is the one owner of these rules: engine/segment and
// engine/filtered receive the resolved values (Plan, FilterParams) and
// hold none of them, so a rule that changes changes here and in
// profile.go only.
func TestStoreRules(t *testing.T) {
	pg, redis, qd, es := Default(PGVector), Default(Redis), Default(Qdrant), Default(Elasticsearch)
	with := func(p Profile, f func(*Profile)) Profile { f(&p); return p }
	const dim, k = 384, 10
	tests := []struct {
		store  Kind
		rule   string
		source string
		got    any
		want   any
	}{
		// pgvector.
		{PGVector, "m 16, ef_construction 64, hnsw.ef_search 40",
			"pgvector/pgvector v0.8.0 src/hnsw.h HNSW_DEFAULT_M, HNSW_DEFAULT_EF_CONSTRUCTION, HNSW_DEFAULT_EF_SEARCH",
			[3]int{pg.M, pg.EfConstruction, pg.Ef}, [3]int{16, 64, 40}},
		{PGVector, "a new element gets 2·m layer-0 links and keeps pruned candidates",
			"pgvector v0.8.0 src/hnswutils.c",
			[2]any{pg.Degree0, pg.KeepPruned}, [2]any{32, true}},
		{PGVector, "one layer-0 scan of ef_search, LIMIT not passed down: ≤ ef_search rows",
			"pgvector v0.8.0 src/hnswscan.c; README.md \"Query Options\"",
			pg.Plan(50, dim), Plan{K: 50, Ef: 40, Candidates: 40, Limit: 40}},
		{PGVector, "ef_search is not raised to k",
			"pgvector v0.8.0 src/hnswscan.c (the scan is sized by ef_search alone)",
			pg.Plan(k, dim), Plan{K: k, Ef: 40, Candidates: k, Limit: k}},
		{PGVector, "filtered: post-filter the scan's rows (hnsw.iterative_scan = off)",
			"pgvector v0.8.0 README.md \"Filtering\", \"Iterative Index Scans\"",
			pg.FilterStrategy(), filtered.PostFilter},
		// Redis.
		{Redis, "M 16, EF_CONSTRUCTION 200, EF_RUNTIME 10",
			"RedisAI/VectorSimilarity src/VecSim/vec_sim_common.h HNSW_DEFAULT_M, HNSW_DEFAULT_EF_C, HNSW_DEFAULT_EF_RT (RediSearch 2.10)",
			[3]int{redis.M, redis.EfConstruction, redis.Ef}, [3]int{16, 200, 10}},
		{Redis, "hnswlib insertion: M links for a new node",
			"nmslib/hnswlib v0.8.0 hnswlib/hnswalg.h",
			redis.Degree0, 16},
		{Redis, "effective ef = max(EF_RUNTIME, k)",
			"RedisAI/VectorSimilarity src/VecSim/algorithms/hnsw/hnsw.h (RediSearch 2.10)",
			redis.Plan(20, dim), Plan{K: 20, Ef: 20, Candidates: 20, Limit: 20}},
		{Redis, "filtered: the hybrid policy (ADHOC_BF or BATCHES)",
			"RediSearch/RediSearch v2.10 src/hybrid_reader.c; VectorSimilarity preferAdHocSearch",
			redis.FilterStrategy(), filtered.RedisHybrid},
		// Qdrant.
		{Qdrant, "m 16, ef_construct 100, payload_m = m, 2 segments on 2 CPUs",
			"qdrant/qdrant v1.19 config/config.yaml; lib/segment/src/types.rs HnswConfig; default_segment_number clamp(CPUs/2, 2, 8)",
			[4]int{qd.M, qd.EfConstruction, qd.PayloadM, qd.Segments}, [4]int{16, 100, 16, 2}},
		{Qdrant, "full_scan_threshold 10,000 KB, indexing_threshold 10,000 KB",
			"qdrant v1.19 config/config.yaml hnsw_index.full_scan_threshold_kb, optimizers.indexing_threshold_kb",
			[2]int{qd.FullScanThresholdKB, qd.IndexingThresholdKB}, [2]int{10000, 10000}},
		{Qdrant, "full_scan_threshold in vectors = KB·1024 / (4·dim)",
			"qdrant v1.19 lib/segment/src/index/hnsw_index/config.rs (full_scan_threshold in KB of float32 vectors)",
			qd.FilterParams(k, dim).FullScanThreshold, 10000 * 1024 / (4 * dim)},
		{Qdrant, "hnsw_ef unset → ef_construct, effective max(ef, k)",
			"qdrant v1.19 lib/segment/src/index/hnsw_index/config.rs (ef initialised to ef_construct), hnsw_index/hnsw.rs",
			[2]Plan{qd.Plan(k, dim), qd.Plan(200, dim)}, [2]Plan{{K: k, Ef: 100, Candidates: k, Limit: k}, {K: 200, Ef: 200, Candidates: 200, Limit: 200}}},
		{Qdrant, "filtered: the cardinality planner",
			"qdrant/qdrant v1.19 lib/segment/src/index/query_estimator.rs, hnsw_index/",
			qd.FilterStrategy(), filtered.QdrantPlanner},
		// Elasticsearch.
		{Elasticsearch, "m 16, ef_construction 100, refresh_interval 1s, ten segments",
			"elastic/elasticsearch 9.1 DenseVectorFieldMapper (m, ef_construction); IndexSettings INDEX_REFRESH_INTERVAL_SETTING; ESSegments",
			[4]any{es.M, es.EfConstruction, es.RefreshInterval, es.Segments}, [4]any{16, 100, time.Second, ESSegments}},
		{Elasticsearch, "a new node gets up to 2·M links on level 0",
			"apache/lucene 10.3 lucene/core/src/java/org/apache/lucene/util/hnsw/HnswGraphBuilder.java",
			es.Degree0, 32},
		{Elasticsearch, "int8_hnsw below 384 dimensions: no rescoring, num_candidates is the beam",
			"elastic/elasticsearch 9.1 DenseVectorFieldMapper (DEFAULT_OVERSAMPLE applies to bbq only)",
			es.Plan(k, 128), Plan{K: k, Ef: 15, Candidates: k, Limit: k, NumCandidates: 15}},
		{Elasticsearch, "index_options.type: bbq_hnsw from 384 dimensions, int8_hnsw below",
			"elastic/elasticsearch 9.1 DenseVectorFieldMapper BBQ_DIMS_DEFAULT_THRESHOLD",
			[2]IndexType{es.EffectiveType(383), es.EffectiveType(384)}, [2]IndexType{Int8HNSW, BBQHNSW}},
		{Elasticsearch, "rescore_vector.oversample 3 for bbq_hnsw, none for int8_hnsw",
			"elastic/elasticsearch 9.1 DenseVectorFieldMapper DEFAULT_OVERSAMPLE; dense-vector docs \"rescore_vector\"",
			[2]float64{es.EffectiveOversample(384), es.EffectiveOversample(128)}, [2]float64{3, 0}},
		{Elasticsearch, "num_candidates = min(⌈1.5·k⌉, 10000)",
			"https://www.elastic.co/docs/reference/query-languages/query-dsl/query-dsl-knn-query (9.1) \"num_candidates\"; KnnVectorQueryBuilder.NUM_CANDS_LIMIT",
			[2]int{es.Plan(k, 128).NumCandidates, es.Plan(9000, 128).NumCandidates}, [2]int{15, 10000}},
		{Elasticsearch, "k' = min(⌈k·oversample⌉, 10000), num_candidates = max(num_candidates, k'), the beam is num_candidates",
			"https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector (9.1) \"rescore_vector\"; KnnVectorQueryBuilder.NUM_CANDS_LIMIT; Lucene's per-segment k is num_candidates",
			[3]Plan{es.Plan(k, dim), es.Plan(5000, dim), with(es, func(p *Profile) { p.Ef = 500 }).Plan(k, dim)},
			[3]Plan{
				{K: k, Ef: 30, Candidates: 30, Rescore: 30, Limit: k, NumCandidates: 30},
				{K: 5000, Ef: 10000, Candidates: 10000, Rescore: 10000, Limit: 5000, NumCandidates: 10000},
				{K: k, Ef: 500, Candidates: 30, Rescore: 30, Limit: k, NumCandidates: 500}}},
		{Elasticsearch, "oversample < 0 (Elasticsearch's 0) and type hnsw rescore nothing",
			"https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector (9.1) \"rescore_vector\": 0 disables it, quantized types only",
			[2]Plan{with(es, func(p *Profile) { p.Oversample = -1 }).Plan(k, dim), with(es, func(p *Profile) { p.Type = HNSWType }).Plan(k, dim)},
			[2]Plan{{K: k, Ef: 15, Candidates: k, Limit: k, NumCandidates: 15}, {K: k, Ef: 15, Candidates: k, Limit: k, NumCandidates: 15}}},
		{Elasticsearch, "hnsw_filter_heuristic acorn (Lucene's KnnSearchStrategy.Hnsw(60)), fanout 0",
			"elastic/elasticsearch 9.1 DenseVectorFieldMapper FilterHeuristic",
			[2]int{es.FilteredSearchThreshold(), with(es, func(p *Profile) { p.FilterHeuristic = "fanout" }).FilteredSearchThreshold()}, [2]int{60, 0}},
		{Elasticsearch, "hnsw_enable_early_termination true on 9.3+ indices (AdaptiveHnswQueueSaturationCollector on every HNSW walk); false turns it off; other stores have none",
			"elastic/elasticsearch server/src/main/java/org/elasticsearch/index/mapper/vectors/DenseVectorFieldMapper.java HNSW_EARLY_TERMINATION (IndexVersions.DEFAULT_HNSW_EARLY_TERMINATION, 9.3.0 release notes PR 132388); search/vectors/ESKnnFloatVectorQuery.java getKnnCollectorManager → PatienceCollectorManager",
			[4]any{es.EarlyTermination, es.Patience(), with(es, func(p *Profile) { p.EarlyTermination = "false" }).Patience(), qd.Patience()}, [4]any{"true", true, false, false}},
		{Elasticsearch, "filtered: in the graph walk, the best k' rescored",
			"apache/lucene 10.3 lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java; elastic/elasticsearch 9.1 RescoreKnnVectorQuery",
			[2]any{es.FilterStrategy(), es.FilterParams(k, dim).Rescore}, [2]any{filtered.InGraph, 30}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.store, tt.rule), func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("%s: %s: got %v, want %v (source: %s)", tt.store, tt.rule, tt.got, tt.want, tt.source)
			}
		})
	}
	// What all four share: a layer-0 cap of 2·M (HNSW's Mmax0, Malkov &
	// Yashunin 2018, §4), and one index for pgvector and Redis.
	for _, p := range Defaults() {
		if err := p.Validate(); err != nil {
			t.Errorf("%s default does not validate: %v", p.Kind, err)
		}
		if p.M0 != 2*p.M {
			t.Errorf("%s m0 %d, want 2·m = %d", p.Kind, p.M0, 2*p.M)
		}
		if (p.Kind == PGVector || p.Kind == Redis) && p.Segments != 1 {
			t.Errorf("%s segments %d, want 1", p.Kind, p.Segments)
		}
	}
}
