package profile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

// A view's knobs ([Store.WithEf], [Store.WithOversample]) are validated
// on the way in, as Open validates a profile (pebble's EnsureDefaults then
// Validate): a value the store itself would refuse makes a view whose
// every verb (Search, SearchStats, SearchFiltered, Filtered, SearchFilter,
// Ingest, Refresh, WaitSearchable) answers the same *KnobError, so a chain
// such as s.WithOversample(0.5).Search(q, 10) fails at the verb with the
// knob as the learner wrote it. [Store.Err] reads it without searching.
// There is one policy per knob and store: the store's own range, cited
// from its source (knobRules); nothing is silently clamped or restored.

// KnobError reports a query-time knob out of the range its store allows,
// in the learner's terms: the call as written (WithEf(-3)), the store and
// its name for the setting (Redis's EF_RUNTIME), the value, the allowed
// range, and the store's rule with the source file and version it comes
// from. It wraps engine.ErrInvalidArgument (errors.Is) without printing
// it.
type KnobError struct {
	Call    string // the knob as written, e.g. "WithEf(-3)"
	Store   Kind   // the store the view belongs to
	Setting string // the store's name for the knob, e.g. "EF_RUNTIME"; "" when the store has none
	Value   string // the value given, as the store would print it
	Allowed string // the range the store accepts, e.g. "1…1000"; "" when the store has no such knob
	Rule    string // the store's rule, in its own words
	Source  string // where the rule comes from: repository, version and file
}

func (e *KnobError) Error() string {
	if e.Allowed == "" {
		return fmt.Sprintf("%s on %s: %s (%s)", e.Call, e.Store, e.Rule, e.Source)
	}
	return fmt.Sprintf("%s on %s: %s %s is out of range, allowed %s: %s (%s)",
		e.Call, e.Store, e.Setting, e.Value, e.Allowed, e.Rule, e.Source)
}

// Unwrap makes errors.Is(err, engine.ErrInvalidArgument) hold.
func (e *KnobError) Unwrap() error { return engine.ErrInvalidArgument }

// knobRule is one store's rule for one query-time knob.
type knobRule struct {
	setting string // the store's name for it ("" when the store has none)
	allowed string // the range as printed ("" when the store has none)
	rule    string
	source  string
}

// efRules are the stores' rules for the query-time breadth (Profile.Ef).
var efRules = map[Kind]knobRule{
	PGVector: {"hnsw.ef_search", "1…1000",
		`PostgreSQL refuses it: "… is outside the valid range for parameter "hnsw.ef_search" (1 .. 1000)"`,
		"pgvector/pgvector v0.8.0 src/hnsw.c DefineCustomIntVariable(\"hnsw.ef_search\", …, HNSW_MIN_EF_SEARCH, HNSW_MAX_EF_SEARCH); src/hnsw.h"},
	Redis: {"EF_RUNTIME", "≥ 1",
		"EF_RUNTIME must be a positive integer",
		"RedisAI/VectorSimilarity src/VecSim/vec_sim.cpp _ResolveParams_EFRuntime, as in RediSearch 2.10"},
	Qdrant: {"hnsw_ef", "≥ 1",
		"hnsw_ef is an unsigned integer and a search walks with max(hnsw_ef, limit), so 0 and 1 walk alike; the lab takes 1 as the floor",
		"qdrant/qdrant v1.19 lib/segment/src/types.rs SearchParams.hnsw_ef; lib/segment/src/index/hnsw_index/hnsw.rs"},
	Elasticsearch: {"num_candidates", fmt.Sprintf("k…%d", NumCandidatesLimit),
		fmt.Sprintf(`Elasticsearch refuses "[num_candidates] cannot be less than [k]" and "[num_candidates] cannot exceed [%d]"`, NumCandidatesLimit),
		"elastic/elasticsearch 9.x server/src/main/java/org/elasticsearch/search/vectors/KnnSearchBuilder.java"},
}

