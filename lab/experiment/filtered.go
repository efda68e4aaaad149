package experiment

import (
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
)

// metadata builds (once) the documents' metadata in key order, with the
// fields category (keyword), year (integer) and region (keyword) declared
// and indexed, as the article declared them for Redis.
func (e *Env) Metadata() (*filter.Store, error) {
	ds, err := e.Dataset()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.meta != nil {
		return e.meta, nil
	}
	if len(ds.Meta) != ds.Base.N {
		return nil, fmt.Errorf("experiment: the data set has no metadata: %w", ErrNotRunnable)
	}
	st, err := ds.Metadata()
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	e.meta = st
	return st, nil
}

// measureFiltered runs the environment's queries with a filter through
// the store's own filtered strategy (see profile.Profile.FilterStrategy):
// warm-up, then every query measured; recall@K is against the exact top-K
// of the matching documents.
//
// Elasticsearch is searched over its segments as ingested
// (profile.Store.SearchFiltered: Lucene 10.3's per-segment rules under
// its filter heuristic); the other stores through their strategy over
// one graph (profile.Store.Filtered).
func MeasureFiltered(env *Env, s *profile.Store, expr, label string) (Measurement, error) {
	ds, err := env.Dataset()
	if err != nil {
		return Measurement{}, err
	}
	meta, err := env.Metadata()
	if err != nil {
		return Measurement{}, err
	}
	f, err := meta.CompileString(expr)
	if err != nil {
		return Measurement{}, fmt.Errorf("experiment: filter %q: %w", expr, err)
	}
	k := env.Scale.K
	var leaves profile.LeafPaths
	var search func(q []float32) ([]engine.Result, int, error)
	if s.Profile().Kind == profile.Elasticsearch {
		match := engine.NewBitset(meta.Len())
		for _, id := range f.IDs() {
			match.Set(id)
		}
		accept := func(key uint64) bool { return key < uint64(match.Len()) && match.Allowed(engine.ID(key)) }
		search = func(q []float32) ([]engine.Result, int, error) {
			rs, st, err := s.SearchFiltered(q, k, accept)
			leaves.Add(st.Leaves)
			return rs, st.DistComps, err
		}
	} else {
		coll, err := s.Filtered(meta)
		if err != nil {
			return Measurement{}, err
		}
		search = func(q []float32) ([]engine.Result, int, error) {
			rs, st, err := s.SearchFilter(coll, q, k, f)
			return rs, st.DistComps, err
		}
	}
	truthColl, err := env.FilterTruth()
	if err != nil {
		return Measurement{}, err
	}
	qs := ds.Queries
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		rs, _, err := truthColl.Search(filtered.Request{Query: qs.Row(i), K: k, Filter: f, Strategy: filtered.Exact})
		if err != nil {
			return Measurement{}, fmt.Errorf("experiment: filtered truth: %w", err)
		}
		for _, r := range rs {
			truth[i] = append(truth[i], r.ID)
		}
	}
	var dist int
	runtime.LockOSThread() // the thread's CPU clock times each query (threadClock)
	defer runtime.UnlockOSThread()
	pause, rounds := env.rounds(qs.N) // rounds beside the other rows' inside Env.Alternate
	loop := metrics.Loop{Queries: qs.N, K: k, Truth: truth, Warmup: env.Scale.Warmup, CPU: threadClock(), Before: pause}
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		if pass == 0 && i == 0 {
			leaves = profile.LeafPaths{} // the warm-up's paths are not counted
		}
		rs, dc, err := search(qs.Row(i))
		if pass == 0 {
			dist += dc
		}
		return rs, err
	})
	if err != nil {
		return Measurement{}, fmt.Errorf("experiment: %s filtered: %w", label, err)
	}
	return Measurement{
		Label: label, Queries: qs.N, K: k, Recall: m.Recall,
		Latency: m.Latency, CPULatency: m.CPULatency, QPS: m.QPS,
		RoundLatency: roundLatencies(m.Times, qs.N, rounds), RoundCPU: roundLatencies(m.CPUTimes, qs.N, rounds),
		MeanHits: m.MeanHits, DistComps: float64(dist) / float64(qs.N),
		Plan: s.Profile().Plan(k, s.Dim()), Segments: len(s.Segments()), Leaves: leaves,
	}, nil
}

// filterTruth returns (once) the data set bound to the environment's
// metadata for exact filtered search: the oracle of every filtered
// recall, whichever store is measured.
func (e *Env) FilterTruth() (*filtered.Collection, error) {
	ds, err := e.Dataset()
	if err != nil {
		return nil, err
	}
	meta, err := e.Metadata()
	if err != nil {
		return nil, err
	}
	// The oracle ranks by the set's own metric, as the stores search: a
	// cosine oracle on an L2 set (Fashion-MNIST's pixels) names other
	// neighbours than any L2 search finds, which read as 0.05 filtered
	// recall for every index type. (Read before the lock: Metric takes it.)
	metric := e.Metric()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.exact == nil {
		if e.exact, err = filtered.New(ds.Base, meta, filtered.Options{Metric: metric}); err != nil {
			return nil, fmt.Errorf("experiment: filtered truth: %w", err)
		}
	}
	return e.exact, nil
}

