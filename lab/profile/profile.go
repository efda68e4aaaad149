package profile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
)

// Kind names the store a profile emulates.
type Kind uint8

// The four stores of the Spring AI VectorStore article.
const (
	PGVector Kind = iota + 1
	Redis
	Qdrant
	Elasticsearch
)

var kindNames = [...]string{PGVector: "pgvector", Redis: "redis", Qdrant: "qdrant", Elasticsearch: "elasticsearch"}

// String returns the store's name.
func (k Kind) String() string {
	if k >= PGVector && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind reads a store name ("pgvector", "redis", "qdrant",
// "elasticsearch"; "pg", "es" and "elastic" are accepted).
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pgvector", "pg", "postgres":
		return PGVector, nil
	case "redis":
		return Redis, nil
	case "qdrant":
		return Qdrant, nil
	case "elasticsearch", "es", "elastic":
		return Elasticsearch, nil
	}
	return 0, fmt.Errorf("profile: unknown store %q (want pgvector, redis, qdrant or elasticsearch): %w", s, engine.ErrInvalidArgument)
}

// IndexType is Elasticsearch's dense_vector index_options.type.
type IndexType uint8

// The index types. AutoType is the 9.1+ default rule: bbq_hnsw for dims ≥
// 384, int8_hnsw below (DenseVectorFieldMapper, BBQ_DIMS_DEFAULT_THRESHOLD).
const (
	AutoType IndexType = iota
	HNSWType
	Int8HNSW
	Int4HNSW
	BBQHNSW
)

var typeNames = [...]string{AutoType: "auto", HNSWType: "hnsw", Int8HNSW: "int8_hnsw", Int4HNSW: "int4_hnsw", BBQHNSW: "bbq_hnsw"}

// String returns the mapping's name of the type ("auto" for AutoType).
func (t IndexType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("IndexType(%d)", t)
}

// ParseIndexType reads "auto", "hnsw", "int8_hnsw", "int4_hnsw" or "bbq_hnsw".
func ParseIndexType(s string) (IndexType, error) {
	for i, n := range typeNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return IndexType(i), nil
		}
	}
	return 0, fmt.Errorf("profile: unknown index_options.type %q (want auto, hnsw, int8_hnsw, int4_hnsw or bbq_hnsw): %w", s, engine.ErrInvalidArgument)
}

// BBQDimsThreshold is the dimension from which Elasticsearch 9.1+ maps a
// float dense_vector to bbq_hnsw by default (BBQ_DIMS_DEFAULT_THRESHOLD).
const BBQDimsThreshold = 384

// NumCandidatesLimit caps Elasticsearch's num_candidates and k'
// (KnnVectorQueryBuilder.NUM_CANDS_LIMIT).
const NumCandidatesLimit = 10000

