package pglive

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// DefaultTable is the table Load creates by default: Spring AI's
// vector_store (PgVectorStore.DEFAULT_TABLE_NAME) under a prefix, because
// Load drops the table first and a user's own server may hold a Spring AI
// table of that name.
const DefaultTable = "veclab_vector_store"

// LoadOptions tune [DB.Load].
type LoadOptions struct {
	// Table names the table ("" means DefaultTable); it is dropped and
	// created afresh.
	Table string
	// Batch is the number of rows per INSERT (default 1000, the article's
	// batch; Spring AI's maxDocumentBatchSize is 10,000).
	Batch int
	// IndexAfter builds the HNSW index after the rows are in (faster, and
	// pgvector's recommended bulk load) instead of before them (Spring AI's
	// order, and the lab's emulation's: every row enters the graph as it
	// is inserted).
	IndexAfter bool
	// M and EfConstruction are the HNSW index's build parameters (0: not
	// given, pgvector's defaults m = 16 and ef_construction = 64, Spring
	// AI's index); given, the index is created WITH (m = …,
	// ef_construction = …), which pgvector bounds to 2…100 and 4…1000
	// with ef_construction ≥ 2·m (src/hnsw.c, src/hnswutils.c).
	M, EfConstruction int
	// Progress, when set, is called after each batch.
	Progress func(done, total int, what string)
}

// LoadStats is what loading took.
type LoadStats struct {
	Rows    int
	Batches []time.Duration // each INSERT's wall time, in order
	Index   time.Duration   // CREATE INDEX (with IndexAfter; else in Batches)
	Total   time.Duration
}

// Table is a loaded Spring AI vector_store table.
type Table struct {
	db   *DB
	Name string
	Dim  int
	Rows int
}

// docID is the uuid of document i: its position in the last 12 hex
// digits, so results map back to the data set's rows (Spring AI draws
// random uuids; the primary key's btree plays no part in the query).
func docID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012x", i) }

// parseDocID inverts docID.
func parseDocID(s string) (int, error) {
	if len(s) != 36 || !strings.HasPrefix(s, "00000000-0000-4000-8000-") {
		return 0, fmt.Errorf("pglive: id %q is not one the lab wrote", s)
	}
	n, err := strconv.ParseInt(s[24:], 16, 64)
	return int(n), err
}

