package experiment

import (
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
)

// ArticleFilter is the seed-000 article's filter (1,328 of 30,000
// documents, 4.4 %, at the article's scale).
const ArticleFilter = "category == 'c3' && year >= 2022"

// Metadata builds (once) the documents' metadata in key order, with the
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
	st, err := filter.NewStore(filter.Schema{Mode: filter.Declared, Fields: []filter.Field{
		{Name: "category", Kind: filter.KindKeyword, Indexed: true},
		{Name: "year", Kind: filter.KindInteger, Indexed: true},
		{Name: "region", Kind: filter.KindKeyword, Indexed: true},
	}})
	if err != nil {
		return nil, fmt.Errorf("experiment: metadata: %w", err)
	}
	docs := make([]filter.Doc, len(ds.Meta))
	for i, d := range ds.Meta {
		docs[i] = filter.Doc{Key: fmt.Sprintf("d%d", i), Meta: map[string]any{"category": d.Category, "year": d.Year, "region": d.Region}}
	}
	if _, err := st.Add(docs...); err != nil {
		return nil, fmt.Errorf("experiment: metadata: %w", err)
	}
	e.meta = st
	return st, nil
}

// MeasureFiltered runs the environment's queries with a filter through
// the store's own filtered strategy (see profile.Profile.FilterStrategy):
// warm-up, then every query measured; recall@K is against the exact top-K
// of the matching documents.
func MeasureFiltered(env *Env, s *profile.Store, expr, label string) (Measurement, error) {
	ds, err := env.Dataset()
	if err != nil {
		return Measurement{}, err
	}
	meta, err := env.Metadata()
	if err != nil {
		return Measurement{}, err
	}
	coll, err := s.Filtered(meta)
	if err != nil {
		return Measurement{}, err
	}
	f, err := meta.CompileString(expr)
	if err != nil {
		return Measurement{}, fmt.Errorf("experiment: filter %q: %w", expr, err)
	}
	k := env.Scale.K
	qs := ds.Queries
	truth := make([][]engine.ID, qs.N)
	for i := range truth {
		rs, _, err := coll.Search(filtered.Request{Query: qs.Row(i), K: k, Filter: f, Strategy: filtered.Exact})
		if err != nil {
			return Measurement{}, fmt.Errorf("experiment: filtered truth: %w", err)
		}
		for _, r := range rs {
			truth[i] = append(truth[i], r.ID)
		}
	}
	for i := 0; i < min(env.Scale.Warmup, qs.N); i++ {
		if _, _, err := s.SearchFilter(coll, qs.Row(i), k, f); err != nil {
			return Measurement{}, fmt.Errorf("experiment: %s filtered warm-up %d: %w", label, i, err)
		}
	}
	results := make([][]engine.Result, qs.N)
	lat := make([]time.Duration, qs.N)
	var total time.Duration
	var dist int
	for i := 0; i < qs.N; i++ {
		t0 := time.Now()
		rs, st, err := s.SearchFilter(coll, qs.Row(i), k, f)
		d := time.Since(t0)
		if err != nil {
			return Measurement{}, fmt.Errorf("experiment: %s filtered query %d: %w", label, i, err)
		}
		results[i], lat[i] = rs, d
		total += d
		dist += st.DistComps
	}
	recall, err := metrics.MeanRecall(results, truth, k)
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{
		Label: label, Queries: qs.N, K: k, Recall: recall,
		Latency: metrics.Summarize(lat), QPS: metrics.QPS(qs.N, total),
		MeanHits: metrics.MeanHits(results), DistComps: float64(dist) / float64(qs.N),
		Plan: s.Profile().Plan(k, s.Dim()),
	}, nil
}

// hitsTolerance is how far a lab's mean rows per filtered query may sit
// from an article's and agree: none when the article returned k rows (a
// store returns its LIMIT or it does not), else half the article's figure.
// pgvector's rows are ef_search × s only on average: a query drawn from a
// matching cluster keeps most of its ef_search candidates, the others
// almost none, so the mean over 100 queries moves by tens of percent with
// the queries drawn.
func hitsTolerance(article float64, k int) float64 {
	if article == float64(k) {
		return 0
	}
	return article / 2
}

// strategyVerdicts records, for each measurement whose label has article
// figures in e, whether its recall@10 is within recallTolerance of the
// article's and its mean rows within hitsTolerance; section names the
// article's section the figures are from.
func strategyVerdicts(env *Env, e Experiment, ms []StrategyMeasurement, section string) Verdicts {
	var out Verdicts
	for _, m := range ms {
		if f, ok := e.Figure(m.Label, "recall@10"); ok {
			out = append(out, env.Within(e.ID, fmt.Sprintf("%s: filtered recall@10 is %.3f (§ %s)", m.Label, f.Value, section),
				f.Value, m.Recall, recallTolerance, ""))
		}
		if f, ok := e.Figure(m.Label, "mean hits"); ok {
			out = append(out, env.Within(e.ID, fmt.Sprintf("%s: a filtered query returns %.1f rows on average (§ %s)", m.Label, f.Value, section),
				f.Value, m.MeanHits, hitsTolerance(f.Value, env.Scale.K), "rows"))
		}
	}
	return out
}