// Profile is a named set of engine settings that emulates one store on its
// defaults. The zero value of a field means "the store's default"; see
// [Default] and [Profile.WithDefaults].
type Profile struct {
	Kind    Kind
	Version string        // the emulated version, e.g. "0.8.7"
	Metric  engine.Metric // the articles use cosine

	// Graph construction (every store here builds HNSW).
	M              int  // links per node on layers ≥ 1 (all four: 16)
	M0             int  // layer-0 cap (all four: 2·M)
	EfConstruction int  // pgvector 64, Redis 200, Qdrant 100, Elasticsearch 100
	Degree0        int  // links a new node gets on layer 0: pgvector and Lucene 2·M, hnswlib-style M
	KeepPruned     bool // fill a new node's list with pruned candidates (pgvector)

	// Ef is the query-time breadth under the store's own name:
	// pgvector hnsw.ef_search (40; NOT raised to LIMIT: a scan yields at
	// most ef_search rows), Redis EF_RUNTIME (10; effective max(ef, k)),
	// Qdrant hnsw_ef (0 → ef_construct; effective max(ef, k)),
	// Elasticsearch num_candidates (0 → min(⌈1.5·k⌉, 10000)).
	Ef int

	// SeqScanOff is pgvector's session setting enable_seqscan = off: the
	// PostgreSQL planner then keeps the HNSW index even where a sequential
	// scan costs less (see PgvectorPlan) — how pgvector's documentation
	// has one test the index on a small table.
	SeqScanOff bool
	// IterativeScan is pgvector 0.8's session setting hnsw.iterative_scan:
	// "off" (the default; "" reads as off) post-filters the ef_search rows
	// of one index scan; "relaxed_order" and "strict_order" continue the
	// scan in batches of ef_search rows until LIMIT rows pass the filter
	// or hnsw.max_scan_tuples (20,000) tuples were visited
	// (pgvector/pgvector v0.8.0 src/hnsw.c hnsw_iterative_scan_options,
	// src/hnswscan.c; README.md "Iterative Index Scans"). pgvector only;
	// a view sets it with [Store.WithIterativeScan].
	IterativeScan string

	// Fetch is how an Elasticsearch search reads each hit's id in its
	// fetch phase: "stored_fields" reads _id from the hit's stored fields,
	// kept beside _source in blocks compressed together (Elasticsearch's
	// own default hit, FetchPhase loading the stored _id), so each hit's
	// block is decompressed (once per query for the hits it shares);
	// "docvalue_fields" reads it from a doc-values column
	// ("stored_fields": "_none_" with "docvalue_fields": ["id"], the
	// article's "id isolated"): 8 bytes a hit, nothing decompressed. ""
	// is the lab's default, docvalue_fields, so that the other experiments
	// time the vector search alone; E17 sets stored_fields. Elasticsearch
	// only; a view sets it with [Store.WithFetch].
	Fetch string

	// Qdrant.
	FullScanThresholdKB int // below this many KB of vectors a segment is searched exactly (10000)
	IndexingThresholdKB int // a segment gets an HNSW graph from this many KB of vectors (10000)
	// PayloadM is hnsw_config.payload_m: the links per node of the extra
	// HNSW Qdrant builds over each payload block (keyword value, numeric
	// range) of every payload-indexed field and merges into the main
	// graph's layer 0 (engine/filtered BuildPayloadLinks; [Store.Filtered]
	// builds them when the metadata has payload indexes). 0 means m
	// (Qdrant's default); a negative value builds none (Qdrant's
	// payload_m: 0).
	PayloadM int
	// PayloadIndex lists the payload fields with a payload index,
	// comma-separated ("category,year"): one PUT /collections/{name}/index
	// per field_name, its field_schema (keyword, integer) the kind of the
	// field's values (qdrant/qdrant v1.19 lib/collection/src/operations/
	// types.rs CreateFieldIndex; docs concepts/indexing "Payload Index").
	// "" is none, as Spring AI's QdrantVectorStore creates the collection:
	// a filter then reads every stored payload it checks and the planner
	// samples them to estimate the filter's cardinality. An indexed field
	// also gets Qdrant's payload-block links (PayloadM). Qdrant only; the
	// fields must be in the documents' payload ([Profile.Payload]).
	PayloadIndex string
	// Quantization is Qdrant's quantization_config: "" none (Qdrant's
	// default, and how Spring AI's QdrantVectorStore creates the
	// collection), "int8" ({"scalar": {"type": "int8"}}: a byte a
	// component, segment.QdrantInt8) or "binary" ({"binary": {}}: its
	// default encoding one_bit, a bit a component, segment.QdrantBinary).
	// Qdrant quantizes each indexed segment, builds its graph over the
	// quantized vectors and searches them (qdrant/qdrant v1.19.0
	// lib/segment/src/types.rs QuantizationConfig; lib/quantization/src/
	// encoded_vectors_u8.rs, encoded_vectors_binary.rs;
	// lib/segment/src/index/hnsw_index/hnsw/build.rs). Qdrant only.
	Quantization string
	// Quantile is quantization_config.scalar.quantile: 0 is Qdrant's
	// default (not set: the whole range of the values), otherwise in
	// [0.5, 1]. int8 only.
	Quantile float64
	// Rescore is the search's params.quantization.rescore: "" lets Qdrant
	// decide — QuantizedVectors::default_rescoring, false for scalar,
	// true for binary (qdrant/qdrant v1.19.0
	// lib/segment/src/vector_storage/quantized/quantized_vectors/
	// accessors.rs) — "true" rescores each segment's candidates with the
	// original vectors, "false" returns the quantized scores. A view sets
	// it with [Store.WithRescore]. Qdrant with Quantization only; its
	// params.quantization.oversampling is Oversample.
	Rescore string
	// Segments is the number of segments, each with its own graph (or
	// plain rows), searched one by one and merged. Qdrant:
	// default_segment_number resolved, clamp(CPUs/2, 2, 8) → 2 on the
	// article's 2-vCPU machine (it reported segments_count=2): that many
	// appendable segments, each batch to the smallest, and the merge
	// optimizer's target. Elasticsearch: the most segments the index
	// keeps once searchable ([ESSegments], 10: what the article's load
	// leaves; 1 is the force-merged variant). pgvector and Redis: 1.
	Segments int

	// Elasticsearch.
	Type IndexType // index_options.type (AutoType: by dimension)
	// Oversample is rescore_vector.oversample: 0 means the default of the
	// type (3.0 for bbq_hnsw on 9.1+ indices, none otherwise), a negative
	// value disables rescoring (Elasticsearch's 0). For Qdrant with
	// Quantization it is params.quantization.oversampling: 0 is not set
	// (Qdrant's default, as 1.0), otherwise ≥ 1; each segment gathers
	// ⌊oversampling·limit⌋ candidates (get_oversampled_top,
	// lib/segment/src/index/vector_index_search_common.rs, v1.19.0).
	Oversample float64
	// FilterHeuristic is index.dense_vector.hnsw_filter_heuristic: how
	// a filtered kNN search walks a segment's graph. "acorn" (the default
	// for indices created on 9.1+, elastic/elasticsearch
	// server/src/main/java/org/elasticsearch/index/mapper/vectors/DenseVectorFieldMapper.java
	// FilterHeuristic: Lucene's KnnSearchStrategy.Hnsw(60)) scores only
	// the documents that match, through Lucene 10.2+'s
	// FilteredHnswGraphSearcher, when under 60 % of a segment matches;
	// "fanout" (Hnsw(0)) scores every neighbour it meets and keeps the
	// matching ones. Elasticsearch only; "" takes the default.
	FilterHeuristic string
	// EarlyTermination is index.dense_vector.hnsw_enable_early_termination
	// ("true" or "false"; "" takes the default): "true", the default for
	// indices created on 9.3+ (elastic/elasticsearch
	// server/src/main/java/org/elasticsearch/index/mapper/vectors/DenseVectorFieldMapper.java
	// HNSW_EARLY_TERMINATION, IndexVersions.DEFAULT_HNSW_EARLY_TERMINATION;
	// 9.3.0 release notes, PR 132388), wraps every HNSW kNN collector in
	// AdaptiveHnswQueueSaturationCollector (ESKnnFloatVectorQuery
	// .getKnnCollectorManager → PatienceCollectorManager), which ends a
	// segment's graph walk once new candidates stop entering the top
	// num_candidates (engine/segment Options.Patience). Elasticsearch only.
	EarlyTermination string
	// RefreshInterval is index.refresh_interval (1s): documents become
	// searchable at the next refresh, which comes after every
	// ESIngestRate·RefreshInterval acknowledged documents (the interval
	// in ingest time at the article's rate).
	RefreshInterval time.Duration
	Seed            uint64 // graph levels and quantizer sampling
	Workers         int    // goroutines building a graph; 1 (default) is deterministic
}

