package profile

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
)

// PostgreSQL's planner decides whether pgvector's HNSW index is used at
// all: a filtered top-k query (ORDER BY embedding <=> $1 LIMIT k with a
// WHERE clause) is either an index scan that yields rows in distance order
// and filters them, or a sequential scan that filters every row, computes
// the distance of those that pass and keeps the k nearest in a top-N sort —
// exact search. pgvector 0.8 charges the index scan a startup cost that
// grows with hnsw.ef_search, so a large ef_search can make the sequential
// scan cheaper: the article's "ef_search 1000 → 10 hits, recall 1.000,
// 28 ms" row is that exact plan, not a wider graph walk.
//
// The model below follows, for the two paths of that query:
//   - pgvector 0.8 src/hnsw.c hnswcostestimate (startup ratio from the
//     entry level, m and ef_search; its TOAST adjustment);
//   - PostgreSQL src/backend/utils/adt/selfuncs.c genericcostestimate (index
//     pages × random_page_cost + index tuples × (cpu_index_tuple_cost +
//     one order-by operator));
//   - src/backend/optimizer/path/costsize.c cost_index (heap pages by
//     Mackert–Lohman, index_pages_fetched, uncorrelated), cost_seqscan,
//     cost_sort (bounded top-N heap sort) and the LIMIT interpolation of
//     adjust_limit_rows_costs;
//
// with PostgreSQL's default cost constants, for Spring AI's statement
// (PgVectorStore's similaritySearchSqlTemplate): SELECT *, embedding <=> $1
// AS distance … WHERE embedding <=> $1 < $2 AND metadata::jsonb @@
// '…'::jsonpath ORDER BY distance LIMIT k — the distance threshold is part
// of every query, and of the planner's row estimate. lab/pglive runs the
// same statement on a real PostgreSQL; the model's costs match its EXPLAIN
// (TestPgvectorPlanMatchesPostgreSQL). Page counts come from the row
// and index tuple layouts (see PgPages). It models the plan choice, not
// PostgreSQL: no parallel plans, no bitmap scans (the metadata has no
// index), default planner settings.

// PostgreSQL's default planner cost constants (costsize.h / guc).
const (
	pgSeqPageCost       = 1.0
	pgRandomPageCost    = 4.0
	pgCPUTupleCost      = 0.01
	pgCPUIndexTupleCost = 0.005
	pgCPUOperatorCost   = 0.0025
	pgEffectiveCache    = 524288 // effective_cache_size 4 GB in 8 kB pages
	pgPageSize          = 8192
	pgPageHeader        = 24
	pgToastThreshold    = 2032 // TOAST_TUPLE_THRESHOLD for 8 kB pages
)

// SpringAIFilterSelectivity is the selectivity PostgreSQL assumes for
// Spring AI's filter, metadata::jsonb @@ '…'::jsonpath: an expression with
// no statistics, estimated by matchingsel's default (DEFAULT_MATCHING_SEL,
// selfuncs.h) whatever the filter really matches.
const SpringAIFilterSelectivity = 0.010

// SpringAIThresholdSelectivity is the selectivity PostgreSQL assumes for
// the distance threshold every Spring AI query carries, WHERE embedding
// <=> $1 < $2 (PgVectorStore's similaritySearchSqlTemplate; $2 = 1 −
// similarityThreshold = 1 by default): an inequality on an expression
// without statistics, scalarltsel's DEFAULT_INEQ_SEL (selfuncs.h). It
// multiplies the filter's, so the planner expects a third of the rows it
// would without it — which makes the index scan's LIMIT share three times
// larger. Measured on PostgreSQL 17.5 + pgvector 0.8.0 (lab/pglive): 100
// rows estimated for the article's filter on 30,000 rows, not 300.
const SpringAIThresholdSelectivity = 1.0 / 3

// PgRowExtraBytes is what a Spring AI vector_store row holds besides its
// uuid and vector: the document text and its JSON metadata (short here, as
// the article's synthetic documents). It only decides rows per page.
const PgRowExtraBytes = 96

