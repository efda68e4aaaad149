package profile

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// FilterStrategy is the filtered-search strategy the store applies on its
// defaults: pgvector post-filters the ef_search rows its index scan yields
// (hnsw.iterative_scan = off, or the iterative scan the profile sets;
// pgvector/pgvector v0.8.0 README.md
// "Filtering", src/hnswscan.c), Redis follows its hybrid policy (ADHOC_BF or
// BATCHES; RediSearch/RediSearch v2.10 src/hybrid_reader.c), Qdrant its
// cardinality planner (qdrant/qdrant v1.19
// lib/segment/src/index/query_estimator.rs and hnsw_index/), and
// Elasticsearch filters inside the graph walk (apache/lucene 10.3
// lucene/core/src/java/org/apache/lucene/search/AbstractKnnVectorQuery.java).
func (p Profile) FilterStrategy() filtered.Strategy {
	switch p.Kind {
	case PGVector:
		switch p.IterativeScan { // hnsw.iterative_scan (Profile.IterativeScan)
		case "relaxed_order":
			return filtered.IterativeRelaxed
		case "strict_order":
			return filtered.IterativeStrict
		}
		return filtered.PostFilter
	case Redis:
		return filtered.RedisHybrid
	case Qdrant:
		return filtered.QdrantPlanner
	}
	return filtered.InGraph
}

// FilterPlan is the strategy a filtered top-k query over n documents of
// dim dimensions runs with: FilterStrategy, except where pgvector's
// PostgreSQL planner prefers a sequential scan to the index (see
// PgvectorPlan, with Spring AI's jsonpath filter) — exact search over the
// matching rows. plan describes PostgreSQL's choice ("" for the other
// stores).
func (p Profile) FilterPlan(n, dim, k int) (st filtered.Strategy, plan string, err error) {
	st = p.FilterStrategy()
	if p.Kind != PGVector || n == 0 {
		return st, "", nil
	}
	pl, err := p.PgvectorPlan(n, dim, k, SpringAIFilterSelectivity)
	if err != nil {
		return st, "", err
	}
	if !pl.IndexScan {
		st = filtered.Exact
	}
	return st, pl.String(), nil
}

// pgvector's and PostgreSQL's defaults for the iterative index scan
// (pgvector/pgvector v0.8.0 src/hnsw.c: hnsw.max_scan_tuples 20000,
// hnsw.scan_mem_multiplier 1; PostgreSQL 17 work_mem 4MB).
const (
	pgMaxScanTuples     = 20000
	pgWorkMemKB         = 4096
	pgScanMemMultiplier = 1
)

// FilterParams are the engine/filtered knobs of a top-k filtered query
// under the profile's breadth, every store default resolved here (the
// engine holds none): the beam of its plan (for Elasticsearch the
// num_candidates beam, and k' to rescore), pgvector's scan limits,
// Qdrant's full_scan_threshold as a vector count and the M Redis's
// heuristic is fed.
func (p Profile) FilterParams(k, dim int) filtered.Params {
	pl := p.Plan(k, dim)
	fp := filtered.Params{Ef: pl.Ef, RedisM: p.M}
	switch p.Kind {
	case PGVector:
		fp.Ef = max(p.Ef, 1) // ef_search as set: the scan is not widened to k
		fp.MaxScanTuples, fp.WorkMemKB, fp.ScanMemMultiplier = pgMaxScanTuples, pgWorkMemKB, pgScanMemMultiplier
	case Redis:
		fp.Ef = max(p.Ef, 1) // EF_RUNTIME as set: the hybrid policy applies VecSim's max(ef, k) where VecSim does
	case Qdrant:
		fp.FullScanThreshold = p.FullScanThreshold(dim)
	case Elasticsearch:
		fp.Rescore = pl.Rescore
	}
	return fp
}