// Default returns the defaults-as-shipped profile of a store
// (the sources listed in the package documentation; the Spring AI VectorStore article).
func Default(k Kind) Profile {
	p := Profile{Kind: k}
	switch k {
	case PGVector:
		p.Version = "0.8.7"
	case Redis:
		p.Version = "7.4-RediSearch-2.10"
	case Qdrant:
		p.Version = "1.19"
	case Elasticsearch:
		p.Version = "9.5"
	}
	return p.WithDefaults()
}

// Defaults returns the four stores' default profiles in the article's order.
func Defaults() []Profile {
	return []Profile{Default(PGVector), Default(Redis), Default(Qdrant), Default(Elasticsearch)}
}

// WithDefaults returns p with every zero field set to its store's default.
func (p Profile) WithDefaults() Profile {
	if p.M == 0 {
		p.M = 16
	}
	if p.M0 == 0 {
		p.M0 = 2 * p.M
	}
	if p.Workers == 0 {
		p.Workers = 1
	}
	switch p.Kind {
	case PGVector:
		// pgvector src/hnsw.h: HNSW_DEFAULT_EF_CONSTRUCTION 64,
		// HNSW_DEFAULT_EF_SEARCH 40; src/hnswutils.c gives a new element
		// 2·m links on layer 0 and keeps pruned candidates.
		if p.EfConstruction == 0 {
			p.EfConstruction = 64
		}
		if p.Ef == 0 {
			p.Ef = 40
		}
		if p.Degree0 == 0 {
			p.Degree0 = p.M0
			p.KeepPruned = true
		}
	case Redis:
		// VecSim vec_sim_common.h: HNSW_DEFAULT_EF_C 200, HNSW_DEFAULT_EF_RT 10;
		// hnswlib-style insertion (M links for a new node on every layer).
		if p.EfConstruction == 0 {
			p.EfConstruction = 200
		}
		if p.Ef == 0 {
			p.Ef = 10
		}
		if p.Degree0 == 0 {
			p.Degree0 = p.M
		}
	case Qdrant:
		// config.yaml / hnsw_index/config.rs: ef_construct 100,
		// full_scan_threshold 10000 KB; optimizers indexing_threshold 10000 KB.
		if p.EfConstruction == 0 {
			p.EfConstruction = 100
		}
		if p.Degree0 == 0 {
			p.Degree0 = p.M
		}
		if p.FullScanThresholdKB == 0 {
			p.FullScanThresholdKB = 10000
		}
		if p.IndexingThresholdKB == 0 {
			p.IndexingThresholdKB = 10000
		}
		if p.Segments == 0 {
			p.Segments = 2
		}
		if p.PayloadM == 0 {
			p.PayloadM = p.M
		}
	case Elasticsearch:
		// dense-vector docs: m 16, ef_construction 100; Lucene
		// HnswGraphBuilder gives a new node up to 2·M links on level 0.
		if p.EfConstruction == 0 {
			p.EfConstruction = 100
		}
		if p.Degree0 == 0 {
			p.Degree0 = p.M0
		}
		if p.RefreshInterval == 0 {
			p.RefreshInterval = time.Second
		}
		if p.Segments == 0 {
			p.Segments = ESSegments
		}
		if p.FilterHeuristic == "" {
			p.FilterHeuristic = "acorn"
		}
		if p.EarlyTermination == "" {
			p.EarlyTermination = "true"
		}
	}
	if p.Segments == 0 {
		p.Segments = 1
	}
	return p
}