// PgPlan is the plan PostgreSQL picks for pgvector's top-k query.
type PgPlan struct {
	IndexScan bool // the HNSW index scan (else Seq Scan → top-N Sort: exact)
	// IndexCost and SeqCost are the total costs of the two Limit paths in
	// PostgreSQL cost units (1 = one sequential page read).
	IndexCost, SeqCost float64
	// StartupRatio is pgvector's share of the index's cost charged before
	// its first row: the part that grows with ef_search.
	StartupRatio float64
	// Rows is the planner's estimate of rows passing the WHERE clause.
	Rows                   float64
	TablePages, IndexPages int
	SeqScanOff             bool // enable_seqscan = off forced the index
}

// String names the plan with both costs, e.g. "index scan (cost 2,613 vs
// seq scan 7,957)".
func (pl PgPlan) String() string {
	if pl.IndexScan {
		off := ""
		if pl.SeqScanOff && pl.IndexCost > pl.SeqCost {
			off = ", kept by enable_seqscan = off"
		}
		return fmt.Sprintf("index scan (cost %.0f vs seq scan %.0f%s)", pl.IndexCost, pl.SeqCost, off)
	}
	return fmt.Sprintf("seq scan + top-N sort (cost %.0f vs index scan %.0f)", pl.SeqCost, pl.IndexCost)
}

// PgPages estimates the heap and HNSW index sizes in 8 kB pages of n rows
// of dim-dimensional vectors with links per node m: heap rows of a 24-byte
// tuple header, a uuid, the vector (varlena, 8 + 4·dim bytes; moved to
// TOAST above TOAST_TUPLE_THRESHOLD, leaving an 18-byte pointer) and
// PgRowExtraBytes; index pages holding pgvector's element tuple (heap tids,
// the vector) and its layer-0 neighbour tuple (2·m item pointers) side by
// side, plus the metapage.
func PgPages(n, dim, m int) (table, index int) {
	if n <= 0 {
		return 0, 0
	}
	vecBytes := 8 + 4*dim
	row := 24 + 16 + vecBytes + PgRowExtraBytes
	if row > pgToastThreshold {
		row = 24 + 16 + 18 + PgRowExtraBytes
	}
	perPage := max(1, (pgPageSize-pgPageHeader)/(maxAlign(row)+4))
	table = (n + perPage - 1) / perPage
	elem := 8 + 10*6 + 6 + 2 + vecBytes // HnswElementTupleData: flags, heaptids[10], neighbortid, vector
	neigh := 8 + 2*m*6                  // HnswNeighborTupleData at layer 0
	perIdx := max(1, (pgPageSize-pgPageHeader-16)/(maxAlign(elem)+4+maxAlign(neigh)+4))
	index = 1 + (n+perIdx-1)/perIdx
	return table, index
}

func maxAlign(b int) int { return (b + 7) &^ 7 }