// hitsTolerance is how far a lab's mean rows per filtered query may sit
// from an article's and agree: none when the article returned k rows (a
// store returns its LIMIT or it does not), else half the article's figure.
// pgvector's rows are ef_search × s only on average: a query drawn from a
// matching cluster keeps most of its ef_search candidates, the others
// almost none, so the mean over 100 queries moves by tens of percent with
// the queries drawn.
func HitsTolerance(article float64, k int) float64 {
	if article == float64(k) {
		return 0
	}
	return article / 2
}

// strategyVerdicts records, for each measurement whose label has article
// figures in e, whether its recall@10 is within recallTolerance of the
// article's and its mean rows within hitsTolerance; section names the
// article's section the figures are from.
func StrategyVerdicts(env *Env, e Experiment, ms []StrategyMeasurement, section string) Verdicts {
	var out Verdicts
	for _, m := range ms {
		if f, ok := e.Figure(m.Label, "recall@10"); ok {
			out = append(out, Within(e.ID, fmt.Sprintf("%s: filtered recall@10 is %.3f (§ %s)", m.Label, f.Value, section),
				f.Value, m.Recall, RecallTolerance, ""))
		}
		if f, ok := e.Figure(m.Label, "mean hits"); ok {
			out = append(out, Within(e.ID, fmt.Sprintf("%s: a filtered query returns %.1f rows on average (§ %s)", m.Label, f.Value, section),
				f.Value, m.MeanHits, HitsTolerance(f.Value, env.Scale.K), "rows"))
		}
	}
	return out
}

// filterMeta builds the metadata store of the environment's data set:
// category (keyword), year (integer) and region (keyword) for every
// document, keyed by its position. indexed gives every field a payload
// index (Redis's declared TAG/NUMERIC fields, Elasticsearch's mapping,
// Qdrant after create_payload_index); without it filters read the stored
// payload of each document they check (pgvector's JSONB metadata column,
// Qdrant as Spring AI creates it).
func filterMeta(env *Env, indexed bool) (*filter.Store, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	if ds.Meta == nil {
		return nil, fmt.Errorf("experiment: the data set has no metadata: %w", ErrNotRunnable)
	}
	var schema filter.Schema
	if indexed {
		schema.Fields = []filter.Field{
			{Name: "category", Kind: filter.KindKeyword, Indexed: true},
			{Name: "year", Kind: filter.KindInteger, Indexed: true},
			{Name: "region", Kind: filter.KindKeyword, Indexed: true},
		}
	}
	st, err := filter.NewStore(schema)
	if err != nil {
		return nil, err
	}
	docs := make([]filter.Doc, len(ds.Meta))
	for i, d := range ds.Meta {
		docs[i] = filter.Doc{Key: strconv.Itoa(i), Meta: map[string]any{"category": d.Category, "year": d.Year, "region": d.Region}}
	}
	if _, err := st.Add(docs...); err != nil {
		return nil, err
	}
	return st, nil
}

// StrategyMeasurement is what one store (or one setting) answered for the
// environment's queries under a filter.
type StrategyMeasurement struct {
	Label      string
	Matching   int // documents the filter matches
	Recall     float64
	MeanHits   float64
	Latency    metrics.Latency // per-query wall time, single goroutine
	CPULatency metrics.Latency // per-query thread CPU time (Measurement.CPULatency)
	// RoundLatency and RoundCPU are the latencies per alternating round
	// (Measurement.RoundLatency), nil outside Env.Alternate.
	RoundLatency, RoundCPU []metrics.Latency
	DistComps              float64
	PayloadChecks          float64
	Path                   string // the path the strategy took on most queries
	// PayloadLinks summarises the Qdrant payload-block links of the graph
	// searched ("" when it has none): blocks built and bytes per vector.
	PayloadLinks string
	// Plan is the store's query plan where it chooses one (pgvector:
	// PostgreSQL's index or sequential scan), "" otherwise.
	Plan string
	// Hits is the number of results of each measured query, in query
	// order (MeanHits is their mean): a post-filter's shortfall is uneven
	// when the filter follows the vectors' clusters.
	Hits []int
	// Live is the real pgvector's answer to the same queries under the
	// same settings (nil without Env.PG, and for the other stores).
	Live *LiveMeasurement
}

// measureStrategy runs the environment's queries (Scale.Warmup of them
// first, unmeasured) through coll with strategy s and params p under the
// filter text, and compares each answer with exact search over the
// matching documents.
func MeasureStrategy(env *Env, coll *filtered.Collection, text string, s filtered.Strategy, p filtered.Params, label string) (StrategyMeasurement, error) {
	f, err := coll.Meta().CompileString(text)
	if err != nil {
		return StrategyMeasurement{}, err
	}
	// The exact answers first, so that the timed queries run back to
	// back as in every other measurement.
	truth, err := FilteredTruth(env, coll, f)
	if err != nil {
		return StrategyMeasurement{}, err
	}
	return MeasureAgainst(env, coll, f, truth, s, p, label)
}

