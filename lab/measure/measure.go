package measure

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
)

// DefaultWarmup is how many queries run untimed before the timed pass:
// the Spring AI VectorStore article's 20 warm-up queries (capped at the
// number of queries).
const DefaultWarmup = 20

// Queries are the queries a measurement asks, with their exact answers:
// every recall figure is against them.
type Queries struct {
	Vectors *vec.Matrix   // one query per row
	K       int           // top-k asked and scored (recall@K)
	Truth   [][]engine.ID // exact top-K ids of each query, nearest first
	Metric  engine.Metric // the metric of the exact answers
	Warmup  int           // untimed queries before the timed pass (Exact: DefaultWarmup)
	Filter  string        // the filter the answers are restricted to ("" for none)

	ds     *dataset.Dataset
	meta   *filter.Store    // the documents' metadata (with Where)
	filter *filter.Compiled // Where compiled against meta
}

// Exact returns ds's queries with their exact top-k under metric, computed
// by exhaustive search over ds's base vectors (engine/flat through
// dataset.ComputeTruth): the answers every recall is scored against.
func Exact(ds *dataset.Dataset, k int, metric engine.Metric) (*Queries, error) {
	if ds == nil || ds.Base == nil || ds.Queries == nil || ds.Queries.N == 0 {
		return nil, fmt.Errorf("measure: Exact: a data set with base vectors and queries is needed: %w", engine.ErrInvalidArgument)
	}
	if k < 1 {
		return nil, fmt.Errorf("measure: Exact(ds, %d, …): k must be ≥ 1: %w", k, engine.ErrInvalidArgument)
	}
	t, err := dataset.ComputeTruthContext(engine.Context(), ds.Base, ds.Queries, k, metric, nil)
	if err != nil {
		return nil, fmt.Errorf("measure: Exact: %w", err)
	}
	return &Queries{Vectors: ds.Queries, K: k, Truth: t.IDs, Metric: metric, Warmup: DefaultWarmup, ds: ds}, nil
}

// Where returns the same queries restricted to the documents that the
// filter expr matches (engine/filter's language over ds's metadata, e.g.
// dataset.ArticleWhere), with the exact top-K among those documents as
// their answers. A search measured on them runs with the filter, each
// store its own way (see [Store]).
func (q *Queries) Where(expr string) (*Queries, error) {
	if q == nil || q.ds == nil {
		return nil, fmt.Errorf("measure: Where(%q): queries made by Exact are needed: %w", expr, engine.ErrInvalidArgument)
	}
	meta, err := q.ds.Metadata()
	if err != nil {
		return nil, fmt.Errorf("measure: Where(%q): %w", expr, err)
	}
	f, err := meta.CompileString(expr)
	if err != nil {
		return nil, fmt.Errorf("measure: Where(%q): %w", expr, err)
	}
	t, err := dataset.ComputeTruthContext(engine.Context(), q.ds.Base, q.Vectors, q.K, q.Metric, f)
	if err != nil {
		return nil, fmt.Errorf("measure: Where(%q): %w", expr, err)
	}
	w := *q
	w.Truth, w.Filter, w.meta, w.filter = t.IDs, expr, meta, f
	return &w, nil
}

// Matches is the number of documents the queries' filter matches (all
// base vectors without one).
func (q *Queries) Matches() int {
	if q.filter == nil {
		if q.ds == nil {
			return 0
		}
		return q.ds.Base.N
	}
	return len(q.filter.IDs())
}

func (q *Queries) check(verb string) error {
	if q == nil || q.Vectors == nil || q.Vectors.N == 0 || len(q.Truth) != q.Vectors.N || q.K < 1 {
		return fmt.Errorf("measure: %s: queries with their exact answers are needed (measure.Exact): %w", verb, engine.ErrInvalidArgument)
	}
	return nil
}

// Result is what one measurement found: the lab's figures for one store
// (or index) and one setting, next to the metrics.Measured of its timed
// loop (Recall, MeanHits, QPS, Latency, …).
type Result struct {
	Label  string // the row: the store's name, or the setting swept ("50")
	Knob   string // the swept setting under the store's own name ("EF_RUNTIME"); "" otherwise
	Where  string // the filter the queries ran with ("" for none)
	Warmup int    // untimed queries before the timed pass
	metrics.Measured
	DistComps      float64 // mean distance computations per query
	PayloadReads   float64 // mean stored payloads a filter decoded per query (0 where it reads payload indexes only)
	Decompressed   float64 // mean stored-field bytes the fetch decompressed per query (Elasticsearch's fetch stored_fields; 0 otherwise)
	BytesPerVector float64 // resident bytes per document: vectors, links, codes
	Plan           string  // the query plan the store ran (profile.Plan), or the index's request
}