// PgvectorPlan returns the plan of a top-k query over n rows of dim
// dimensions under the profile's m and hnsw.ef_search, for a WHERE clause
// of estimated selectivity filterSel (1: no filter; Spring AI's jsonpath
// filter: SpringAIFilterSelectivity) beside Spring AI's distance threshold
// (SpringAIThresholdSelectivity). It is an error for a profile other than
// pgvector.
func (p Profile) PgvectorPlan(n, dim, k int, filterSel float64) (PgPlan, error) {
	var pl PgPlan
	switch {
	case p.Kind != PGVector:
		return pl, fmt.Errorf("profile: PgvectorPlan: profile %s is not pgvector: %w", p.Kind, engine.ErrInvalidArgument)
	case n < 1 || dim < 1 || k < 1:
		return pl, fmt.Errorf("profile: PgvectorPlan: n %d, dim %d and k %d must be positive: %w", n, dim, k, engine.ErrInvalidArgument)
	case !(filterSel > 0 && filterSel <= 1):
		return pl, fmt.Errorf("profile: PgvectorPlan: filter selectivity %v outside (0, 1]: %w", filterSel, engine.ErrInvalidArgument)
	case p.M < 2 || p.Ef < 1:
		return pl, fmt.Errorf("profile: PgvectorPlan: m %d and ef_search %d: %w", p.M, p.Ef, engine.ErrInvalidArgument)
	}
	N := float64(n)
	pl.TablePages, pl.IndexPages = PgPages(n, dim, p.M)
	T, I := float64(pl.TablePages), float64(pl.IndexPages)
	pl.Rows = math.Max(1, math.Round(N*filterSel*SpringAIThresholdSelectivity))
	// Per-row cost of the WHERE clause (cost_qual_eval): Spring AI's
	// threshold is two operators (<=> and <); its filter three more, the
	// json→jsonb cast being an I/O coercion (json_out, then jsonb_in) and
	// the @@ operator.
	qual := 2 * pgCPUOperatorCost
	if filterSel < 1 {
		qual += 3 * pgCPUOperatorCost
	}

	// genericcostestimate: no index quals, so every index tuple and page.
	indexTotal := I*pgRandomPageCost + N*(pgCPUIndexTupleCost+pgCPUOperatorCost)
	// hnswcostestimate (pgvector 0.8).
	ml := 1 / math.Log(float64(p.M))
	entryLevel := math.Floor(math.Log(N) * ml)
	layer0Max := float64(2*p.M) * float64(p.Ef)
	layer0Sel := 0.55 * math.Log(N) / (math.Log(float64(p.M)) * (1 + math.Log(float64(p.Ef))))
	ratio := math.Min(1, (entryLevel*float64(p.M)+layer0Max*layer0Sel)/N)
	pl.StartupRatio = ratio
	indexStartup := indexTotal * ratio
	if startupPages := I * ratio; startupPages > T && ratio < 0.5 {
		indexStartup -= startupPages * (pgRandomPageCost - pgSeqPageCost)
		indexStartup -= (startupPages - T) * pgSeqPageCost
	}
	// cost_index: every heap tuple fetched in index order (selectivity 1),
	// uncorrelated, pages by Mackert–Lohman with the whole cache.
	heapPages := mackertLohman(N, T, pgEffectiveCache)
	indexPathTotal := indexTotal + heapPages*pgRandomPageCost + N*(pgCPUTupleCost+qual)
	pl.IndexCost = limitCost(indexStartup, indexPathTotal, pl.Rows, float64(k))

	// Seq Scan (filter every row, compute the distance of those passing)
	// under a bounded top-N Sort.
	seqTotal := T*pgSeqPageCost + N*(pgCPUTupleCost+qual) + pl.Rows*pgCPUOperatorCost
	pl.SeqCost = seqTotal + sortCost(pl.Rows, float64(k))
	// enable_seqscan = off adds disable_cost to the sequential path.
	pl.SeqScanOff = p.SeqScanOff
	pl.IndexScan = pl.IndexCost <= pl.SeqCost || p.SeqScanOff
	return pl, nil
}

// mackertLohman is index_pages_fetched (costsize.c) for one loop: pages of
// a T-page table touched by fetching n tuples in random order with b pages
// of cache.
func mackertLohman(n, T, b float64) float64 {
	var pages float64
	if T <= b {
		pages = math.Min(2*T*n/(2*T+n), T)
	} else {
		lim := 2 * T * b / (2*T - b)
		if n <= lim {
			pages = 2 * T * n / (2*T + n)
		} else {
			pages = b + (n-lim)*(T-b)/T
		}
	}
	return math.Ceil(pages)
}

// sortCost is cost_sort's comparison cost of keeping the k smallest of
// rows (a bounded heap when rows > 2k, a full sort otherwise) plus the
// output.
func sortCost(rows, k float64) float64 {
	cmp := 2 * pgCPUOperatorCost
	if rows > 2*k {
		return cmp*rows*math.Log2(2*k) + pgCPUOperatorCost*k
	}
	return cmp*rows*math.Log2(math.Max(rows, 2)) + pgCPUOperatorCost*rows
}

// limitCost is adjust_limit_rows_costs: a Limit of k over a path of rows
// pays its startup and the share k/rows of the rest.
func limitCost(startup, total, rows, k float64) float64 {
	if k >= rows {
		return total
	}
	return startup + (total-startup)*k/rows
}