// Load creates the table and its HNSW index and inserts base's rows with
// meta (nil: metadata {}). The document text is a short label; the
// article's synthetic documents were short too (the row width decides the
// table's pages, hence the planner's sequential-scan cost).
func (db *DB) Load(ctx context.Context, base *vec.Matrix, meta []dataset.Doc, opt LoadOptions) (*Table, LoadStats, error) {
	var st LoadStats
	if db == nil || db.conn == nil {
		return nil, st, fmt.Errorf("pglive: Load on a closed DB: %w", ErrBadArgument)
	}
	if base == nil || base.N == 0 || base.Dim < 1 {
		return nil, st, fmt.Errorf("pglive: Load: no vectors: %w", ErrBadArgument)
	}
	if meta != nil && len(meta) != base.N {
		return nil, st, fmt.Errorf("pglive: Load: %d metadata documents for %d vectors: %w", len(meta), base.N, ErrBadArgument)
	}
	name := opt.Table
	if name == "" {
		name = DefaultTable
	}
	if !plainName(name) {
		return nil, st, fmt.Errorf("pglive: Load: table name %q (want letters, digits and _): %w", name, ErrBadArgument)
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 1000
	}
	t0 := time.Now()
	if opt.M < 0 || opt.EfConstruction < 0 {
		return nil, st, fmt.Errorf("pglive: Load: m %d, ef_construction %d (want 0 for pgvector's default, or positive): %w", opt.M, opt.EfConstruction, ErrBadArgument)
	}
	index := fmt.Sprintf("CREATE INDEX %s_embedding_idx ON %s USING hnsw (embedding vector_cosine_ops)", name, name)
	var with []string
	if opt.M > 0 {
		with = append(with, fmt.Sprintf("m = %d", opt.M))
	}
	if opt.EfConstruction > 0 {
		with = append(with, fmt.Sprintf("ef_construction = %d", opt.EfConstruction))
	}
	if len(with) > 0 {
		index += " WITH (" + strings.Join(with, ", ") + ")"
	}
	ddl := []string{
		"DROP TABLE IF EXISTS " + name,
		fmt.Sprintf("CREATE TABLE %s (id uuid PRIMARY KEY, content text, metadata json, embedding vector(%d))", name, base.Dim),
	}
	if !opt.IndexAfter {
		ddl = append(ddl, index)
	}
	for _, q := range ddl {
		if err := db.exec(ctx, q); err != nil {
			return nil, st, db.explain(q, err)
		}
	}
	var sb strings.Builder
	for lo := 0; lo < base.N; lo += batch {
		// An interrupt between batches leaves the connection usable; one
		// during a statement makes pgx close it (the next call reconnects).
		if err := engine.Stopped(ctx, "pglive: Load", lo, base.N); err != nil {
			return nil, st, err
		}
		hi := min(lo+batch, base.N)
		sb.Reset()
		sb.WriteString("INSERT INTO " + name + " (id, content, metadata, embedding) VALUES ")
		for i := lo; i < hi; i++ {
			if i > lo {
				sb.WriteByte(',')
			}
			var m []byte
			content := "document " + strconv.Itoa(i)
			if meta != nil {
				d := meta[i]
				m, _ = json.Marshal(map[string]any{"category": d.Category, "year": d.Year, "region": d.Region})
				content += " of cluster " + strconv.Itoa(d.Cluster)
			} else {
				m = []byte("{}")
			}
			row := base.Row(i)
			for _, x := range row {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, st, fmt.Errorf("pglive: Load: row %d has a non-finite value: %w", i, ErrBadArgument)
				}
			}
			fmt.Fprintf(&sb, "('%s','%s','%s','%s')", docID(i), content, strings.ReplaceAll(string(m), "'", "''"), pgvector.NewVector(row).String())
		}
		b0 := time.Now()
		if err := db.exec(ctx, sb.String()); err != nil {
			return nil, st, db.explain(fmt.Sprintf("inserting rows %d…%d", lo, hi-1), err)
		}
		st.Batches = append(st.Batches, time.Since(b0))
		st.Rows = hi
		if opt.Progress != nil {
			opt.Progress(hi, base.N, "ingest real pgvector")
		}
	}
	if opt.IndexAfter {
		i0 := time.Now()
		if err := db.exec(ctx, index); err != nil {
			return nil, st, db.explain(index, err)
		}
		st.Index = time.Since(i0)
	}
	// Statistics, as autovacuum's ANALYZE would have gathered before the
	// article's queries: the planner's row and page estimates use them.
	if err := db.exec(ctx, "ANALYZE "+name); err != nil {
		return nil, st, db.explain("ANALYZE", err)
	}
	st.Total = time.Since(t0)
	return &Table{db: db, Name: name, Dim: base.Dim, Rows: base.N}, st, nil
}

// Settings are the session settings a search runs under (the zero value
// of a field means PostgreSQL's and pgvector's default).
type Settings struct {
	EfSearch      int    // hnsw.ef_search (default 40)
	IterativeScan string // hnsw.iterative_scan: "off" (default), "relaxed_order", "strict_order"
	MaxScanTuples int    // hnsw.max_scan_tuples (default 20,000)
	SeqScanOff    bool   // enable_seqscan = off
}

func (s Settings) withDefaults() Settings {
	if s.EfSearch == 0 {
		s.EfSearch = 40
	}
	if s.IterativeScan == "" {
		s.IterativeScan = "off"
	}
	if s.MaxScanTuples == 0 {
		s.MaxScanTuples = 20000
	}
	return s
}

func (s Settings) validate() error {
	if s.EfSearch < 1 || s.EfSearch > 1000 {
		return fmt.Errorf("pglive: hnsw.ef_search %d outside pgvector's 1…1000: %w", s.EfSearch, ErrBadArgument)
	}
	switch s.IterativeScan {
	case "off", "relaxed_order", "strict_order":
	default:
		return fmt.Errorf("pglive: hnsw.iterative_scan %q (want off, relaxed_order or strict_order): %w", s.IterativeScan, ErrBadArgument)
	}
	if s.MaxScanTuples < 1 {
		return fmt.Errorf("pglive: hnsw.max_scan_tuples %d < 1: %w", s.MaxScanTuples, ErrBadArgument)
	}
	return nil
}

