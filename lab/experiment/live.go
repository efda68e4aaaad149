package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/pglive"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// The real pgvector beside its emulation. When [Env.PG] is set, the
// experiments that measure pgvector (E01's ingest, E02, E03, E04's
// settings, E07, E11's sizes) also run on that PostgreSQL server, with the
// same data set, the same queries and the same settings, and their tables
// get columns marked "(real pgvector)" beside "(lab)" and "(article)".
// Without it they are unchanged.

// livePG is the state of the real pgvector in an Env: the table loaded
// once, its load statistics and the filter truths computed for it.
type livePG struct {
	Tab  *pglive.Table
	Load pglive.LoadStats
	took time.Duration
}

// pgTable loads the environment's data set into Env.PG (once): Spring AI's
// table with the HNSW index created first, rows in the scale's batches.
func (e *Env) pgTable() (*pglive.Table, pglive.LoadStats, error) {
	if e.PG == nil {
		return nil, pglive.LoadStats{}, fmt.Errorf("experiment: no PostgreSQL server configured (Env.PG): %w", ErrNotRunnable)
	}
	ds, err := e.Dataset()
	if err != nil {
		return nil, pglive.LoadStats{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.live != nil {
		return e.live.Tab, e.live.Load, nil
	}
	e.Logf("loading %d documents into the real pgvector (%v)", ds.Base.N, e.PG)
	t0 := time.Now()
	tab, st, err := e.PG.Load(engine.Context(), ds.Base, ds.Meta, pglive.LoadOptions{Batch: e.Scale.Batch, Progress: e.Progress})
	if err != nil {
		return nil, st, fmt.Errorf("experiment: real pgvector: %w", err)
	}
	e.live = &livePG{Tab: tab, Load: st, took: time.Since(t0)}
	return tab, st, nil
}

// LiveMeasurement is what the real pgvector answered for the environment's
// queries under one setting.
type LiveMeasurement struct {
	Label    string
	Recall   float64 // mean recall@K against the exact top-K (of the matching documents, under a filter)
	MeanHits float64
	Hits     []int // per measured query
	Latency  metrics.Latency
	// Plan is the plan of the first measured query; IndexScans counts the
	// measured queries PostgreSQL planned with the HNSW index.
	Plan       pglive.Plan
	IndexScans int
	Queries    int
}

// indexScan reports whether most measured queries scanned the HNSW index.
func (m LiveMeasurement) IndexScan() bool { return 2*m.IndexScans > m.Queries }

// PlanName is "index scan" or "seq scan", with the count when the queries
// disagreed, e.g. "index scan (97 of 100)".
func (m LiveMeasurement) PlanName() string {
	name, n := "seq scan", m.Queries-m.IndexScans
	if m.IndexScan() {
		name, n = "index scan", m.IndexScans
	}
	if n != m.Queries {
		name += fmt.Sprintf(" (%d of %d)", n, m.Queries)
	}
	return name
}

// P50ms is the median latency in milliseconds.
func (m LiveMeasurement) P50ms() float64 { return ms(m.Latency.P50) }

// String prints the measurement on one line.
func (m LiveMeasurement) String() string {
	return fmt.Sprintf("%s (real pgvector): recall %.3f, mean hits %.1f, p50 %.2f ms, %s: %v", m.Label, m.Recall, m.MeanHits, m.P50ms(), m.PlanName(), m.Plan)
}

// MeasureLiveStore is MeasureLive under the session settings of a pgvector
// store or view (hnsw.ef_search, hnsw.iterative_scan, enable_seqscan from
// s.Profile()): the real server answers the queries a notebook measured on
// s, under the same settings.
func MeasureLiveStore(env *Env, s *profile.Store, filterText, label string) (LiveMeasurement, error) {
	if s == nil || s.Profile().Kind != profile.PGVector {
		return LiveMeasurement{Label: label}, fmt.Errorf("experiment: MeasureLiveStore: the real server is a pgvector, so a pgvector store is needed: %w", ErrBadArgument)
	}
	if err := s.Err(); err != nil {
		return LiveMeasurement{Label: label}, err
	}
	p := s.Profile()
	return MeasureLive(env, filterText, pglive.Settings{EfSearch: p.Ef, IterativeScan: p.IterativeScanSetting(), SeqScanOff: p.SeqScanOff}, label)
}

// measureLive runs the environment's queries (Scale.Warmup of them first,
// unmeasured) on the real pgvector under set, with the filter text ("" for
// none), and compares each answer with exact search — over the documents
// the filter matches, as measureStrategy does.
func MeasureLive(env *Env, filterText string, set pglive.Settings, label string) (LiveMeasurement, error) {
	m := LiveMeasurement{Label: label}
	tab, _, err := env.pgTable()
	if err != nil {
		return m, err
	}
	ds, err := env.Dataset()
	if err != nil {
		return m, err
	}
	var allow engine.Filter
	if filterText != "" {
		meta, err := filterMeta(env, false)
		if err != nil {
			return m, err
		}
		f, err := meta.CompileString(filterText)
		if err != nil {
			return m, err
		}
		allow = f
	}
	exact, err := flat.New(ds.Base, flat.Config{Metric: engine.Cosine, Workers: 1})
	if err != nil {
		return m, err
	}
	k, qs := env.Scale.K, ds.Queries
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		rs, _, err := exact.Search(qs.Row(i), k, allow)
		if err != nil {
			return m, err
		}
		truth[i] = make([]engine.ID, len(rs))
		for j, r := range rs {
			truth[i][j] = r.ID
		}
	}
	// The server's round trip around the statement alone is the query's
	// time (pglive's Answer.Elapsed, without the EXPLAIN), so the loop
	// reads no clock of its own: RunTimed.
	m.Hits = make([]int, qs.N)
	m.Queries = qs.N
	ctx := engine.Context()
	loop := metrics.Loop{Queries: qs.N, K: k, Truth: truth, Warmup: env.Scale.Warmup}
	lm, err := loop.RunTimed(ctx, func(pass, i int) ([]engine.Result, time.Duration, error) {
		a, err := tab.Search(ctx, pglive.Query{Vector: qs.Row(i), K: k, Filter: filterText, Settings: set, NoExplain: pass < 0})
		if err != nil {
			return nil, 0, err
		}
		if pass == 0 {
			if i == 0 {
				m.Plan = a.Plan
			}
			if a.Plan.IndexScan {
				m.IndexScans++
			}
			m.Hits[i] = len(a.IDs)
		}
		rs := make([]engine.Result, len(a.IDs))
		for j, id := range a.IDs {
			rs[j] = engine.Result{ID: engine.ID(id), Dist: float32(a.Dists[j])}
		}
		return rs, a.Elapsed, nil
	})
	if err != nil {
		return m, fmt.Errorf("experiment: %s (real pgvector): %w", label, err) // "… query 3: …"
	}
	m.Recall, m.MeanHits, m.Latency = lm.Recall, lm.MeanHits, lm.Latency
	return m, nil
}

// liveColumns are the columns a table gets for the real pgvector's figures
// (none without a server).
func LiveColumns(env *Env, cols ...table.Column) []table.Column {
	if env.PG == nil {
		return nil
	}
	for i := range cols {
		cols[i].Source = table.Live
	}
	return cols
}

// liveNote says which server the real pgvector columns come from and how
// long loading took.
func LiveNote(env *Env, t *table.Table) {
	if env.PG == nil {
		return
	}
	env.mu.Lock()
	l := env.live
	env.mu.Unlock()
	if l == nil {
		return
	}
	t.Note("real pgvector: %v; %d rows loaded in %v (Spring AI's table, HNSW index m 16, ef_construction 64 created before the rows, batches of %d), then ANALYZE; the same queries and settings as the lab's, Spring AI's SQL; the embedded server is PostgreSQL compiled to WebAssembly (single-threaded), so its milliseconds are not comparable with native PostgreSQL's, its recall, hits and plans are",
		env.PG, l.Load.Rows, l.took.Round(time.Second), env.Scale.Batch)
}

// liveValues are the n real pgvector cells of a row: vals(l), or empty
// cells for a row the real pgvector did not run.
func LiveValues(l *LiveMeasurement, vals func(*LiveMeasurement) []any, n int) []any {
	if l == nil {
		out := make([]any, n)
		for i := range out {
			out[i] = ""
		}
		return out
	}
	return vals(l)
}

// P95ms is the 95th percentile latency in milliseconds.
func (m LiveMeasurement) P95ms() float64 { return ms(m.Latency.P95) }

// liveLoad returns the real pgvector's loaded table (loading it if need
// be), or nil without Env.PG.
func (e *Env) LiveLoad() (*livePG, error) {
	if e.PG == nil {
		return nil, nil
	}
	if _, _, err := e.pgTable(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.live, nil
}

// inserts is the wall time of the load's INSERTs.
func (l *livePG) Inserts() time.Duration {
	var d time.Duration
	for _, b := range l.Load.Batches {
		d += b
	}
	return d
}

// UsePG points the environment at a real PostgreSQL by spec: "" none (the
// experiments run on the emulation only), "embedded" (PostgreSQL 18.6 +
// pgvector 0.8.7 as WebAssembly, started now; it needs node and `npm ci` in
// lab/pglive/server), or a postgres:// URL of any server with pgvector ≥
// 0.8. Env.Close closes what UsePG opened. Notebooks call it with
// os.Getenv("VECLAB_PG").
func (e *Env) UsePG(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	db, err := pglive.Open(engine.Context(), spec)
	if err != nil {
		return err
	}
	e.mu.Lock()
	old := e.ownPG
	e.PG, e.ownPG, e.live = db, db, nil
	e.mu.Unlock()
	if old != nil {
		old.Close()
	}
	e.Logf("real pgvector: %v", db)
	return nil
}
