package experiment

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// withSpread returns a fresh environment like e (scale, seed, machine,
// workers, cache, log and progress) whose generated data set has the
// given spread (dataset.Config.Spread: the expected norm of a point's
// offset from its unit cluster centre). It has its own data set, truth
// and stores. A real data set has no spread.
func (e *Env) withSpread(spread float64) (*Env, error) {
	if e.real != nil {
		return nil, fmt.Errorf("experiment: spread is a knob of the generated set, not of %s: %w", e.real.name, ErrBadArgument)
	}
	if !(spread > 0) || math.IsInf(spread, 0) {
		return nil, fmt.Errorf("experiment: spread must be finite and > 0, got %v: %w", spread, ErrBadArgument)
	}
	return &Env{Scale: e.Scale, Seed: e.Seed, Machine: e.Machine, Workers: e.Workers, CacheDir: e.CacheDir,
		Log: e.Log, Progress: e.Progress, spread: spread}, nil
}

// SpreadRow is one spread's recalls@K: BBQ is the store's 1-bit codes
// scanned flat with oversample 3 (Elasticsearch's default, no graph:
// the quantizer alone), Redis and PGVector the two stores' defaults
// (graphs over float32 vectors).
type SpreadRow struct {
	Spread               float64
	BBQ, Redis, PGVector float64
}

// SpreadSensitivity measures, for each generator spread, what the data
// does to the figures the articles compare: Elasticsearch's 1-bit codes
// (flat, oversample 3) and the Redis and pgvector defaults' recall@K
// (EF_RUNTIME 10, ef_search 40). The articles' own data fixes one
// spread: the one whose Redis and pgvector rows match their figures
// (0.616 and 0.951) is marked, and bbq's recall at that spread is the
// one to set beside Elasticsearch's 0.491. Each spread builds two graphs
// over its own data set: minutes at the article's scale.
func SpreadSensitivity(env *Env, spreads []float64) ([]SpreadRow, error) {
	if len(spreads) == 0 {
		return nil, fmt.Errorf("experiment: SpreadSensitivity: no spreads: %w", ErrBadArgument)
	}
	var out []SpreadRow
	for i, s := range spreads {
		env.Step(i, len(spreads), "spreads")
		sub, err := env.withSpread(s)
		if err != nil {
			return nil, err
		}
		r := SpreadRow{Spread: s}
		q, err := QuantFlat(sub, "bbq", []float64{3})
		if err != nil {
			return nil, err
		}
		r.BBQ = q.RecallOver[0]
		for _, k := range []profile.Kind{profile.Redis, profile.PGVector} {
			st, err := sub.Store(profile.Default(k))
			if err != nil {
				return nil, err
			}
			m, err := Measure(sub, st, k.String())
			if err != nil {
				return nil, err
			}
			if k == profile.Redis {
				r.Redis = m.Recall
			} else {
				r.PGVector = m.Recall
			}
		}
		if err := sub.Close(); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	env.Step(len(spreads), len(spreads), "spreads")
	return out, nil
}

// spreadFigures are the article's defaults-table figures the spread is
// matched against (Spring AI VectorStore article, 02-recall.txt), and
// Elasticsearch's bbq_hnsw figure set beside the codes' recall.
var spreadFigures = struct{ Redis, PGVector, BBQ float64 }{0.616, 0.951, 0.491}

// spreadMatch returns the row whose Redis and pgvector recalls are
// nearest the article's (the larger of the two gaps, smallest).
func spreadMatch(rows []SpreadRow) (SpreadRow, bool) {
	best, gap := SpreadRow{}, math.Inf(1)
	for _, r := range rows {
		g := math.Max(math.Abs(r.Redis-spreadFigures.Redis), math.Abs(r.PGVector-spreadFigures.PGVector))
		if g < gap {
			best, gap = r, g
		}
	}
	return best, len(rows) > 0
}

// SpreadTable prints the rows with the matching spread marked.
func SpreadTable(env *Env, rows []SpreadRow) *table.Table {
	t := table.New(fmt.Sprintf("What the data does: recall@%d by the generator's spread, %d × %d, %d queries", env.Scale.K, env.Scale.N, env.Scale.Dim, env.Scale.Queries),
		table.Column{Header: "spread", Source: table.Lab, Prec: 2})
	t.AddColumns(table.Pair("bbq codes, flat ×3", "", 3)...)
	t.AddColumns(table.Pair("redis EF_RUNTIME 10", "", 3)...)
	t.AddColumns(table.Pair("pgvector ef_search 40", "", 3)...)
	t.AddColumns(table.Column{Header: "matches the article's data", Source: table.Lab})
	m, _ := spreadMatch(rows)
	for _, r := range rows {
		mark := ""
		if r.Spread == m.Spread {
			mark = "◀ nearest"
		}
		_ = t.AddValues(r.Spread, spreadFigures.BBQ, r.BBQ, spreadFigures.Redis, r.Redis, spreadFigures.PGVector, r.PGVector, mark)
	}
	t.Note("article: Elasticsearch's bbq_hnsw default (a graph, ten segments) beside the codes scanned flat; Redis and pgvector defaults over the article's own data, whose spread is unknown: the marked row is the spread where both land nearest their figures (dataset.DefaultSpread is %v)", dataset.DefaultSpread)
	if len(rows) > 1 {
		span := func(f func(SpreadRow) float64) float64 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, r := range rows {
				lo, hi = math.Min(lo, f(r)), math.Max(hi, f(r))
			}
			return hi - lo
		}
		t.Note("across spreads %v–%v the recall moves by %.3f for the bbq codes, %.3f for Redis (a beam of 10) and %.3f for pgvector (a beam of 40)",
			rows[0].Spread, rows[len(rows)-1].Spread, span(func(r SpreadRow) float64 { return r.BBQ }),
			span(func(r SpreadRow) float64 { return r.Redis }), span(func(r SpreadRow) float64 { return r.PGVector }))
	}
	return t
}

// SpreadChart draws the three recalls against the spread, with the
// article's figures as flat reference lines.
func SpreadChart(rows []SpreadRow) *chart.Line {
	c := chart.NewLine("recall@10 by the data's spread: 1-bit codes move, graphs do not", "spread (offset norm / centre norm)", "recall@10")
	var xs, bbq, redis, pg []float64
	for _, r := range rows {
		xs, bbq, redis, pg = append(xs, r.Spread), append(bbq, r.BBQ), append(redis, r.Redis), append(pg, r.PGVector)
	}
	flat := func(v float64) []float64 {
		out := make([]float64, len(xs))
		for i := range out {
			out[i] = v
		}
		return out
	}
	c.Add("bbq codes, flat ×3 (lab)", xs, bbq)
	c.Add("redis default (lab)", xs, redis)
	c.Add("pgvector default (lab)", xs, pg)
	c.Add("article: elasticsearch 0.491", xs, flat(spreadFigures.BBQ))
	c.Add("article: redis 0.616", xs, flat(spreadFigures.Redis))
	c.Add("article: pgvector 0.951", xs, flat(spreadFigures.PGVector))
	return c
}