// apply sets the session's settings where they differ from what it has.
func (db *DB) apply(ctx context.Context, s Settings) error {
	if db.set && db.settings == s {
		return nil
	}
	q := fmt.Sprintf("SET hnsw.ef_search = %d; SET hnsw.iterative_scan = %s; SET hnsw.max_scan_tuples = %d; SET enable_seqscan = %s",
		s.EfSearch, s.IterativeScan, s.MaxScanTuples, map[bool]string{false: "on", true: "off"}[s.SeqScanOff])
	if err := db.exec(ctx, q); err != nil {
		db.set = false
		return db.explain("setting "+q, err)
	}
	db.settings, db.set = s, true
	return nil
}

// Query is one top-k search.
type Query struct {
	Vector []float32
	K      int
	// Filter is in the Spring AI filter language ("" for none), e.g.
	// "category == 'c3' && year >= 2022".
	Filter   string
	Settings Settings
	// NoExplain skips the EXPLAIN of the statement (Answer.Plan stays
	// empty): for warm-up queries.
	NoExplain bool
}

// Plan is the plan PostgreSQL chose for a query, from EXPLAIN (FORMAT JSON).
type Plan struct {
	// IndexScan is true when the plan scans the HNSW index; false for a
	// sequential scan (with a top-N sort: exact).
	IndexScan bool
	// Nodes are the plan's node types top-down, e.g. "Limit → Index Scan".
	Nodes string
	// Cost is the top node's total cost; Rows its row estimate.
	Cost float64
	Rows float64
}

// String names the plan with its cost, e.g. "Limit → Index Scan (cost 2613)".
func (p Plan) String() string {
	if p.Nodes == "" {
		return ""
	}
	return fmt.Sprintf("%s (cost %.0f)", p.Nodes, p.Cost)
}

// Answer is what one search returned.
type Answer struct {
	IDs     []int     // data set rows, nearest first
	Dists   []float64 // cosine distances
	Plan    Plan
	Elapsed time.Duration // the query's round trip (not the EXPLAIN's)
}

// SQL returns Spring AI's statement for q against the table.
func (t *Table) SQL(q Query) (string, error) {
	if q.K < 1 {
		return "", fmt.Errorf("pglive: k must be positive, got %d: %w", q.K, ErrBadArgument)
	}
	if len(q.Vector) != t.Dim {
		return "", fmt.Errorf("pglive: query has %d dimensions, table %s has %d: %w", len(q.Vector), t.Name, t.Dim, ErrBadArgument)
	}
	for _, x := range q.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "", fmt.Errorf("pglive: query vector has a non-finite value: %w", ErrBadArgument)
		}
	}
	where, err := SQLPredicate(q.Filter)
	if err != nil {
		return "", err
	}
	if where != "" {
		where = " AND " + where
	}
	v := "'" + pgvector.NewVector(q.Vector).String() + "'"
	return fmt.Sprintf("SELECT id, embedding <=> %s AS distance FROM %s WHERE embedding <=> %s < 1%s ORDER BY distance LIMIT %d",
		v, t.Name, v, where, q.K), nil
}

// Search runs q under its settings and, unless q.NoExplain, explains it.
func (t *Table) Search(ctx context.Context, q Query) (Answer, error) {
	var a Answer
	s := q.Settings.withDefaults()
	if err := s.validate(); err != nil {
		return a, err
	}
	sql, err := t.SQL(q)
	if err != nil {
		return a, err
	}
	if err := t.db.apply(ctx, s); err != nil {
		return a, err
	}
	if !q.NoExplain {
		if a.Plan, err = t.db.explainPlan(ctx, sql); err != nil {
			return a, err
		}
	}
	conn, err := t.db.live(ctx)
	if err != nil {
		return a, t.db.explain("search", err)
	}
	t0 := time.Now()
	var parseErr error
	err = conn.query(ctx, sql, func(id string, d float64) bool {
		n, err := parseDocID(id)
		if err != nil {
			parseErr = err
			return false
		}
		a.IDs = append(a.IDs, n)
		a.Dists = append(a.Dists, d)
		return true
	})
	if parseErr != nil {
		return a, parseErr
	}
	if err != nil {
		return a, t.db.explain("search", err)
	}
	a.Elapsed = time.Since(t0)
	return a, nil
}