// FullScanThreshold is Qdrant's full_scan_threshold in vectors of dim
// dimensions: FullScanThresholdKB of float32 vectors (at least 1; 0 for
// the other stores, which have none).
func (p Profile) FullScanThreshold(dim int) int {
	if p.Kind != Qdrant || dim < 1 {
		return 0
	}
	return max(p.FullScanThresholdKB*1024/(4*dim), 1)
}

// StrategyParams are the engine/filtered knobs of strategy s on the
// defaults of the store whose strategy it is (see [Profile.FilterStrategy]):
// pgvector's for the post-filter and the iterative scans, Redis's for its
// hybrid policy, Qdrant's for its planner. The strategies no store runs
// on its defaults here (exact, ACORN, and the in-graph walk outside an
// Elasticsearch plan) get zero knobs: the caller chooses their beam.
func StrategyParams(s filtered.Strategy, k, dim int) filtered.Params {
	switch s {
	case filtered.PostFilter, filtered.IterativeRelaxed, filtered.IterativeStrict:
		return Default(PGVector).FilterParams(k, dim)
	case filtered.RedisHybrid:
		return Default(Redis).FilterParams(k, dim)
	case filtered.QdrantPlanner:
		return Default(Qdrant).FilterParams(k, dim)
	}
	return filtered.Params{}
}

// Filtered binds the store's graph and vectors to metadata for filtered
// search with engine/filtered. The store must be searchable and hold its
// documents in one segment (Qdrant's default has 2: use a profile with
// segments=1), either all in its graph or, for a Qdrant
// segment under indexing_threshold, all in its plain part (the collection
// then has no graph and [Store.SearchFilter] searches it exactly, as
// Qdrant does). meta must describe the documents in key order. For Qdrant
// with payload indexes in meta (and payload_m > 0) the graph gets the
// payload-block links (see Profile.PayloadM).
func (s *Store) Filtered(meta *filter.Store) (*filtered.Collection, error) {
	if s.err != nil {
		return nil, s.err
	}
	c := s.c
	n := s.Len()
	var (
		graph *hnsw.Index
		keys  []uint64
		rows  *vec.Matrix
	)
	segs := c.coll.Segments()
	if len(segs) != 1 {
		return nil, fmt.Errorf("profile: %s: filtered search over %d segments is not emulated (use segments=1): %w", c.p.Kind, len(segs), engine.ErrInvalidArgument)
	}
	d, err := c.coll.Segment(0)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	keys, rows = d.Keys, d.Vectors
	graph, _ = d.Index.(*hnsw.Index)
	if len(keys) != n || graph != nil && graph.Len() != n {
		return nil, fmt.Errorf("profile: %s: %d of %d documents are searchable (wait until searchable): %w", c.p.Kind, len(keys), n, engine.ErrInvalidArgument)
	}
	for i, k := range keys {
		if k != uint64(i) {
			return nil, fmt.Errorf("profile: %s: segment row %d holds document %d: %w", c.p.Kind, i, k, engine.ErrCorrupt)
		}
	}
	if graph == nil {
		if c.p.Kind != Qdrant || n == 0 {
			return nil, fmt.Errorf("profile: %s: %d of %d documents are in the graph (wait until searchable): %w", c.p.Kind, 0, n, engine.ErrInvalidArgument)
		}
		// A Qdrant segment under indexing_threshold: plain, no graph.
		m := vec.NewMatrix(n, c.dim)
		for i := 0; i < n; i++ {
			copy(m.Row(i), rows.Row(i))
			if c.p.Metric == engine.Cosine {
				normalize(m.Row(i))
			}
		}
		coll, err := filtered.New(m, meta, filtered.Options{Metric: c.p.Metric, M: c.p.M})
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
		}
		return coll, nil
	}
	coll, err := filtered.New(graph.Vectors(), meta, filtered.Options{Metric: c.p.Metric, Graph: graph, M: c.p.M})
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	if cs := graph.Codes(); c.p.Kind == Elasticsearch && cs != nil && cs.Len() == coll.Len() {
		// Lucene's filtered walk over a quantized field scores the codes
		// (and so does its exact fallback); FilterParams rescores the
		// best oversample·k with float32.
		if coll, err = coll.WithCodes(cs); err != nil {
			return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
		}
	}
	if c.p.Kind == Qdrant && c.p.PayloadM > 0 && hasPayloadIndex(meta) {
		// Qdrant builds its payload-block links for every field indexed
		// before the HNSW build (hnsw/build.rs); the lab's metadata comes
		// with its indexes, so the graph gets them.
		if coll, err = c.payloadLinks(coll, graph, meta); err != nil {
			return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
		}
	}
	return coll, nil
}

