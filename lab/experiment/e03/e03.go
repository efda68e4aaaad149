package e03

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/internal/latency"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/pglive"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e03 is the article's filtered comparison (03-filtered.txt).
var e03 = experiment.Experiment{
	ID:      "E03",
	Claims:  claims,
	Title:   "the filter category == 'c3' && year >= 2022 on four stores' defaults",
	Article: "Spring AI VectorStore article, 03-filtered.txt: 1,328 of 30,000 documents match (4.4 %); truth over the matching documents",
	Figures: experiment.StoreFigures(map[string][4]float64{
		// recall@10, p50 ms, p95 ms, mean hits (03-filtered.txt prints
		// every store's p95)
		"pgvector":      {0.167, 10.0, 15.7, 1.8},
		"redis":         {1.000, 1.6, 2.4, 10},
		"qdrant":        {1.000, 27.6, 38.9, 10},
		"elasticsearch": {0.544, 3.1, 7.7, 10},
	}),
}

func init() {
	e03.Run, e03.Notebook = runE03, "04-pgvector-filters-and-iterative-scan.ipynb"
	experiment.Register(e03)
}

// Measure runs the article's filter on the four stores' defaults, each
// with its own strategy: pgvector post-filters the ef_search rows against
// the unindexed metadata column; Redis runs its hybrid policy over declared
// (indexed) fields; Qdrant plans without payload indexes (Spring AI creates
// none); Elasticsearch filters each of its segments as Lucene 10.3 does
// (profile.Store.SearchFiltered: its acorn heuristic, the exhaustive and
// exact paths for segments with few matches).
//
// The four are measured in alternating rounds (experiment.Env.Alternate),
// so that the latency ratios compare rounds measured side by side.
func Measure(env *experiment.Env) ([]experiment.StrategyMeasurement, error) {
	kinds := []profile.Kind{profile.PGVector, profile.Redis, profile.Qdrant, profile.Elasticsearch}
	out := make([]experiment.StrategyMeasurement, len(kinds))
	err := env.Alternate(len(kinds), func(i int) error {
		k := kinds[i]
		env.Step(i, len(kinds), "E03 stores")
		if k == profile.Elasticsearch {
			m, err := esFilteredStrategy(env, profile.Default(k), k.String())
			out[i] = m
			return err
		}
		p := experiment.FilterProfile(k)
		indexed := k == profile.Redis || k == profile.Elasticsearch
		s, coll, err := experiment.FilteredCollection(env, p, indexed)
		if err != nil {
			return err
		}
		fp := p.FilterParams(env.Scale.K, s.Dim())
		st, plan, err := p.FilterPlan(s.Len(), s.Dim(), env.Scale.K)
		if err != nil {
			return err
		}
		m, err := experiment.MeasureStrategy(env, coll, experiment.ArticleFilter, st, fp, k.String())
		m.Plan = plan
		if err != nil {
			return err
		}
		if k == profile.PGVector && env.PG != nil {
			lm, err := experiment.MeasureLive(env, experiment.ArticleFilter, pglive.Settings{SeqScanOff: p.SeqScanOff}, k.String())
			if err != nil {
				return err
			}
			m.Live = &lm
		}
		out[i] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	env.Step(len(kinds), len(kinds), "E03 stores")
	return out, nil
}

// esFilteredStrategy measures Elasticsearch's filtered search on profile
// p over its segments (measureFiltered) as a StrategyMeasurement, its
// path the segments' Lucene paths over all queries.
func esFilteredStrategy(env *experiment.Env, p profile.Profile, label string) (experiment.StrategyMeasurement, error) {
	s, err := env.Store(p)
	if err != nil {
		return experiment.StrategyMeasurement{}, err
	}
	meta, err := env.Metadata()
	if err != nil {
		return experiment.StrategyMeasurement{}, err
	}
	f, err := meta.CompileString(experiment.ArticleFilter)
	if err != nil {
		return experiment.StrategyMeasurement{}, err
	}
	m, err := experiment.MeasureFiltered(env, s, experiment.ArticleFilter, label)
	if err != nil {
		return experiment.StrategyMeasurement{}, err
	}
	return experiment.StrategyMeasurement{Label: label, Matching: len(f.IDs()), Recall: m.Recall, MeanHits: m.MeanHits,
		Latency: m.Latency, CPULatency: m.CPULatency, RoundLatency: m.RoundLatency, RoundCPU: m.RoundCPU, DistComps: m.DistComps, Path: fmt.Sprintf("%d segments: %v", m.Segments, m.Leaves)}, nil
}

// Table puts the lab's figures beside the article's.
func Table(env *experiment.Env, ms []experiment.StrategyMeasurement) *table.Table {
	matching := 0
	if len(ms) > 0 {
		matching = ms[0].Matching
	}
	t := table.New(fmt.Sprintf("E03 filter %s (%d of %d documents match), %d queries, topK=%d", experiment.ArticleFilter, matching, env.Scale.N, env.Scale.Queries, env.Scale.K),
		table.Col("store", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	t.AddColumns(table.Pair("p50", "ms", 2)...)
	t.AddColumns(table.Pair("mean hits", "", 1)...)
	t.AddColumns(table.Column{Header: "strategy", Source: table.Lab},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: -1},
		table.Column{Header: "payload reads/query", Source: table.Lab, Prec: -1})
	live := slices.ContainsFunc(ms, func(m experiment.StrategyMeasurement) bool { return m.Live != nil })
	if live {
		t.AddColumns(experiment.LiveColumns(env, table.Column{Header: metrics.RecallHeader(env.Scale.K), Prec: 3}, table.Column{Header: "p50", Unit: "ms", Prec: 2},
			table.Column{Header: "mean hits", Prec: 1}, table.Column{Header: "PostgreSQL plan"})...)
	}
	for _, m := range ms {
		vals := []any{m.Label, e03.ArticleValue(m.Label, "recall@10"), m.Recall,
			e03.ArticleValue(m.Label, "p50"), m.P50ms(),
			e03.ArticleValue(m.Label, "mean hits"), m.MeanHits,
			m.Path, m.DistComps, m.PayloadChecks}
		if live {
			vals = append(vals, experiment.LiveValues(m.Live, func(l *experiment.LiveMeasurement) []any {
				return []any{l.Recall, l.P50ms(), l.MeanHits, l.PlanName()}
			}, 4)...)
		}
		_ = t.AddValues(vals...)
	}
	if live {
		experiment.LiveNote(env, t)
	}
	if pl, err := experiment.FilterProfile(profile.PGVector).PgvectorPlan(max(env.Scale.N, 1), max(env.Scale.Dim, 1), max(env.Scale.K, 1), profile.SpringAIFilterSelectivity); err == nil && !pl.IndexScan {
		t.Note("pgvector: on %d rows PostgreSQL plans a %v: every row filtered, exact (on the article's 30,000 rows it takes the index; see E07)", env.Scale.N, pl)
	} else {
		t.Note("pgvector: PostgreSQL plans an %v; the scan yields hnsw.ef_search = 40 rows and the WHERE clause keeps ≈ 40 × %.1f %% of them", pl, 100*float64(matching)/float64(max(env.Scale.N, 1)))
	}
	t.Note("qdrant: no payload index (as Spring AI creates the collection), so the planner samples the stored payloads and, below full_scan_threshold, reads every payload: exact but slow (E08)")
	t.Note("elasticsearch: the index as the article's load leaves it (%d segments, profile.ESSegments), each searched as Lucene 10.3 does under the acorn filter heuristic: a segment whose matches are few for its graph (≤ ln(size)·k) scores them all with the 1-bit codes, otherwise its graph is walked over the matches only; the best ⌈oversample·k⌉ of all segments are then rescored with float32", profile.ESSegments)
	return t
}

func runE03(env *experiment.Env) (*experiment.Report, error) {
	ms, err := Measure(env)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e03, env)
	r.AddTable(Table(env, ms))
	r.Verdicts = append(r.Verdicts, Verdicts(env, ms)...)
	r.Verdicts = append(r.Verdicts, LatencyVerdicts(ms)...)
	return r, nil
}

// Verdicts compares Measure's four stores with the article's
// filtered table (§ "Adding a metadata filter"): recall@10 within 0.05 of
// the article's (pgvector 0.167, Redis and Qdrant 1.000, Elasticsearch
// 0.544) and the mean rows returned (pgvector 1.8 = 40 × 4.4 % ± half of
// it, the others exactly 10).
func Verdicts(env *experiment.Env, ms []experiment.StrategyMeasurement) experiment.Verdicts {
	return experiment.StrategyVerdicts(env, e03, ms, "Adding a metadata filter")
}

// PostFilterHits reads the pgvector row of ms (Measure's) as
// [PostFilterHits] describes.
func PostFilterHits(env *experiment.Env, ms []experiment.StrategyMeasurement) (*experiment.PostFilterHits, error) {
	var pg *experiment.StrategyMeasurement
	for i := range ms {
		if ms[i].Label == profile.PGVector.String() {
			pg = &ms[i]
		}
	}
	if pg == nil {
		return nil, fmt.Errorf("experiment: PostFilterHits: no pgvector row among %d measurements: %w", len(ms), experiment.ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	in := make([]bool, len(ds.QueryClusters))
	for i, c := range ds.QueryClusters {
		in[i] = "c"+strconv.Itoa(c%dataset.Categories) == experiment.ArticleCategory
	}
	inside, outside, err := experiment.SplitHits(pg.Hits, in)
	if err != nil {
		return nil, fmt.Errorf("experiment: PostFilterHits: %w", err)
	}
	aHits, _ := e03.Figure(pg.Label, "mean hits")
	aRecall, _ := e03.Figure(pg.Label, "recall@10")
	return &experiment.PostFilterHits{
		Ef:       profile.Default(profile.PGVector).Ef,
		Sel:      experiment.Selectivity{Filter: experiment.ArticleFilter, Matching: pg.Matching, N: ds.Base.N},
		K:        env.Scale.K,
		MeanHits: pg.MeanHits, Recall: pg.Recall, ArticleHits: aHits.Value, ArticleRecall: aRecall.Value,
		InCategory: inside, Others: outside,
	}, nil
}

// LatencyVerdicts judges the article's filtered p50 and p95 per store
// (§ "Adding a metadata filter") by what the lab models, each store's
// filtered search on its defaults: Redis answers fastest (1.6 ms against
// 3.1–27.6), and each other store's p50 and p95 over Redis's is the
// article's within ×/÷ 2, never below 1×. A ratio that differs names the
// work each side did and what the lab does not model: above the band,
// the client round trip in the article's Redis figure; below it, the
// store's own path (its executor, its transport, its JVM).
func LatencyVerdicts(ms []experiment.StrategyMeasurement) experiment.Verdicts {
	stores := make([]latency.Store, len(ms))
	for i, m := range ms {
		stores[i] = latency.Store{Name: m.Label, Timing: latency.OfStrategy(m)}
	}
	return latency.OverRedis{ID: "E03", Figures: e03,
		Fastest: "redis answers the filtered query fastest of the four on its defaults (p50)", Article: "1.6 ms against 3.1–27.6",
		Cheapest: func(rd int) string { return fmt.Sprintf("redis scores %.0f documents per query", ms[rd].DistComps) },
		Dearer:   "another store's filtered search is cheaper here",
		Claim:    "%s's filtered %s over redis's on the defaults",
		// The article's table has every other store slower than Redis, so
		// a lab ratio below 1× differs however near.
		Toward: true,
		Work: func(i, rd int) string {
			m := ms[i]
			why := fmt.Sprintf("%.0f distances and %.0f payload reads per query against redis's %.0f distances (%.1f×)", m.DistComps, m.PayloadChecks, ms[rd].DistComps, m.DistComps/math.Max(ms[rd].DistComps, 1))
			if m.Path != "" {
				why = m.Path + ": " + why
			}
			return why
		},
		Above: func(redis float64) string {
			return fmt.Sprintf("the client round trip, which floors the article's redis at 1.6 ms (E02: 0.7 ms unfiltered) while the lab's answers in %.3f ms, so every ratio over it grows", redis)
		},
		Unmodelled: map[string]string{
			"pgvector":      "PostgreSQL's executor fetches each of the 40 index rows' heap tuples and its JSONB metadata to apply the WHERE clause, and returns rows over JDBC; the lab filters a column in memory",
			"qdrant":        "Qdrant answers over gRPC from Spring AI's client and reads each payload from its storage; the lab reads an in-memory column",
			"elasticsearch": "Elasticsearch answers a JSON _search over HTTP on a JVM; the lab calls the search in process",
		},
	}.Verdicts(stores)
}