// Validate reports every problem of p at once (call it on WithDefaults).
func (p Profile) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("profile: %s: %s: %w", p.Kind, fmt.Sprintf(format, args...), engine.ErrInvalidArgument))
	}
	if p.Kind < PGVector || p.Kind > Elasticsearch {
		bad("unknown store kind %d", p.Kind)
	}
	if !p.Metric.Valid() {
		bad("unknown metric %v", p.Metric)
	}
	if p.M < 2 || p.M > 10000 {
		bad("m must be in 2…10000, got %d", p.M)
	}
	if p.M0 < p.M {
		bad("m0 must be ≥ m (%d), got %d", p.M, p.M0)
	}
	if p.EfConstruction < 1 {
		bad("ef_construction must be positive, got %d", p.EfConstruction)
	}
	if p.Kind == PGVector && p.EfConstruction < 2*p.M {
		// src/hnswbuild.c: "ef_construction must be greater than or equal to 2 * m"
		bad("ef_construction must be greater than or equal to 2 * m (%d), got %d", 2*p.M, p.EfConstruction)
	}
	efName := "ef"
	if r, ok := efRules[p.Kind]; ok {
		efName = r.setting // the store's own name: hnsw.ef_search, EF_RUNTIME, …
	}
	if p.Ef < 0 || (p.Kind == PGVector && p.Ef == 0) {
		bad("%s must be positive, got %d", efName, p.Ef)
	}
	if p.Kind == PGVector && p.Ef > 1000 {
		bad("hnsw.ef_search must be in 1…1000, got %d", p.Ef)
	}
	if p.Kind == Elasticsearch && p.Ef > NumCandidatesLimit {
		bad("num_candidates must be ≤ %d, got %d", NumCandidatesLimit, p.Ef)
	}
	if p.Degree0 < 1 || p.Degree0 > p.M0 {
		bad("layer-0 degree of a new node must be in 1…m0 (%d), got %d", p.M0, p.Degree0)
	}
	if p.FullScanThresholdKB < 0 || p.IndexingThresholdKB < 0 {
		bad("thresholds must be ≥ 0, got full_scan %d KB, indexing %d KB", p.FullScanThresholdKB, p.IndexingThresholdKB)
	}
	if p.PayloadM == 1 || p.PayloadM > 10000 {
		bad("payload_m must be in 2…10000 (or negative: no payload links), got %d", p.PayloadM)
	}
	if p.Segments < 1 || p.Segments > 64 {
		bad("segments must be in 1…64, got %d", p.Segments)
	}
	if (p.Kind == PGVector || p.Kind == Redis) && p.Segments != 1 {
		bad("segments must be 1 (the store keeps one index), got %d", p.Segments)
	}
	if p.Type > BBQHNSW {
		bad("unknown index type %d", p.Type)
	}
	if p.Kind == Elasticsearch {
		// The version picks int8_hnsw's quantizer (esCodes).
		if _, _, err := esVersion(p.Version); err != nil {
			bad("%v", err)
		}
	}
	switch {
	case p.Quantization != "" && p.Kind != Qdrant:
		bad("quantization is Qdrant's quantization_config, got %q for %v (Elasticsearch's quantized index types are type=int8_hnsw, bbq_hnsw, …)", p.Quantization, p.Kind)
	case p.Quantization != "" && p.Quantization != "int8" && p.Quantization != "binary":
		bad("quantization must be int8 (scalar) or binary (or none), got %q", p.Quantization)
	}
	if p.Quantile != 0 && (p.Quantization != "int8" || !(p.Quantile >= 0.5 && p.Quantile <= 1)) {
		bad("quantile is quantization_config.scalar.quantile, in 0.5…1 with quantization=int8, got %v with quantization=%q", p.Quantile, p.Quantization)
	}
	if p.Rescore != "" {
		if e := checkRescore(p, "rescore="+p.Rescore, p.Rescore); e != nil {
			errs = append(errs, fmt.Errorf("profile: %w", e))
		}
	}
	if p.Kind == Qdrant && p.Oversample != 0 {
		if e := checkOversample(p, "oversampling="+strconv.FormatFloat(p.Oversample, 'g', -1, 64), p.Oversample); e != nil {
			errs = append(errs, fmt.Errorf("profile: %w", e))
		}
	}
	if math.IsNaN(p.Oversample) || math.IsInf(p.Oversample, 0) {
		bad("oversample must be finite, got %v", p.Oversample)
	}
	if p.Kind != Qdrant && p.Oversample > 0 && p.Oversample < 1 {
		bad("oversample must be ≥ 1 (or 0 for the default, < 0 for none), got %v", p.Oversample)
	}
	if p.RefreshInterval < 0 {
		bad("refresh interval must be ≥ 0, got %v", p.RefreshInterval)
	}
	switch {
	case p.Kind == Elasticsearch && p.FilterHeuristic != "acorn" && p.FilterHeuristic != "fanout":
		bad("hnsw_filter_heuristic must be acorn or fanout, got %q", p.FilterHeuristic)
	case p.Kind != Elasticsearch && p.FilterHeuristic != "":
		bad("hnsw_filter_heuristic is an Elasticsearch setting, got %q for %v", p.FilterHeuristic, p.Kind)
	}
	switch {
	case p.Kind == Elasticsearch && p.EarlyTermination != "true" && p.EarlyTermination != "false":
		bad("hnsw_enable_early_termination must be true or false, got %q", p.EarlyTermination)
	case p.Kind != Elasticsearch && p.EarlyTermination != "":
		bad("hnsw_enable_early_termination is an Elasticsearch setting, got %q for %v", p.EarlyTermination, p.Kind)
	}
	if p.IterativeScan != "" {
		if e := checkIterativeScan(p.Kind, "iterative_scan="+p.IterativeScan, p.IterativeScan); e != nil {
			errs = append(errs, fmt.Errorf("profile: %w", e))
		}
	}
	if p.Fetch != "" {
		if e := checkFetch(p.Kind, "fetch="+p.Fetch, p.Fetch); e != nil {
			errs = append(errs, fmt.Errorf("profile: %w", e))
		}
	}
	if p.PayloadIndex != "" {
		if _, e := payloadIndexFields(p.Kind, p.PayloadIndex); e != nil {
			errs = append(errs, fmt.Errorf("profile: %w", e))
		}
	}
	if p.Workers < 1 {
		bad("workers must be positive, got %d", p.Workers)
	}
	return errors.Join(errs...)
}