// oversampleRules are the stores' rules for the oversample of a quantized
// search (Profile.Oversample): Elasticsearch's alone.
var oversampleRules = map[Kind]knobRule{
	PGVector: {rule: "pgvector has no oversample setting: its HNSW scan ranks by float32 distances",
		source: "pgvector/pgvector v0.8.0 README.md \"Query Options\""},
	Redis: {rule: "Redis has no oversample setting for an HNSW field: its graph ranks by float32 distances",
		source: "RediSearch/RediSearch v2.10 docs \"Vector search\", HNSW query attributes"},
	Qdrant: {"params.quantization.oversampling", "≥ 1 (with quantization=int8 or binary)",
		`Qdrant validates "range(min = 1.0)", and oversampling acts on a quantized collection only (set quantization=int8 or binary on the profile)`,
		"qdrant/qdrant v1.19.0 lib/segment/src/types.rs QuantizationSearchParams; lib/segment/src/index/vector_index_search_common.rs get_oversampled_top"},
	Elasticsearch: {"oversample", "0 (none) or ≥ 1",
		`Elasticsearch refuses "[oversample] must be >= 1.0"; 0 turns oversampling off`,
		"elastic/elasticsearch 9.1 server/src/main/java/org/elasticsearch/search/vectors/RescoreVectorBuilder.java"},
}

func (r knobRule) err(call string, store Kind, value string) *KnobError {
	return &KnobError{Call: call, Store: store, Setting: r.setting, Value: value, Allowed: r.allowed, Rule: r.rule, Source: r.source}
}

// checkEf validates a breadth given by WithEf. Elasticsearch's lower
// bound is k, known only at search (checkEfK).
func checkEf(kind Kind, ef int) *KnobError {
	call := fmt.Sprintf("WithEf(%d)", ef)
	bad := ef < 1
	switch kind {
	case PGVector:
		bad = bad || ef > 1000
	case Elasticsearch:
		bad = bad || ef > NumCandidatesLimit
	}
	if !bad {
		return nil
	}
	return efRules[kind].err(call, kind, strconv.Itoa(ef))
}

// checkEfK is Elasticsearch's num_candidates ≥ k, checked when a search
// gives k; call is how the breadth was set (WithEf(5), or the profile's
// num_candidates=5).
func checkEfK(p Profile, call string, k int) *KnobError {
	if p.Kind != Elasticsearch || p.Ef == 0 || p.Ef >= k {
		return nil
	}
	r := efRules[Elasticsearch]
	e := r.err(fmt.Sprintf("%s with Search(q, %d)", call, k), Elasticsearch, strconv.Itoa(p.Ef))
	e.Allowed = fmt.Sprintf("k (%d)…%d", k, NumCandidatesLimit)
	return e
}

// checkOversample validates an oversample for the view or profile p;
// call is how it was given (WithOversample(2) or oversampling=2).
func checkOversample(p Profile, call string, x float64) *KnobError {
	kind := p.Kind
	v := strconv.FormatFloat(x, 'g', -1, 64)
	switch {
	case kind == Elasticsearch && (x == 0 || x >= 1 && !math.IsInf(x, 1)):
		return nil
	case kind == Qdrant && p.Quantization != "" && x >= 1 && !math.IsInf(x, 1):
		return nil
	}
	if _, ok := oversampleRules[kind]; !ok {
		return nil // an unknown kind is Validate's to report
	}
	return oversampleRules[kind].err(call, kind, v)
}

// rescoreRules are the stores' rules for params.quantization.rescore
// (Profile.Rescore, [Store.WithRescore]): Qdrant's with quantization.
var rescoreRules = map[Kind]knobRule{
	PGVector: {rule: "pgvector has no rescore setting: its HNSW scan ranks by float32 distances",
		source: "pgvector/pgvector v0.8.0 README.md \"Query Options\""},
	Redis: {rule: "Redis has no rescore setting for an HNSW field: its graph ranks by float32 distances",
		source: "RediSearch/RediSearch v2.10 docs \"Vector search\", HNSW query attributes"},
	Qdrant: {"params.quantization.rescore", "true, false (with quantization=int8 or binary)",
		"rescore is a boolean of a quantized search, and acts on a quantized collection only (set quantization=int8 or binary on the profile)",
		"qdrant/qdrant v1.19.0 lib/segment/src/types.rs QuantizationSearchParams; lib/segment/src/index/vector_index_search_common.rs postprocess_search_result"},
	Elasticsearch: {rule: "Elasticsearch has no rescore switch: rescore_vector.oversample 0 turns rescoring off (WithOversample(0))",
		source: "elastic/elasticsearch 9.1 server/src/main/java/org/elasticsearch/search/vectors/RescoreVectorBuilder.java"},
}

