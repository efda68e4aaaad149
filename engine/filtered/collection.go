package filtered

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/vec"
)

// Graph is the read-only view of an HNSW graph the strategies walk.
// *hnsw.Index implements it, and so does the ACORN graph of this package.
type Graph interface {
	Len() int
	MaxLevel() int // -1 when empty
	EntryPoint() engine.ID
	// Neighbors returns id's links on level (read-only, not retained).
	Neighbors(level int, id engine.ID) []engine.ID
}

// Strategy names a filtered-search strategy.
type Strategy uint8

// The strategies.
const (
	Exact            Strategy = iota // brute force over the matching set: the truth
	PostFilter                       // pgvector, iterative_scan = off: ef nearest, then the filter
	IterativeRelaxed                 // pgvector 0.8 hnsw.iterative_scan = relaxed_order
	IterativeStrict                  // pgvector 0.8 hnsw.iterative_scan = strict_order
	InGraph                          // hnswlib / Lucene: traverse non-matching nodes, collect matching ones
	QdrantPlanner                    // Qdrant: cardinality estimate → exact, filtered graph or sampling
	RedisHybrid                      // RediSearch: preferAdHocSearch → ADHOC_BF or BATCHES (→ ADHOC_BF)
	ACORNGamma                       // ACORN-γ over the dense ACORN graph
	ACORN1                           // ACORN-1: two-hop expansion over the ordinary graph
	// The paths a planner can take, reported in Stats.Path.
	QdrantGraph   // Qdrant's filtered graph search (non-matching neighbours never scored)
	RedisAdHoc    // RediSearch ADHOC_BF
	RedisBatches  // RediSearch BATCHES
	RedisToAdHoc  // RediSearch BATCHES_TO_ADHOC_BF
	numStrategies // sentinel
)

var strategyNames = [...]string{
	Exact: "exact", PostFilter: "postfilter", IterativeRelaxed: "iterative-relaxed",
	IterativeStrict: "iterative-strict", InGraph: "in-graph", QdrantPlanner: "qdrant",
	RedisHybrid: "redis", ACORNGamma: "acorn-gamma", ACORN1: "acorn-1",
	QdrantGraph: "qdrant-graph", RedisAdHoc: "redis-adhoc-bf", RedisBatches: "redis-batches",
	RedisToAdHoc: "redis-batches-to-adhoc-bf",
}