// String prints the result on one line, e.g. "redis: recall@10 0.962,
// p50 0.61 ms, p95 0.90 ms, mean hits 10.0, 2,310 distances/query,
// 1,720 bytes/vector (k=10 ef=50 candidates=10 limit=10)".
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %.3f, p50 %s, p95 %s, mean hits %.1f, %s distances/query, %s bytes/vector",
		r.Label, metrics.RecallHeader(r.K), r.Recall, ms(r.Latency.P50), ms(r.Latency.P95), r.MeanHits,
		grouped(r.DistComps), grouped(r.BytesPerVector))
	if r.PayloadReads > 0 {
		fmt.Fprintf(&b, ", %s payload reads/query", grouped(r.PayloadReads))
	}
	if r.Decompressed > 0 {
		fmt.Fprintf(&b, ", %s KB decompressed/query", grouped(r.Decompressed/1024))
	}
	if r.Where != "" {
		fmt.Fprintf(&b, ", where %s", r.Where)
	}
	if r.Plan != "" {
		fmt.Fprintf(&b, " (%s)", r.Plan)
	}
	return b.String()
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
}

// grouped prints a non-negative figure rounded to an integer with thousands separators.
func grouped(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Measures are the names [Result.Value] and [Beside] know, with their
// units: recall@k (k the result's), p50 and p95 (ms), mean hits, QPS,
// distances/query and bytes/vector.
var Measures = []string{"recall@k", "p50", "p95", "mean hits", "QPS", "distances/query", "bytes/vector"}

// Value returns the figure named measure (one of Measures, recall@k with
// the result's k, e.g. "recall@10") and its unit; ok is false for a name
// it does not know.
func (r Result) Value(measure string) (v float64, unit string, ok bool) {
	switch measure {
	case metrics.RecallHeader(r.K):
		return r.Recall, "", true
	case "p50":
		return float64(r.Latency.P50) / float64(time.Millisecond), "ms", true
	case "p95":
		return float64(r.Latency.P95) / float64(time.Millisecond), "ms", true
	case "mean hits":
		return r.MeanHits, "", true
	case "QPS":
		return r.QPS, "", true
	case "distances/query":
		return r.DistComps, "", true
	case "bytes/vector":
		return r.BytesPerVector, "B", true
	}
	return 0, "", false
}

// loop is the one timed loop of a measurement: the warm-up, then every
// query once, timed one at a time and scored against the exact answers.
func (q *Queries) loop() metrics.Loop {
	return metrics.Loop{Queries: q.Vectors.N, K: q.K, Truth: q.Truth, Warmup: q.warmup()}
}

// warmup is the warm-up the loop runs: Warmup within 0…the queries.
func (q *Queries) warmup() int { return min(max(q.Warmup, 0), q.Vectors.N) }

// Store runs the queries on s (a store, or one of its views) once after
// the warm-up and measures recall@K against the exact answers, the
// latencies, the mean hits, the distance computations, the plan and the
// bytes per vector. With a filter ([Queries.Where]) each store searches
// its own way: Elasticsearch over its segments as ingested
// ([profile.Store.SearchFiltered]), the others through their filtered
// strategy over one graph ([profile.Store.Filtered]). A view with a knob
// out of range answers its [profile.KnobError] unchanged.
func Store(s *profile.Store, q *Queries) (Result, error) {
	if s == nil {
		return Result{}, fmt.Errorf("measure: Store: no store: %w", engine.ErrInvalidArgument)
	}
	if err := s.Err(); err != nil {
		return Result{}, err
	}
	if err := q.check("Store"); err != nil {
		return Result{}, err
	}
	p := s.Profile()
	search, err := q.storeSearch(s)
	if err != nil {
		return Result{}, err
	}
	var (
		dist, reads int
		unpacked    int64
		plan        profile.Plan
		path        string // the first timed query's filtered path
	)
	// The queries run on this goroutine, locked to its thread, so the
	// thread's CPU clock times them beside the wall clock (CPUQPS): the
	// figure a loaded machine does not stretch.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	loop := q.loop()
	loop.CPU = metrics.ThreadCPU
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, st, how, pr, err := search(q.Vectors.Row(i))
		if pass == 0 {
			dist += st.DistComps
			reads += pr
			unpacked += st.Decompressed
			plan = st.Plan
			if path == "" {
				path = how
			}
		}
		return res, err
	})
	if err != nil {
		return Result{}, err
	}
	if plan == (profile.Plan{}) {
		plan = p.Plan(q.K, s.Dim())
	}
	r := Result{Label: p.Kind.String(), Where: q.Filter, Warmup: q.warmup(), Measured: m,
		DistComps: float64(dist) / float64(q.Vectors.N), PayloadReads: float64(reads) / float64(q.Vectors.N),
		Decompressed: float64(unpacked) / float64(q.Vectors.N), BytesPerVector: s.BytesPerVector(), Plan: plan.String()}
	if path != "" {
		r.Plan += "; " + path + " (query 0)"
	}
	return r, nil
}