// explainNode is one node of EXPLAIN (FORMAT JSON).
type explainNode struct {
	NodeType  string        `json:"Node Type"`
	IndexName string        `json:"Index Name"`
	Total     float64       `json:"Total Cost"`
	Rows      float64       `json:"Plan Rows"`
	Plans     []explainNode `json:"Plans"`
}

func (db *DB) explainPlan(ctx context.Context, sql string) (Plan, error) {
	var p Plan
	var raw string
	if err := db.scan(ctx, "EXPLAIN (FORMAT JSON) "+sql, &raw); err != nil {
		return p, db.explain("EXPLAIN", err)
	}
	var doc []struct {
		Plan explainNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil || len(doc) == 0 {
		return p, fmt.Errorf("pglive: %s: EXPLAIN's JSON: %v", db.Where, err)
	}
	top := doc[0].Plan
	p.Cost, p.Rows = top.Total, top.Rows
	var names []string
	for n := &top; n != nil; {
		names = append(names, n.NodeType)
		if strings.Contains(n.NodeType, "Index") && strings.HasSuffix(n.IndexName, "_embedding_idx") {
			p.IndexScan = true
		}
		if len(n.Plans) == 0 {
			break
		}
		n = &n.Plans[0]
	}
	p.Nodes = strings.Join(names, " → ")
	return p, nil
}

// Sizes are a table's relation sizes in bytes (pg_relation_size).
type Sizes struct {
	Heap, Toast, Index, PrimaryKey int64
}

// Sizes measures the table, its TOAST table, its HNSW index and its
// primary key's btree.
func (t *Table) Sizes(ctx context.Context) (Sizes, error) {
	var s Sizes
	q := fmt.Sprintf(`SELECT pg_relation_size('%[1]s'), COALESCE((SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = '%[1]s'::regclass AND reltoastrelid <> 0), 0),
		pg_relation_size('%[1]s_embedding_idx'), pg_relation_size('%[1]s_pkey')`, t.Name)
	if err := t.db.scan(ctx, q, &s.Heap, &s.Toast, &s.Index, &s.PrimaryKey); err != nil {
		return s, t.db.explain("pg_relation_size", err)
	}
	return s, nil
}

// Show returns the current value of a setting (SHOW name).
func (db *DB) Show(ctx context.Context, name string) (string, error) {
	if !plainName(strings.ReplaceAll(name, ".", "_")) {
		return "", fmt.Errorf("pglive: setting name %q: %w", name, ErrBadArgument)
	}
	var v string
	if err := db.scan(ctx, "SHOW "+name, &v); err != nil {
		return "", db.explain("SHOW "+name, err)
	}
	return v, nil
}

// IndexOptions returns the HNSW index's storage parameters (pg_class
// reloptions, e.g. "m=16"), "" when it was created without WITH — then
// pgvector's defaults hold: m 16, ef_construction 64.
func (t *Table) IndexOptions(ctx context.Context) (string, error) {
	var opts []string
	q := fmt.Sprintf("SELECT COALESCE(reloptions, '{}'::text[]) FROM pg_class WHERE relname = '%s_embedding_idx'", t.Name)
	if err := t.db.scan(ctx, q, &opts); err != nil {
		return "", t.db.explain("reading the index's reloptions", err)
	}
	return strings.Join(opts, ","), nil
}

// Default returns the value a setting has when the session has not set it
// (pg_settings.reset_val: the server's configuration, not this session's
// SETs).
func (db *DB) Default(ctx context.Context, name string) (string, error) {
	var v string
	if err := db.scan(ctx, "SELECT reset_val FROM pg_settings WHERE name = '"+strings.ReplaceAll(name, "'", "''")+"'", &v); err != nil {
		return "", db.explain("reading the default of "+name, err)
	}
	return v, nil
}