// checkRescore validates a rescore setting ("true" or "false") for p;
// call is how it was given (WithRescore(true) or rescore=…).
func checkRescore(p Profile, call, v string) *KnobError {
	r, ok := rescoreRules[p.Kind]
	if !ok {
		return nil // an unknown kind is Validate's to report
	}
	if p.Kind == Qdrant && p.Quantization != "" && (v == "true" || v == "false") {
		return nil
	}
	return r.err(call, p.Kind, strconv.Quote(v))
}

// searchErr is what a search of top-k on the view answers before it
// runs: the view's knob error, a k out of the store's range, or
// Elasticsearch's num_candidates below k. verb is the call as the caller
// wrote it, with a %d for k.
func (s *Store) searchErr(verb string, k int) error {
	if s.err != nil {
		return s.err
	}
	kind := s.p.Kind
	if k < 1 || kind == Elasticsearch && k > NumCandidatesLimit {
		return kRules[kind].err(fmt.Sprintf(verb, k), kind, strconv.Itoa(k))
	}
	call := s.efCall
	if call == "" {
		call = fmt.Sprintf("num_candidates=%d (the profile's)", s.p.Ef)
	}
	if e := checkEfK(s.p, call, k); e != nil {
		return e
	}
	return nil
}

// kRules are the stores' rules for a query's k, as the article's client
// sends it (Spring AI's topK): the LIMIT of pgvector's SELECT, the k of
// Redis's KNN clause, Qdrant's limit, Elasticsearch's k. Where the store
// would accept 0 (an empty answer) the lab asks for at least one
// document, and says so.
var kRules = map[Kind]knobRule{
	PGVector: {"LIMIT", "≥ 1",
		`PostgreSQL refuses a negative LIMIT ("LIMIT must not be negative") and answers LIMIT 0 with no rows; the lab asks for at least one`,
		"postgres/postgres REL_17 src/backend/executor/nodeLimit.c recompute_limits"},
	Redis: {"KNN k", "≥ 1",
		"the lab asks a KNN query for at least one document",
		"lab/profile Store.Search, as in RediSearch 2.10"},
	Qdrant: {"limit", "≥ 1",
		"the lab asks a search for at least one point (limit is an unsigned integer in Qdrant)",
		"lab/profile Store.Search, as in qdrant/qdrant v1.19"},
	Elasticsearch: {"k", fmt.Sprintf("1…%d", NumCandidatesLimit),
		fmt.Sprintf(`Elasticsearch refuses "[k] must be greater than 0", and k ≤ num_candidates ≤ %d`, NumCandidatesLimit),
		"elastic/elasticsearch 9.x server/src/main/java/org/elasticsearch/search/vectors/KnnSearchBuilder.java"},
}

// EfSetting is the store's own name for the query-time breadth that
// [Store.WithEf] sets: "hnsw.ef_search", "EF_RUNTIME", "hnsw_ef" or
// "num_candidates".
func (k Kind) EfSetting() string {
	if r, ok := efRules[k]; ok {
		return r.setting
	}
	return "ef"
}

// iterativeScanRules are the stores' rules for pgvector 0.8's
// hnsw.iterative_scan (Profile.IterativeScan, [Store.WithIterativeScan]):
// pgvector's alone; the other stores choose their filtered path
// themselves.
var iterativeScanRules = map[Kind]knobRule{
	PGVector: {"hnsw.iterative_scan", "off, relaxed_order, strict_order",
		`PostgreSQL refuses it: "invalid value for parameter "hnsw.iterative_scan"" (Available values: off, relaxed_order, strict_order)`,
		"pgvector/pgvector v0.8.0 src/hnsw.c DefineCustomEnumVariable(\"hnsw.iterative_scan\", …, hnsw_iterative_scan_options)"},
	Redis: {rule: "Redis has no iterative scan: its hybrid policy picks ADHOC_BF (exact over the matches) or BATCHES itself",
		source: "RediSearch/RediSearch v2.10 src/hybrid_reader.c"},
	Qdrant: {rule: "Qdrant has no iterative scan: its planner scores the matching points exactly or walks the graph over them",
		source: "qdrant/qdrant v1.19 lib/segment/src/index/hnsw_index/hnsw.rs"},
	Elasticsearch: {rule: "Elasticsearch has no iterative scan: a filtered kNN search filters inside the graph walk",
		source: "apache/lucene 10.3 lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java"},
}