// String returns the strategy's name as ParseStrategy reads it.
func (s Strategy) String() string {
	if s < numStrategies {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", s)
}

// ParseStrategy reads a strategy name.
func ParseStrategy(name string) (Strategy, error) {
	for i, n := range strategyNames {
		if n == strings.ToLower(strings.TrimSpace(name)) {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("filtered: unknown strategy %q (want one of %s): %w", name, strings.Join(Strategies(), ", "), engine.ErrInvalidArgument)
}

// Strategies lists the selectable strategies' names.
func Strategies() []string {
	out := make([]string, 0, ACORN1+1)
	for s := Exact; s <= ACORN1; s++ {
		out = append(out, s.String())
	}
	return out
}

// Params are the per-search knobs. Zero fields take the defaults noted.
type Params struct {
	// Ef is the search beam, resolved by the caller: pgvector's
	// hnsw.ef_search for PostFilter and the iterative scans, the in-graph
	// beam (Elasticsearch's num_candidates), Qdrant's hnsw_ef, Redis's
	// EF_RUNTIME (the strategy takes max(ef, k), as VecSim does) and
	// ACORN's efSearch. The stores' defaults (40, ef_construct, 10, …)
	// are lab/profile's, not this package's: 0 is the engine's own
	// neutral default, k, the narrowest beam that can hold k results.
	Ef int

	// MaxScanTuples is pgvector's hnsw.max_scan_tuples: the iterative
	// scan stops exploring after that many elements (0: no limit; the
	// store's 20,000 comes from lab/profile).
	MaxScanTuples int
	// WorkMemKB is PostgreSQL's work_mem in KB and ScanMemMultiplier
	// pgvector's hnsw.scan_mem_multiplier: the iterative scan stops
	// exploring when its modelled memory exceeds their product. WorkMemKB
	// 0 sets no memory limit, ScanMemMultiplier 0 is 1 (the stores'
	// 4,096 KB and 1 come from lab/profile).
	WorkMemKB         int
	ScanMemMultiplier int
	// ScanBytesPerTuple models the scan memory one visited element holds
	// (visited-hash entry, candidate and discarded-heap node). Default 64.
	ScanBytesPerTuple int

	// FullScanThreshold is Qdrant's full_scan_threshold as a vector count:
	// a filter whose cardinality is judged below it is searched exactly.
	// The QdrantPlanner strategy requires it (the planner is a comparison
	// with it, and the engine does not guess a store's value: Qdrant's
	// default, 10,000 KB of float32 vectors, comes from lab/profile).
	FullScanThreshold int
	// SampleSeed seeds Qdrant's cardinality sampling (deterministic).
	SampleSeed uint64

	// RedisPolicy forces RediSearch's HYBRID_POLICY: "" (the heuristic),
	// "adhoc_bf" or "batches". RedisBatchSize fixes BATCH_SIZE (0 = the
	// n_left·N/estimate + 1 rule).
	RedisPolicy    string
	RedisBatchSize int
	// RedisM is the M fed to preferAdHocSearch (0: the collection's M,
	// Options.M).
	RedisM int

	// Rescore is how many of the nearest candidates by quantized score are
	// rescored with the float32 vectors when the collection has a code
	// store ([Collection.WithCodes]): Elasticsearch's k' = ⌈oversample·k⌉
	// (rescore_vector.oversample, 3 for bbq_hnsw on 9.1+). 0 returns the k
	// nearest by quantized score, unrescored; a value below k rescores k.
	// Only the in-graph strategy scores with codes.
	Rescore int

	// EntrySeeds adds this many matching documents, spread evenly over the
	// matching set, as extra layer-0 entry points of the ACORN searches: a
	// predicate-aware entry (Weaviate seeds its ACORN search from the allow
	// list). 0 is the paper's single entry point.
	EntrySeeds int

	// ACORNNeighbourhood selects which passing members of a node's
	// (two-hop) neighbourhood count toward its truncation (see
	// ACORNNeighbourhood); the zero value is the authors' code.
	ACORNNeighbourhood ACORNNeighbourhood
}

// withDefaults fills the engine's own neutral values; a store's defaults
// come resolved from lab/profile (FilterParams).
func (p Params) withDefaults(m int) Params {
	if p.MaxScanTuples == 0 {
		p.MaxScanTuples = math.MaxInt // no limit
	}
	if p.WorkMemKB == 0 {
		p.WorkMemKB = math.MaxInt / (1024 * max(p.ScanMemMultiplier, 1)) // no limit
	}
	if p.ScanMemMultiplier == 0 {
		p.ScanMemMultiplier = 1
	}
	if p.ScanBytesPerTuple == 0 {
		p.ScanBytesPerTuple = 64
	}
	if p.RedisM == 0 {
		p.RedisM = m
	}
	return p
}

// Validate reports every bad knob at once.
func (p Params) Validate() error {
	var bad []string
	if p.Ef < 0 {
		bad = append(bad, fmt.Sprintf("ef %d < 0", p.Ef))
	}
	if p.MaxScanTuples < 0 || p.WorkMemKB < 0 || p.ScanMemMultiplier < 0 || p.ScanBytesPerTuple < 0 {
		bad = append(bad, "negative pgvector scan limit")
	}
	if p.FullScanThreshold < 0 {
		bad = append(bad, fmt.Sprintf("full_scan_threshold %d < 0", p.FullScanThreshold))
	}
	switch p.RedisPolicy {
	case "", "adhoc_bf", "batches":
	default:
		bad = append(bad, fmt.Sprintf("redis policy %q (want adhoc_bf or batches)", p.RedisPolicy))
	}
	if p.RedisPolicy == "adhoc_bf" && p.RedisBatchSize > 0 {
		bad = append(bad, "redis policy adhoc_bf with a batch size (RediSearch refuses it)")
	}
	if p.RedisBatchSize < 0 || p.RedisM < 0 || p.EntrySeeds < 0 {
		bad = append(bad, "negative redis batch size, M or entry seeds")
	}
	if p.Rescore < 0 {
		bad = append(bad, fmt.Sprintf("rescore %d < 0", p.Rescore))
	}
	if p.ACORNNeighbourhood > ACORNNewOnly {
		bad = append(bad, fmt.Sprintf("ACORN neighbourhood %d (want authors, paper or new-only)", p.ACORNNeighbourhood))
	}
	if len(bad) > 0 {
		return fmt.Errorf("filtered: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the non-zero knobs.
func (p Params) String() string {
	return fmt.Sprintf("ef=%d max_scan_tuples=%d work_mem_kb=%d scan_mem_multiplier=%d full_scan_threshold=%d redis_policy=%q redis_batch=%d rescore=%d",
		p.Ef, p.MaxScanTuples, p.WorkMemKB, p.ScanMemMultiplier, p.FullScanThreshold, p.RedisPolicy, p.RedisBatchSize, p.Rescore)
}

// Stats are one search's counters.
type Stats struct {
	engine.SearchStats
	PayloadChecks int      // stored payloads decoded to evaluate the filter
	Tuples        int      // rows the index emitted to the filter (pgvector scans, Redis batches)
	Batches       int      // iterative-scan or Redis batches
	Path          Strategy // what actually ran (a planner's choice, or a fallback)
	Estimate      filter.Cardinality
	Elapsed       time.Duration // wall time of the search
	// Rescored counts the float32 distances computed to rescore candidates
	// found by quantized score (in-graph strategy over a code store); they
	// are included in DistComps, whose remainder are quantized scores.
	Rescored int
}

// Collection is vectors + metadata + graphs for filtered search.
type Collection struct {
	vectors *vec.Matrix // normalised under Cosine, as the graph was built
	metric  engine.Metric
	dist    vec.DistFunc
	meta    *filter.Store
	graph   Graph            // the ordinary HNSW graph (nil: graph strategies unavailable)
	acorn   *ACORN           // the ACORN-γ graph (nil: ACORNGamma unavailable)
	m       int              // M of graph, for ACORN-1's truncation (default 16)
	codes   engine.CodeStore // quantized scores for the in-graph strategy (nil: float32)
	plan    Plan             // what Query runs
	pool    sync.Pool        // of *search
}

// Plan is what [Collection.Query] maps an engine.Request onto: a strategy
// and its knobs. A request's Breadth, when set, replaces Params.Ef.
type Plan struct {
	Strategy Strategy
	Params   Params
}

// String prints the plan.
func (p Plan) String() string { return p.Strategy.String() + " " + p.Params.String() }

// Options are the parts of a Collection beyond vectors and metadata.
type Options struct {
	Metric engine.Metric
	Graph  Graph  // the HNSW graph over the same ids (e.g. an *hnsw.Index)
	ACORN  *ACORN // optional ACORN-γ graph (BuildACORN)
	M      int    // the graph's M (default 16): ACORN-1 truncates expansions to 2·M
	// Codes, when set, holds a quantized code for every document (an
	// engine/quant Store, e.g. the one an Elasticsearch bbq_hnsw graph
	// searches with): the in-graph strategy then scores with it and
	// rescores with the float32 vectors (Params.Rescore), as Lucene does.
	Codes engine.CodeStore
	// Plan is what Query runs; nil means the in-graph strategy (hnswlib's
	// and Lucene's filtered search) when there is a graph, exact search
	// over the matching set when there is none, with default knobs.
	Plan *Plan
}

// New binds vectors (row i = document i, normalised under Cosine), their
// metadata (meta.Len() must equal the number of rows) and graphs.
func New(vectors *vec.Matrix, meta *filter.Store, o Options) (*Collection, error) {
	if vectors == nil || meta == nil {
		return nil, fmt.Errorf("filtered: filtered.New needs vectors and a metadata store: %w", engine.ErrInvalidArgument)
	}
	if !o.Metric.Valid() {
		return nil, fmt.Errorf("filtered: metric %v: %w", o.Metric, engine.ErrInvalidArgument)
	}
	if meta.Len() != vectors.N {
		return nil, fmt.Errorf("filtered: %d vectors but %d metadata records: %w", vectors.N, meta.Len(), engine.ErrInvalidArgument)
	}
	if o.Graph != nil && o.Graph.Len() != vectors.N {
		return nil, fmt.Errorf("filtered: graph has %d nodes, collection %d vectors: %w", o.Graph.Len(), vectors.N, engine.ErrInvalidArgument)
	}
	if o.ACORN != nil && o.ACORN.Len() != vectors.N {
		return nil, fmt.Errorf("filtered: ACORN graph has %d nodes, collection %d vectors: %w", o.ACORN.Len(), vectors.N, engine.ErrInvalidArgument)
	}
	if o.Codes != nil && o.Codes.Len() != vectors.N {
		return nil, fmt.Errorf("filtered: code store has %d codes, collection %d vectors: %w", o.Codes.Len(), vectors.N, engine.ErrInvalidArgument)
	}
	if o.M == 0 {
		o.M = 16
	}
	plan := Plan{Strategy: Exact}
	if o.Graph != nil {
		plan.Strategy = InGraph
	}
	if o.Plan != nil {
		plan = *o.Plan
		if err := plan.Params.Validate(); err != nil {
			return nil, fmt.Errorf("filtered: query plan: %w", err)
		}
		if err := checkStrategy(plan.Strategy, o.Graph != nil, o.ACORN != nil); err != nil {
			return nil, fmt.Errorf("filtered: query plan: %w", err)
		}
		if err := checkKnobs(plan.Strategy, plan.Params); err != nil {
			return nil, fmt.Errorf("filtered: query plan: %w", err)
		}
	}
	return &Collection{vectors: vectors, metric: o.Metric, dist: vec.Distance(o.Metric), meta: meta, graph: o.Graph, acorn: o.ACORN, m: o.M, codes: o.Codes, plan: plan}, nil
}

// checkStrategy reports whether s is selectable on a collection with (or
// without) a graph and an ACORN graph.
func checkStrategy(s Strategy, graph, acorn bool) error {
	if s > ACORN1 {
		return fmt.Errorf("filtered: strategy %v is a planner path, not selectable: %w", s, engine.ErrInvalidArgument)
	}
	// Qdrant without an HNSW graph (a segment below indexing_threshold, or
	// m = 0) searches plainly: no graph needed.
	needGraph := s != Exact && s != QdrantPlanner
	if needGraph && !graph && s != ACORNGamma {
		return fmt.Errorf("filtered: strategy %v needs a graph and the collection has none: %w", s, engine.ErrInvalidArgument)
	}
	if s == ACORNGamma && !acorn {
		return fmt.Errorf("filtered: strategy acorn-gamma needs an ACORN graph (BuildACORN): %w", engine.ErrInvalidArgument)
	}
	return nil
}

// checkKnobs reports a knob strategy s cannot run without.
func checkKnobs(s Strategy, p Params) error {
	if s == QdrantPlanner && p.FullScanThreshold < 1 {
		return fmt.Errorf("filtered: strategy qdrant needs Params.FullScanThreshold (Qdrant's full_scan_threshold in vectors; lab/profile resolves its default): %w", engine.ErrInvalidArgument)
	}
	return nil
}

// WithPlan returns a collection over the same vectors, metadata, graphs
// and codes whose Query runs plan.
func (c *Collection) WithPlan(plan Plan) (*Collection, error) {
	return New(c.vectors, c.meta, c.options(&plan))
}

// Plan returns what Query runs.
func (c *Collection) Plan() Plan { return c.plan }

func (c *Collection) options(plan *Plan) Options {
	return Options{Metric: c.metric, Graph: c.graph, ACORN: c.acorn, M: c.m, Codes: c.codes, Plan: plan}
}

// WithCodes returns a collection over the same vectors, metadata and graphs
// whose in-graph strategy scores with the quantized codes of cs (one per
// document, in id order) and rescores with the float32 vectors: Lucene's
// filtered HNSW search over a quantized field, and its exact fallback over
// the matching set, which in Lucene also scores the quantized codes (the
// flat vectors reader of bbq/int8 fields scores codes), followed by
// Elasticsearch's rescoring of the best ⌈oversample·k⌉ (Params.Rescore).
// The other strategies keep scoring with float32. cs nil gives a copy
// without codes.
func (c *Collection) WithCodes(cs engine.CodeStore) (*Collection, error) {
	o := c.options(&c.plan)
	o.Codes = cs
	return New(c.vectors, c.meta, o)
}

// Codes returns the code store the in-graph strategy scores with (nil:
// float32).
func (c *Collection) Codes() engine.CodeStore { return c.codes }

// Graph returns the HNSW graph the collection walks (nil when none), so a
// caller can reach what the graph carries (an *hnsw.Index's Codes()).
func (c *Collection) Graph() Graph { return c.graph }

// Len returns the number of documents.
func (c *Collection) Len() int { return c.vectors.N }

// Meta returns the metadata store.
func (c *Collection) Meta() *filter.Store { return c.meta }

// Request is one filtered search.
type Request struct {
	Query    []float32
	K        int
	Filter   *filter.Compiled // nil: no filter (everything matches)
	Strategy Strategy
	Params   Params
}

// Search runs one request. A filter matching nothing gives no results and
// no error; k larger than the matching set gives fewer results.
func (c *Collection) Search(r Request) ([]engine.Result, Stats, error) {
	var f matcher
	if r.Filter != nil { // a nil *Compiled must stay a nil matcher
		f = r.Filter
	}
	return c.run(r.Query, r.K, f, r.Strategy, r.Params)
}

func (c *Collection) run(query []float32, k int, f matcher, strategy Strategy, params Params) ([]engine.Result, Stats, error) {
	var st Stats
	if err := engine.CheckK(k); err != nil {
		return nil, st, err
	}
	if err := engine.CheckVector(query, c.vectors.Dim, c.metric); err != nil {
		return nil, st, fmt.Errorf("filtered: query: %w", err)
	}
	if err := params.Validate(); err != nil {
		return nil, st, err
	}
	if cf, ok := f.(*filter.Compiled); ok && cf.Len() != c.vectors.N {
		return nil, st, fmt.Errorf("filtered: filter compiled against %d documents, collection has %d (recompile after inserts): %w", cf.Len(), c.vectors.N, engine.ErrInvalidArgument)
	}
	if err := checkStrategy(strategy, c.graph != nil, c.acorn != nil); err != nil {
		return nil, st, err
	}
	if err := checkKnobs(strategy, params); err != nil {
		return nil, st, err
	}
	q := append([]float32(nil), query...)
	if c.metric == engine.Cosine {
		if err := vec.Normalize(q); err != nil {
			return nil, st, fmt.Errorf("filtered: query: %w", err)
		}
	}
	if c.vectors.N == 0 {
		return nil, st, nil
	}
	p := params.withDefaults(c.m)
	if f != nil {
		f.ResetCounters()
		st.Estimate = f.Estimate()
	} else {
		st.Estimate = filter.Cardinality{Min: c.vectors.N, Exp: c.vectors.N, Max: c.vectors.N}
	}
	s := c.newSearch(q, f, &st)
	defer c.putSearch(s)
	st.Path = strategy
	ef := p.Ef
	if ef == 0 {
		ef = k // the engine's neutral beam; a store's default comes resolved from lab/profile
	}
	start := time.Now()
	var res []engine.Result
	switch strategy {
	case Exact:
		res = s.exact(k)
	case PostFilter:
		res = s.postFilter(k, ef)
	case IterativeRelaxed, IterativeStrict:
		res = s.iterative(k, ef, strategy == IterativeStrict, p)
	case InGraph:
		if c.codes != nil {
			sc, err := c.codes.NewQueryScorer(q)
			if err != nil {
				return nil, st, fmt.Errorf("filtered: query: %w", err)
			}
			s.sc = sc
		}
		res = s.inGraph(k, ef, p.Rescore)
	case QdrantPlanner:
		res = s.qdrant(k, ef, p)
	case RedisHybrid:
		res = s.redis(k, ef, p)
	case ACORNGamma:
		res = s.acornSearch(c.acorn, k, ef, c.acorn.cfg.M, c.acorn.cfg.MBeta, false, p)
	case ACORN1:
		res = s.acornSearch(c.graph, k, ef, c.m, 0, true, p)
	}
	st.Elapsed = time.Since(start)
	if f != nil {
		st.PayloadChecks = f.PayloadChecks()
	}
	return res, st, nil
}