// FilteredSearchThreshold is Lucene's KnnSearchStrategy.Hnsw threshold
// the profile's filter heuristic sets: 60 for acorn, 0 for fanout (and
// for the stores that are not Elasticsearch).
func (p Profile) FilteredSearchThreshold() int {
	if p.Kind == Elasticsearch && p.FilterHeuristic == "acorn" {
		return 60
	}
	return 0
}

// Patience reports whether the profile's HNSW searches end early as
// Elasticsearch's hnsw_enable_early_termination does (see
// EarlyTermination); false for the other stores.
func (p Profile) Patience() bool {
	return p.Kind == Elasticsearch && p.EarlyTermination == "true"
}

// EffectiveType resolves AutoType for vectors of dim dimensions.
func (p Profile) EffectiveType(dim int) IndexType {
	if p.Kind != Elasticsearch {
		return HNSWType
	}
	if p.Type != AutoType {
		return p.Type
	}
	if dim >= BBQDimsThreshold {
		return BBQHNSW
	}
	return Int8HNSW
}

// EffectiveOversample resolves Oversample for the index type: 0 when
// there is no rescoring. For Qdrant it is the oversampling (1 when not
// set; 0 without Quantization), whether or not the search rescores
// ([Profile.EffectiveRescore]).
func (p Profile) EffectiveOversample(dim int) float64 {
	if p.Kind == Qdrant {
		switch {
		case p.Quantization == "":
			return 0
		case p.Oversample >= 1:
			return p.Oversample
		}
		return 1 // default_quantization_oversampling_value: None, as 1.0
	}
	switch {
	case p.Oversample < 0:
		return 0
	case p.Oversample > 0:
		return p.Oversample
	case p.EffectiveType(dim) == BBQHNSW:
		return 3 // DenseVectorFieldMapper.DEFAULT_OVERSAMPLE, bbq on 9.1+
	}
	return 0
}