// linksKey names one build of a Qdrant store's payload-block links: the
// graph they overlay (and its size), the build's settings, and a digest
// of what they are built from, every indexed field's payload blocks
// (condition and ids) at the threshold. Links are a function of these
// alone (engine/filtered BuildPayloadLinks), so equal keys mean equal
// links.
type linksKey struct {
	graph  *hnsw.Index
	n      int
	config string
	blocks [sha256.Size]byte
}

// payloadLinks returns coll with the store's payload-block links over
// graph for meta's payload indexes, built on the first call for a given
// set of indexed fields and values and reused afterwards. measure.Store
// binds the store to its metadata once per filter (each a new
// filter.Store from Profile.Payload, with the same indexes), and a build
// takes seconds to minutes at article scale (notebook 05: 8.5 s alone on
// two cores, 91 s under load); Qdrant itself builds them once, with the
// graph.
func (c *core) payloadLinks(coll *filtered.Collection, graph *hnsw.Index, meta *filter.Store) (*filtered.Collection, error) {
	cfg := filtered.PayloadLinksConfig{
		PayloadM: c.p.PayloadM, Threshold: c.p.FullScanThreshold(c.dim),
		EfConstruction: c.p.EfConstruction, Seed: c.p.Seed, Workers: c.p.Workers}
	key := linksKey{graph: graph, n: graph.Len(), config: fmt.Sprintf("payload_m=%d threshold=%d ef=%d seed=%d", cfg.PayloadM, cfg.Threshold, cfg.EfConstruction, cfg.Seed)}
	h := sha256.New()
	for _, f := range meta.Schema().Fields {
		if !meta.Indexed(f.Name) {
			continue
		}
		blocks, below, err := meta.PayloadBlocks(f.Name, cfg.Threshold)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "field %q below %d blocks %d\n", f.Name, below, len(blocks))
		for _, b := range blocks {
			fmt.Fprintf(h, "%s %d:", b.Cond, len(b.IDs))
			for _, id := range b.IDs {
				h.Write(binary.LittleEndian.AppendUint32(nil, uint32(id)))
			}
		}
	}
	h.Sum(key.blocks[:0])
	c.linksMu.Lock()
	defer c.linksMu.Unlock()
	if pg := c.links[key]; pg != nil {
		return filtered.New(graph.Vectors(), meta, filtered.Options{Metric: c.p.Metric, Graph: pg, M: c.p.M})
	}
	out, _, err := coll.WithPayloadLinks(cfg)
	if err != nil {
		return nil, err
	}
	pg, ok := out.Graph().(*filtered.PayloadGraph)
	if !ok {
		return nil, fmt.Errorf("payload links: the collection's graph is %T: %w", out.Graph(), engine.ErrCorrupt)
	}
	if c.links == nil {
		c.links = map[linksKey]*filtered.PayloadGraph{}
	}
	c.links[key] = pg
	return out, nil
}