// measureAgainst is measureStrategy with the filter compiled and each
// query's exact answer (truth) already computed, so that several
// strategies under one filter share them.
func MeasureAgainst(env *Env, coll *filtered.Collection, f *filter.Compiled, truth [][]engine.ID, s filtered.Strategy, p filtered.Params, label string) (StrategyMeasurement, error) {
	var m StrategyMeasurement
	ds, err := env.Dataset()
	if err != nil {
		return m, err
	}
	k, qs := env.Scale.K, ds.Queries
	m.Label, m.Matching = label, len(f.IDs())
	m.Hits = make([]int, qs.N)
	paths := map[filtered.Strategy]int{}
	runtime.LockOSThread() // the thread's CPU clock times each query (threadClock)
	defer runtime.UnlockOSThread()
	pause, rounds := env.rounds(qs.N) // rounds beside the other rows' inside Env.Alternate
	loop := metrics.Loop{Queries: qs.N, K: k, Truth: truth, Warmup: env.Scale.Warmup, CPU: threadClock(), Before: pause}
	lm, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		rs, st, err := coll.Search(filtered.Request{Query: qs.Row(i), K: k, Filter: f, Strategy: s, Params: p})
		if pass == 0 {
			m.Hits[i] = len(rs)
			m.DistComps += float64(st.DistComps)
			m.PayloadChecks += float64(st.PayloadChecks)
			paths[st.Path]++
		}
		return rs, err
	})
	if err != nil {
		return m, fmt.Errorf("experiment: %s: %w", label, err)
	}
	n := float64(qs.N)
	m.Recall, m.MeanHits, m.Latency, m.CPULatency = lm.Recall, lm.MeanHits, lm.Latency, lm.CPULatency
	m.RoundLatency, m.RoundCPU = roundLatencies(lm.Times, qs.N, rounds), roundLatencies(lm.CPUTimes, qs.N, rounds)
	m.DistComps /= n
	m.PayloadChecks /= n
	best := -1
	for p, c := range paths {
		if c > best || c == best && p.String() < m.Path {
			best, m.Path = c, p.String()
		}
	}
	return m, nil
}

// P50ms and P95ms are the latency quantiles in milliseconds.
func (m StrategyMeasurement) P50ms() float64 {
	return float64(m.Latency.P50) / float64(time.Millisecond)
}

// P95ms is the 95th percentile latency in milliseconds.
func (m StrategyMeasurement) P95ms() float64 {
	return float64(m.Latency.P95) / float64(time.Millisecond)
}

// filterProfile returns the profile used for the filtered strategies
// over one graph: the store's defaults, except that Qdrant is one segment
// (engine/filtered binds one graph; the article's Qdrant collection had
// two). Elasticsearch's filtered search runs over its segments instead
// (measureFiltered, profile.Store.SearchFiltered).
func FilterProfile(k profile.Kind) profile.Profile {
	p := profile.Default(k)
	if k == profile.Qdrant {
		p.Segments = 1
	}
	return p
}

// filteredCollection builds (or reuses) the store of p and binds it to
// metadata (indexed or not) for filtered search.
func FilteredCollection(env *Env, p profile.Profile, indexed bool) (*profile.Store, *filtered.Collection, error) {
	s, err := env.Store(p)
	if err != nil {
		return nil, nil, err
	}
	meta, err := filterMeta(env, indexed)
	if err != nil {
		return nil, nil, err
	}
	coll, err := s.Filtered(meta)
	if err != nil && p.Kind == profile.Qdrant && s.Indexed() < s.Len() {
		// Below indexing_threshold Qdrant has no graph and searches its
		// plain segment: the planner needs none.
		ds, derr := env.Dataset()
		if derr != nil {
			return nil, nil, derr
		}
		coll, err = filtered.New(ds.Base, meta, filtered.Options{Metric: p.Metric})
	}
	if err != nil {
		return nil, nil, err
	}
	return s, coll, nil
}

// filteredTruth is each query's exact top k under f over coll's
// matching documents: the oracle of a filtered recall.
func FilteredTruth(env *Env, coll *filtered.Collection, f *filter.Compiled) ([][]engine.ID, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	k, qs := env.Scale.K, ds.Queries
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		rs, _, err := coll.Search(filtered.Request{Query: qs.Row(i), K: k, Filter: f, Strategy: filtered.Exact})
		if err != nil {
			return nil, err
		}
		truth[i] = make([]engine.ID, len(rs))
		for j, r := range rs {
			truth[i][j] = r.ID
		}
	}
	return truth, nil
}

// The article's filter and its category.
const (
	// ArticleFilter is the Spring AI VectorStore article's filter (1,328 of 30,000
	// documents, 4.4 %, at the article's scale).
	ArticleFilter = dataset.ArticleWhere
	// ArticleCategory is the category of ArticleFilter: queries drawn from one
	// of its clusters find matching rows near them, the others almost none.
	ArticleCategory = "c3"
)