// EffectiveRescore reports whether a Qdrant search with Quantization
// rescores with the original vectors: Rescore when set, else the
// storage's default_rescoring (scalar false, binary true). False for
// every other profile (Elasticsearch rescores when EffectiveOversample
// is positive).
func (p Profile) EffectiveRescore() bool {
	if p.Kind != Qdrant || p.Quantization == "" {
		return false
	}
	if p.Rescore != "" {
		return p.Rescore == "true"
	}
	return p.Quantization == "binary"
}

// Plan is how a store answers one top-k query: the graph beam, how many
// candidates it gathers, how many it rescores and how many it can return.
type Plan struct {
	K             int // the requested top-k
	Ef            int // the beam of the layer-0 search
	Candidates    int // candidates gathered from the graph
	Rescore       int // candidates rescored with float32 vectors (0: none)
	Limit         int // results the store can return at most
	NumCandidates int // Elasticsearch: num_candidates after defaults
}

// Plan computes the query plan for top-k with the profile's breadth.
func (p Profile) Plan(k, dim int) Plan {
	pl := Plan{K: k, Limit: k}
	switch p.Kind {
	case PGVector:
		// hnswscan.c: one layer-0 search with ef_search; the executor's
		// LIMIT is not passed down, so a scan yields ≤ ef_search rows.
		pl.Ef = p.Ef
		pl.Limit = min(k, p.Ef)
		pl.Candidates = pl.Limit
	case Redis:
		pl.Ef = max(p.Ef, k) // VecSim: ef = max(EF_RUNTIME, k)
		pl.Candidates = k
	case Qdrant:
		ef := p.Ef
		if ef == 0 {
			ef = p.EfConstruction // graph config's ef is initialised to ef_construct
		}
		pl.Ef = max(ef, k)
		pl.Candidates = k
		if p.Quantization != "" {
			// Each segment's graph gathers oversampled_top =
			// ⌊oversampling·limit⌋ (when oversampling > 1) with the beam
			// max(hnsw_ef, oversampled_top); with rescoring all of them
			// are rescored and the limit best kept, without it the
			// quantized scores' limit best (get_oversampled_top,
			// postprocess_search_result; hnsw read_view/search.rs).
			top := k
			if os := p.EffectiveOversample(0); os > 1 {
				top = int(os * float64(k))
			}
			pl.Ef, pl.Candidates = max(ef, top), top
			if p.EffectiveRescore() {
				pl.Rescore = top
			}
		}
	case Elasticsearch:
		nc := p.Ef
		if nc == 0 {
			nc = min(int(math.Ceil(1.5*float64(k))), NumCandidatesLimit)
		}
		kp := k
		if os := p.EffectiveOversample(dim); os > 0 {
			// k' = min(⌈k·oversample⌉, 10000); num_candidates = max(nc, k')
			kp = min(engine.RescoreDepth(k, os), NumCandidatesLimit)
			pl.Rescore = kp
		}
		nc = max(nc, kp)
		pl.NumCandidates = nc
		pl.Ef = nc // Lucene's k per segment is num_candidates: it is the beam
		pl.Candidates = kp
	}
	return pl
}