// checkIterativeScan validates an hnsw.iterative_scan mode; call is how
// it was given (WithIterativeScan("…") or iterative_scan=…).
func checkIterativeScan(kind Kind, call, mode string) *KnobError {
	r, ok := iterativeScanRules[kind]
	if !ok {
		return nil // an unknown kind is Validate's to report
	}
	if kind != PGVector {
		return r.err(call, kind, mode)
	}
	switch mode {
	case "off", "relaxed_order", "strict_order":
		return nil
	}
	return r.err(call, kind, strconv.Quote(mode))
}

// fetchRules are the stores' rules for where a search reads each hit's
// id (Profile.Fetch, [Store.WithFetch]): Elasticsearch's alone; the
// other stores return their ids with the vector search.
var fetchRules = map[Kind]knobRule{
	PGVector: {rule: "pgvector has no fetch setting: the id is a column of the row the index scan returns",
		source: "pgvector/pgvector v0.8.0 README.md \"Querying\""},
	Redis: {rule: "Redis has no fetch setting: FT.SEARCH returns each hit's key with its score (RETURN 0 returns nothing else)",
		source: "RediSearch/RediSearch v2.10 docs \"FT.SEARCH\""},
	Qdrant: {rule: "Qdrant has no fetch setting: a point's id comes with its score (with_payload: false skips the payload)",
		source: "qdrant/qdrant v1.19 lib/segment/src/types.rs ScoredPoint"},
	Elasticsearch: {"fetch", "stored_fields, docvalue_fields",
		`a search reads each hit's _id from its stored fields (the default; "stored_fields": "_none_" turns that off) or a field from doc values ("docvalue_fields")`,
		"elastic/elasticsearch 9.x server/src/main/java/org/elasticsearch/search/fetch/FetchPhase.java, StoredFieldsContext.java"},
}

// checkFetch validates a fetch mode; call is how it was given
// (WithFetch("…") or fetch=…).
func checkFetch(kind Kind, call, mode string) *KnobError {
	r, ok := fetchRules[kind]
	if !ok {
		return nil // an unknown kind is Validate's to report
	}
	if kind != Elasticsearch {
		return r.err(call, kind, strconv.Quote(mode))
	}
	switch mode {
	case "stored_fields", "docvalue_fields":
		return nil
	}
	return r.err(call, kind, strconv.Quote(mode))
}

// payloadIndexRules are the stores' rules for Qdrant's payload indexes
// (Profile.PayloadIndex): Qdrant's alone, as the article's stores are
// set up by Spring AI.
var payloadIndexRules = map[Kind]knobRule{
	PGVector: {rule: "pgvector has no payload index: Spring AI's PgVectorStore keeps the metadata in a json column that the WHERE clause reads row by row",
		source: "spring-projects/spring-ai PgVectorStore.java (metadata json); pgvector/pgvector v0.8.0 README.md \"Filtering\""},
	Redis: {rule: "Redis has no payload index to add: the fields a filter may use are declared in the index schema (FT.CREATE … SCHEMA), see E09",
		source: "RediSearch/RediSearch v2.10 docs \"FT.CREATE\""},
	Qdrant: {"payload_index", "field names of the payload, comma-separated",
		"each PUT /collections/{name}/index names one field_name of the points' payload",
		"qdrant/qdrant v1.19 lib/collection/src/operations/types.rs CreateFieldIndex"},
	Elasticsearch: {rule: "Elasticsearch has no payload index to add: every mapped field is indexed",
		source: "elastic/elasticsearch 9.x docs \"Mapping\""},
}

// payloadIndexFields splits a payload_index list into its field names
// (a repeated name once: Qdrant answers a second create_payload_index on
// a field as done).
func payloadIndexFields(kind Kind, list string) ([]string, *KnobError) {
	call := "payload_index=" + list
	r, ok := payloadIndexRules[kind]
	if !ok || list == "" {
		return nil, nil
	}
	if kind != Qdrant {
		return nil, r.err(call, kind, list)
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			e := r.err(call, kind, strconv.Quote(list))
			e.Rule = "a field_name must not be empty: " + e.Rule
			return nil, e
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// IterativeScanSetting is pgvector's hnsw.iterative_scan as the store
// would SHOW it: the profile's value, "off" when unset.
func (p Profile) IterativeScanSetting() string {
	if p.IterativeScan == "" {
		return "off"
	}
	return p.IterativeScan
}
