package experiment

import (
	"fmt"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/pglive"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e02 is the seed-000 article's unfiltered comparison (02-unfiltered.txt).
var e02 = Experiment{
	ID:      "E02",
	Title:   "unfiltered recall@10 of four stores on their defaults",
	Article: "seed 000 (Spring AI VectorStore article), 02-unfiltered.txt: 100 queries after 20 warm-up, topK=10, cosine",
	Figures: storeFigures(map[string][4]float64{
		// recall@10, p50 ms, p95 ms, mean hits
		"pgvector":      {0.951, 9.5, 16.4, 10},
		"redis":         {0.616, 0.7, 1.1, 10},
		"qdrant":        {0.999, 2.8, 6.8, 10},
		"elasticsearch": {0.491, 5.4, 20.5, 10},
	}),
}

func init() { e02.Run, e02.Notebook = runE02, "01-four-stores-on-defaults.ipynb"; Register(e02) }

func storeFigures(m map[string][4]float64) []Figure {
	var fs []Figure
	for _, k := range []profile.Kind{profile.PGVector, profile.Redis, profile.Qdrant, profile.Elasticsearch} {
		v, ok := m[k.String()]
		if !ok {
			continue
		}
		fs = append(fs,
			Figure{Row: k.String(), Measure: "recall@10", Value: v[0]},
			Figure{Row: k.String(), Measure: "p50", Value: v[1], Unit: "ms"},
			Figure{Row: k.String(), Measure: "p95", Value: v[2], Unit: "ms"},
			Figure{Row: k.String(), Measure: "mean hits", Value: v[3]},
		)
	}
	return fs
}

// E02Measure builds the four default stores (or reuses them) and measures
// each with the environment's queries, in the article's order.
func E02Measure(env *Env) ([]Measurement, error) {
	var out []Measurement
	ps := profile.Defaults()
	for i, p := range ps {
		env.progress(i, len(ps), "E02 stores")
		m, err := MeasureProfile(env, p)
		if err != nil {
			return nil, err
		}
		if p.Kind == profile.PGVector && env.PG != nil {
			lm, err := MeasureLive(env, "", pglive.Settings{}, p.Kind.String())
			if err != nil {
				return nil, err
			}
			m.Live = &lm
		}
		out = append(out, m)
	}
	env.progress(len(ps), len(ps), "E02 stores")
	return out, nil
}

// E02Table puts the measurements beside the article's figures.
func E02Table(env *Env, ms []Measurement) *table.Table {
	t := table.New(fmt.Sprintf("E02 unfiltered: %d queries after %d warm-up, topK=%d, %s, each store's defaults", env.Scale.Queries, env.Scale.Warmup, env.Scale.K, env.Metric()),
		table.Col("store", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	t.AddColumns(table.Pair("p50", "ms", 2)...)
	t.AddColumns(table.Pair("p95", "ms", 2)...)
	t.AddColumns(table.Pair("mean hits", "", 1)...)
	t.AddColumns(table.Column{Header: "query plan", Source: table.Lab})
	live := false
	for _, m := range ms {
		live = live || m.Live != nil
	}
	if live {
		t.AddColumns(liveColumns(env, table.Column{Header: "recall@10", Prec: 3}, table.Column{Header: "p50", Unit: "ms", Prec: 2},
			table.Column{Header: "p95", Unit: "ms", Prec: 2}, table.Column{Header: "mean hits", Prec: 1}, table.Column{Header: "PostgreSQL plan"})...)
	}
	for _, m := range ms {
		row := m.Label
		vals := []any{row,
			e02.ArticleValue(row, "recall@10"), m.Recall,
			e02.ArticleValue(row, "p50"), m.P50ms(),
			e02.ArticleValue(row, "p95"), m.P95ms(),
			e02.ArticleValue(row, "mean hits"), m.MeanHits,
			m.Plan.String()}
		if live {
			vals = append(vals, liveValues(m.Live, func(l *LiveMeasurement) []any {
				return []any{l.Recall, l.P50ms(), l.P95ms(), l.MeanHits, l.PlanName()}
			}, 5)...)
		}
		_ = t.AddValues(vals...)
	}
	if live {
		liveNote(env, t)
	}
	t.Note("article: four real services on one 2-vCPU machine, each call a network round trip through Spring AI; lab: the same mechanisms in one Go process, so milliseconds are not comparable, recall and hits are")
	t.Note("recall@%d is against the exact top-%d over all %d documents (brute force)", env.Scale.K, env.Scale.K, env.Scale.N)
	return t
}

func runE02(env *Env) (*Report, error) {
	ms, err := E02Measure(env)
	if err != nil {
		return nil, err
	}
	r := NewReport(e02, env)
	t := E02Table(env, ms)
	r.AddTable(t)
	if c, err := chart.Compare(t, "recall@10"); err == nil {
		c.Title = "E02 recall@10 on defaults: article vs lab"
		r.AddChart(c)
	}
	for _, m := range ms {
		r.Note("%s", m)
	}
	E02Verdicts(env, ms)
	es, err := E02Segments(env)
	if err != nil {
		return nil, err
	}
	r.AddTable(es)
	return r, nil
}

// E02Segments measures the Elasticsearch default on one segment (the
// profile's default, as after a force-merge) and on ten (what the
// article's refreshes would have flushed), for the bbq_hnsw default and
// for plain hnsw: a lab finding, not an article table.
func E02Segments(env *Env) (*table.Table, error) {
	var ps []profile.Profile
	var labels []string
	for _, typ := range []profile.IndexType{profile.AutoType, profile.HNSWType} {
		for _, segs := range []int{1, 10} {
			p := profile.Default(profile.Elasticsearch)
			p.Type, p.Segments = typ, segs
			ps = append(ps, p)
			labels = append(labels, fmt.Sprintf("%s, %d segment(s)", p.EffectiveType(env.Scale.Dim), segs))
		}
	}
	t, err := CompareProfiles(env, "E02 finding: Elasticsearch segments at num_candidates = 15 (lab only)", labels, ps)
	if err != nil {
		return nil, err
	}
	t.Note("num_candidates is the beam of each segment: more segments, more candidates in all; the article's hnsw index reached 0.995 at num_candidates 15, which one segment cannot")
	return t, nil
}