// String prints the plan.
func (pl Plan) String() string {
	s := fmt.Sprintf("k=%d ef=%d candidates=%d limit=%d", pl.K, pl.Ef, pl.Candidates, pl.Limit)
	if pl.Rescore > 0 {
		s += fmt.Sprintf(" rescore=%d", pl.Rescore)
	}
	if pl.NumCandidates > 0 {
		s += fmt.Sprintf(" num_candidates=%d", pl.NumCandidates)
	}
	return s
}

// String prints p as space-separated key=value pairs that Parse reads
// back; the store's name comes first.
func (p Profile) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s metric=%s m=%d m0=%d ef_construction=%d degree0=%d keep_pruned=%t ef=%d",
		p.Kind, p.Metric, p.M, p.M0, p.EfConstruction, p.Degree0, p.KeepPruned, p.Ef)
	if p.Kind == Qdrant || p.FullScanThresholdKB != 0 || p.IndexingThresholdKB != 0 {
		fmt.Fprintf(&b, " full_scan_threshold_kb=%d indexing_threshold_kb=%d", p.FullScanThresholdKB, p.IndexingThresholdKB)
	}
	if p.Kind == PGVector || p.SeqScanOff {
		fmt.Fprintf(&b, " enable_seqscan=%s", map[bool]string{false: "on", true: "off"}[p.SeqScanOff])
	}
	if p.IterativeScan != "" {
		fmt.Fprintf(&b, " iterative_scan=%s", p.IterativeScan)
	}
	if p.Fetch != "" {
		fmt.Fprintf(&b, " fetch=%s", p.Fetch)
	}
	if p.Kind == Qdrant || p.PayloadM != 0 {
		fmt.Fprintf(&b, " payload_m=%d", p.PayloadM)
	}
	if p.Quantization != "" {
		fmt.Fprintf(&b, " quantization=%s", p.Quantization)
		if p.Quantile != 0 {
			fmt.Fprintf(&b, " quantile=%s", strconv.FormatFloat(p.Quantile, 'g', -1, 64))
		}
		if p.Rescore != "" {
			fmt.Fprintf(&b, " rescore=%s", p.Rescore)
		}
		if p.Oversample != 0 && p.Kind == Qdrant {
			fmt.Fprintf(&b, " oversampling=%s", strconv.FormatFloat(p.Oversample, 'g', -1, 64))
		}
	}
	if p.PayloadIndex != "" {
		list := strings.ReplaceAll(p.PayloadIndex, " ", "") // one field per name, as Parse reads it
		if fs, e := payloadIndexFields(p.Kind, p.PayloadIndex); e == nil {
			list = strings.Join(fs, ",")
		}
		fmt.Fprintf(&b, " payload_index=%s", list)
	}
	fmt.Fprintf(&b, " segments=%d", p.Segments)
	if p.Kind == Elasticsearch {
		fmt.Fprintf(&b, " type=%s oversample=%s refresh=%s hnsw_filter_heuristic=%s hnsw_enable_early_termination=%s",
			p.Type, strconv.FormatFloat(p.Oversample, 'g', -1, 64), p.RefreshInterval, p.FilterHeuristic, p.EarlyTermination)
	}
	fmt.Fprintf(&b, " seed=%d workers=%d", p.Seed, p.Workers)
	if p.Version != "" {
		fmt.Fprintf(&b, " version=%s", strings.ReplaceAll(p.Version, " ", "_"))
	}
	return b.String()
}