// storeSearch returns how s answers one of the queries: its plain search,
// or its filtered search for the queries' filter, with the path the
// filtered search took (the strategy that ran, or Elasticsearch's
// segments' paths) and the stored payloads it read.
func (q *Queries) storeSearch(s *profile.Store) (func([]float32) ([]engine.Result, profile.QueryStats, string, int, error), error) {
	k := q.K
	switch {
	case q.filter == nil:
		return func(v []float32) ([]engine.Result, profile.QueryStats, string, int, error) {
			res, st, err := s.SearchStats(v, k)
			return res, st, "", 0, err
		}, nil
	case s.Profile().Kind == profile.Elasticsearch:
		f, n := q.filter, uint64(q.ds.Base.N)
		accept := func(key uint64) bool { return key < n && f.Allowed(engine.ID(key)) }
		return func(v []float32) ([]engine.Result, profile.QueryStats, string, int, error) {
			res, st, err := s.SearchFiltered(v, k, accept)
			return res, st, "segments: " + st.Leaves.String(), 0, err
		}, nil
	}
	// The metadata as the store holds it (Qdrant's payload indexes,
	// pgvector's unindexed json column), and the filter compiled on it.
	meta, err := s.Profile().Payload(q.meta)
	if err != nil {
		return nil, err
	}
	f := q.filter
	if meta != q.meta {
		if f, err = meta.CompileString(q.Filter); err != nil {
			return nil, fmt.Errorf("measure: Where(%q): %w", q.Filter, err)
		}
	}
	coll, err := s.Filtered(meta)
	if err != nil {
		return nil, err
	}
	return func(v []float32) ([]engine.Result, profile.QueryStats, string, int, error) {
		res, st, err := s.SearchFilter(coll, v, k, f)
		return res, profile.QueryStats{DistComps: st.DistComps}, "filtered: " + st.Path.String(), st.PayloadChecks, err
	}, nil
}

// Index runs the queries on an index built with explicit parameters (any
// engine.Index: engine/hnsw, engine/ivf, engine/flat, …) at the given
// breadth (the index's own query-time knob: ef for a graph, probes for
// IVF; 0 takes the index's default) and measures it as [Store] does.
// Result ids are the index's, which must be the data set's row numbers.
func Index(ix engine.Index, breadth int, q *Queries) (Result, error) {
	if ix == nil {
		return Result{}, fmt.Errorf("measure: Index: no index: %w", engine.ErrInvalidArgument)
	}
	if breadth < 0 {
		return Result{}, fmt.Errorf("measure: Index(ix, %d, …): the breadth must be ≥ 0 (0: the index's default): %w", breadth, engine.ErrInvalidArgument)
	}
	if err := q.check("Index"); err != nil {
		return Result{}, err
	}
	req := engine.Request{K: q.K, Breadth: breadth}
	if q.filter != nil {
		req.Filter = q.filter
	}
	dist := 0
	m, err := q.loop().Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, st, err := ix.Query(q.Vectors.Row(i), req)
		if pass == 0 {
			dist += st.DistComps
		}
		return res, err
	})
	if err != nil {
		return Result{}, fmt.Errorf("measure: Index: %w", err)
	}
	r := Result{Label: strconv.Itoa(breadth), Where: q.Filter, Warmup: q.warmup(), Measured: m,
		DistComps: float64(dist) / float64(q.Vectors.N), Plan: fmt.Sprintf("k=%d breadth=%d", q.K, breadth)}
	if b, ok := ix.(interface{ BytesPerVector() float64 }); ok {
		r.BytesPerVector = b.BytesPerVector()
	}
	return r, nil
}

// SweepEf measures s at each query breadth of efs (its own name for it:
// pgvector hnsw.ef_search, Redis EF_RUNTIME, Qdrant hnsw_ef,
// Elasticsearch num_candidates), on the same built store: one Result per
// value, labelled by it. A value the store refuses stops the sweep with
// its [profile.KnobError].
func SweepEf(s *profile.Store, efs []int, q *Queries) ([]Result, error) {
	if s == nil || len(efs) == 0 {
		return nil, fmt.Errorf("measure: SweepEf: a store and at least one value are needed: %w", engine.ErrInvalidArgument)
	}
	out := make([]Result, 0, len(efs))
	for _, ef := range efs {
		r, err := Store(s.WithEf(ef), q)
		if err != nil {
			return out, err
		}
		r.Label, r.Knob = strconv.Itoa(ef), s.Profile().Kind.EfSetting()
		out = append(out, r)
	}
	return out, nil
}

// SweepOversample measures s at each oversample of xs (Elasticsearch's
// rescore_vector.oversample; 0 turns it off) on the same built store: one
// Result per value, labelled by it.
func SweepOversample(s *profile.Store, xs []float64, q *Queries) ([]Result, error) {
	if s == nil || len(xs) == 0 {
		return nil, fmt.Errorf("measure: SweepOversample: a store and at least one value are needed: %w", engine.ErrInvalidArgument)
	}
	out := make([]Result, 0, len(xs))
	for _, x := range xs {
		r, err := Store(s.WithOversample(x), q)
		if err != nil {
			return out, err
		}
		r.Label, r.Knob = strconv.FormatFloat(x, 'g', -1, 64), "oversample"
		out = append(out, r)
	}
	return out, nil
}