// Payload returns the documents' metadata meta (in key order) as the
// store holds it, for [Store.Filtered]: Qdrant keeps each point's payload
// with a payload index on exactly the fields of Profile.PayloadIndex
// (none by default, as Spring AI creates the collection), each with the
// field_schema of its values (keyword, integer); pgvector keeps it in a
// json column with no index (Spring AI's PgVectorStore), which a filter
// reads row by row; Redis and Elasticsearch get meta as given (their
// declared, indexed fields). A payload_index field that is not in meta
// is an error naming the fields there are.
func (p Profile) Payload(meta *filter.Store) (*filter.Store, error) {
	if meta == nil {
		return nil, fmt.Errorf("profile: %s: Payload: no metadata: %w", p.Kind, engine.ErrInvalidArgument)
	}
	if p.Kind != Qdrant && p.Kind != PGVector {
		return meta, nil
	}
	fields, e := payloadIndexFields(p.Kind, p.PayloadIndex)
	if e != nil {
		return nil, e
	}
	var names []string
	for _, f := range meta.Schema().Fields {
		names = append(names, f.Name)
	}
	for _, f := range fields {
		if meta.Kind(f) == filter.KindNone {
			e := payloadIndexRules[Qdrant].err("payload_index="+p.PayloadIndex, Qdrant, f)
			e.Rule = fmt.Sprintf("the points' payload has no field %q (it has %s): %s", f, strings.Join(names, ", "), e.Rule)
			return nil, e
		}
	}
	st, err := filter.NewStore(filter.Schema{}) // schemaless, no index
	if err != nil {
		return nil, fmt.Errorf("profile: %s: %w", p.Kind, err)
	}
	docs := make([]filter.Doc, meta.Len())
	for i := range docs {
		pl, err := meta.Payload(engine.ID(i))
		if err != nil {
			return nil, fmt.Errorf("profile: %s: payload of document %d: %w", p.Kind, i, err)
		}
		docs[i] = filter.Doc{Key: meta.Key(engine.ID(i)), Meta: pl}
	}
	if _, err := st.Add(docs...); err != nil {
		return nil, fmt.Errorf("profile: %s: %w", p.Kind, err)
	}
	for _, f := range fields {
		if err := st.CreateIndex(f, meta.Kind(f)); err != nil {
			return nil, fmt.Errorf("profile: %s: payload_index %s: %w", p.Kind, f, err)
		}
	}
	return st, nil
}

// hasPayloadIndex reports whether any field of meta has a payload index.
func hasPayloadIndex(meta *filter.Store) bool {
	for _, f := range meta.Schema().Fields {
		if meta.Indexed(f.Name) {
			return true
		}
	}
	return false
}

// PayloadLinks returns what the Qdrant payload-block links of coll (from
// [Store.Filtered]) hold, and false when its graph has none.
func PayloadLinks(coll *filtered.Collection) (filtered.PayloadLinksReport, bool) {
	if pg, ok := coll.Graph().(*filtered.PayloadGraph); ok {
		return pg.Report(), true
	}
	return filtered.PayloadLinksReport{}, false
}

// SearchFilter runs a filtered top-k query on coll (from [Store.Filtered])
// with the view's strategy and breadth; a store whose segment has no graph
// (Qdrant under indexing_threshold) is searched exactly over the matching
// documents. Result IDs are document keys.
func (s *Store) SearchFilter(coll *filtered.Collection, q []float32, k int, f *filter.Compiled) ([]engine.Result, filtered.Stats, error) {
	if e := s.searchErr("SearchFilter(coll, q, %d, f)", k); e != nil {
		return nil, filtered.Stats{}, e
	}
	p := s.Profile()
	st := p.FilterStrategy()
	if s.Indexed() == 0 {
		st = filtered.Exact
	}
	if f != nil && st != filtered.Exact {
		var err error
		if st, _, err = p.FilterPlan(s.Len(), s.c.dim, k); err != nil {
			return nil, filtered.Stats{}, err
		}
	}
	return coll.Search(filtered.Request{Query: q, K: k, Filter: f, Strategy: st, Params: p.FilterParams(k, s.c.dim)})
}