// Parse reads the form String prints: a store name, then key=value pairs
// that override its defaults; keys left out keep the store's default.
func Parse(s string) (Profile, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Profile{}, fmt.Errorf("profile: empty profile: %w", engine.ErrInvalidArgument)
	}
	k, err := ParseKind(f[0])
	if err != nil {
		return Profile{}, err
	}
	p := Profile{Kind: k}
	var errs []error
	for _, kv := range f[1:] {
		key, v, ok := strings.Cut(kv, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("profile: %q is not key=value: %w", kv, engine.ErrInvalidArgument))
			continue
		}
		var err error
		atoi := func(dst *int) { *dst, err = strconv.Atoi(v) }
		switch strings.ToLower(key) {
		case "metric":
			p.Metric, err = engine.ParseMetric(v)
		case "m":
			atoi(&p.M)
		case "m0":
			atoi(&p.M0)
		case "ef_construction", "efc", "ef_construct":
			atoi(&p.EfConstruction)
		case "degree0":
			atoi(&p.Degree0)
		case "keep_pruned":
			p.KeepPruned, err = strconv.ParseBool(v)
		case "ef", "ef_search", "ef_runtime", "hnsw_ef", "num_candidates":
			atoi(&p.Ef)
		case "full_scan_threshold_kb":
			atoi(&p.FullScanThresholdKB)
		case "indexing_threshold_kb":
			atoi(&p.IndexingThresholdKB)
		case "payload_m":
			atoi(&p.PayloadM)
		case "payload_index":
			p.PayloadIndex = v
		case "iterative_scan", "hnsw.iterative_scan":
			p.IterativeScan = strings.ToLower(v)
		case "fetch":
			p.Fetch = v
		case "enable_seqscan":
			switch strings.ToLower(v) {
			case "on", "true":
				p.SeqScanOff = false
			case "off", "false":
				p.SeqScanOff = true
			default:
				err = errors.New("want on or off")
			}
		case "segments":
			atoi(&p.Segments)
		case "type":
			p.Type, err = ParseIndexType(v)
		case "oversample", "oversampling":
			p.Oversample, err = strconv.ParseFloat(v, 64)
		case "quantization":
			p.Quantization = strings.ToLower(v)
			if p.Quantization == "none" {
				p.Quantization = ""
			}
		case "quantile":
			p.Quantile, err = strconv.ParseFloat(v, 64)
		case "rescore":
			p.Rescore = strings.ToLower(v)
		case "refresh":
			p.RefreshInterval, err = time.ParseDuration(v)
		case "hnsw_filter_heuristic", "filter_heuristic":
			p.FilterHeuristic = strings.ToLower(v)
		case "hnsw_enable_early_termination", "early_termination":
			p.EarlyTermination = strings.ToLower(v)
		case "seed":
			p.Seed, err = strconv.ParseUint(v, 10, 64)
		case "workers":
			atoi(&p.Workers)
		case "version":
			p.Version = strings.ReplaceAll(v, "_", " ")
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("profile: %q: %v: %w", kv, err, engine.ErrInvalidArgument))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Profile{}, err
	}
	// Keep what was given; fill only what was left out. KeepPruned must
	// not be forced back on for pgvector when degree0 was given.
	return p.WithDefaults(), nil
}
