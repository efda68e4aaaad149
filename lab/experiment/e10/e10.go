package e10

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e10 is the article's Elasticsearch index_options.type comparison
// (Spring AI VectorStore article, 10-elasticsearch-index-types).
var Experiment = experiment.Experiment{
	ID:      "E10",
	Claims:  claims,
	Title:   "Elasticsearch index_options.type: bbq_hnsw, int8_hnsw, hnsw — recall, filtered recall, store size",
	Article: "Spring AI VectorStore article, the Elasticsearch index-type table: same 30,000 documents re-indexed per type, num_candidates default",
	Figures: []experiment.Figure{
		{Row: "bbq_hnsw", Measure: "recall@10", Value: 0.491}, {Row: "bbq_hnsw", Measure: "filtered recall@10", Value: 0.544}, {Row: "bbq_hnsw", Measure: "store size", Value: 54.4, Unit: "MB"},
		{Row: "int8_hnsw", Measure: "recall@10", Value: 0.952}, {Row: "int8_hnsw", Measure: "filtered recall@10", Value: 0.974}, {Row: "int8_hnsw", Measure: "store size", Value: 64.1, Unit: "MB"},
		{Row: "hnsw", Measure: "recall@10", Value: 0.995}, {Row: "hnsw", Measure: "filtered recall@10", Value: 1.000}, {Row: "hnsw", Measure: "store size", Value: 52.6, Unit: "MB"},
	},
}

func init() {
	Experiment.Run, Experiment.Notebook = runE10, "03-elasticsearch-quantized-default.ipynb"
	experiment.Register(Experiment)
}

// Types is the article's row order.
var Types = []profile.IndexType{profile.BBQHNSW, profile.Int8HNSW, profile.HNSWType}

// Measure builds the Elasticsearch profile with each index type (all
// else default) and measures it unfiltered and with the article's filter.
func Measure(env *experiment.Env, types []profile.IndexType) (ms, fms []experiment.Measurement, bytes []float64, err error) {
	if len(types) == 0 {
		return nil, nil, nil, fmt.Errorf("experiment: E10: no index types: %w", experiment.ErrBadArgument)
	}
	for i, typ := range types {
		env.Step(i, len(types), "E10 index types")
		p := profile.Default(profile.Elasticsearch)
		p.Type = typ
		s, err := env.Store(p)
		if err != nil {
			return nil, nil, nil, err
		}
		label := typ.String()
		m, err := experiment.Measure(env, s, label)
		if err != nil {
			return nil, nil, nil, err
		}
		// Filtered, the same index: each segment searched as Lucene
		// 10.3 does (profile.Store.SearchFiltered).
		fm, err := experiment.MeasureFiltered(env, s, experiment.ArticleFilter, label)
		if err != nil {
			return nil, nil, nil, err
		}
		ms, fms, bytes = append(ms, m), append(fms, fm), append(bytes, s.BytesPerVector())
	}
	env.Step(len(types), len(types), "E10 index types")
	return ms, fms, bytes, nil
}

// Table puts the measurements beside the article's figures.
func Table(env *experiment.Env, ms, fms []experiment.Measurement, bytes []float64) *table.Table {
	t := table.New(fmt.Sprintf("E10 Elasticsearch index_options.type (m=16, ef_construction=100, num_candidates ⌈1.5·k⌉), %d queries, topK=%d", env.Scale.Queries, env.Scale.K),
		table.Col("type", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	t.AddColumns(table.Column{Header: "segments", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Pair("filtered recall@10", "", 3)...)
	t.AddColumns(table.Column{Header: "filtered paths", Source: table.Lab})
	t.AddColumns(table.Column{Header: "store size", Unit: "MB", Source: table.Article, Prec: 1})
	t.AddColumns(table.Column{Header: "resident bytes/vector", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Column{Header: "resident size", Unit: "MB", Source: table.Lab, Prec: 1})
	t.AddColumns(table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 2})
	t.AddColumns(table.Column{Header: "query plan", Source: table.Lab})
	for i, m := range ms {
		row := m.Label
		var fr, fpaths any
		if i < len(fms) {
			fr, fpaths = fms[i].Recall, fms[i].Leaves.String()
		}
		_ = t.AddValues(row,
			Experiment.ArticleValue(row, "recall@10"), m.Recall, m.Segments,
			Experiment.ArticleValue(row, "filtered recall@10"), fr, fpaths,
			Experiment.ArticleValue(row, "store size"),
			bytes[i], bytes[i]*float64(env.Scale.N)/1e6,
			m.P50ms(), m.Plan.String())
	}
	t.Note("article store size is Elasticsearch's on-disk index (float32 vectors kept for rescoring, codes, graph, the documents' text and metadata); the lab's resident size counts float32 vectors + graph links + codes only, so it is not the same quantity: both show that quantization adds codes beside the float32 vectors rather than replacing them")
	t.Note("filtered: %s through the store's own filtered strategy; recall against the exact top-%d of the matching documents", experiment.ArticleFilter, env.Scale.K)
	t.Note("segments: the index as the article's load leaves it (profile.ESSegments: refresh_interval 1s at 3,039 docs/s, TieredMergePolicy's 10 per tier; the article reports neither a segment count nor a force-merge), searched as Lucene 10.3+ does, filtered or not")
	t.Note("int8_hnsw: Elasticsearch 9.4+'s 7-bit optimized scalar quantization, each vector with its own interval around its segment's centroid and the query coded to 7 bits around it (ES94HnswScalarQuantizedVectorsFormat over Lucene 10.4's Lucene104ScalarQuantizedVectorsFormat SEVEN_BIT; segment.Int8OSQ); up to 9.3 it was Lucene 9.9's scalar quantizer with global bounds (a profile with version below 9.4)")
	t.Note("filtered paths: how Lucene 10.3 searched the segments, summed over the queries; with about 4.4 %% of each segment matching, ln(segment size)·k exceeds the matches, so the reader scores every match (with the type's codes) instead of walking the graph, and the best ⌈oversample·k⌉ are rescored with float32")
	return t
}

func runE10(env *experiment.Env) (*experiment.Report, error) {
	ms, fms, bytes, err := Measure(env, Types)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(Experiment, env)
	t := Table(env, ms, fms, bytes)
	for i, m := range ms {
		if a, ok := Experiment.Figure(m.Label, "filtered recall@10"); ok && i < len(fms) && fms[i].Recall-a.Value > 0.1 {
			r.Note("%s: the lab's filtered recall@10 (%.3f) is well above the article's (%.3f); the lab's filtered search is the profile's in-graph filtered walk (engine/filtered, plan %s) — the gap is not explained yet and is not claimed as a reproduction", m.Label, fms[i].Recall, a.Value, fms[i].Plan)
		}
	}
	r.AddTable(t)
	if c, err := chart.Compare(t, "recall@10"); err == nil {
		c.Title = "E10 recall@10 by index type: article vs lab"
		r.AddChart(c)
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, ms, fms, bytes)...)
	// The article's run-to-run range: the default rebuilt with two more
	// seeds, beside this run's.
	if len(ms) > 1 && ms[0].Label == profile.BBQHNSW.String() {
		more, err := Rebuilds(env, []uint64{env.Seed + 1, env.Seed + 2})
		if err != nil {
			return nil, err
		}
		r.Verdicts = append(r.Verdicts, RebuildVerdicts(append([]float64{ms[0].Recall}, more...), ms[1].Recall)...)
	}
	return r, nil
}

// CodesOrSegments separates the two explanations of Elasticsearch's
// low (filtered) recall: it measures bbq_hnsw (1-bit codes) and hnsw
// (float32) on one and on ten segments, unfiltered and with the
// article's filter, and its last note reads how much each factor moves
// bbq_hnsw's recall: the codes (hnsw against bbq_hnsw) or the segments
// (ten against one, same codes). The article does not report its segment
// count; ten is what its load leaves (profile.ESSegments).
func CodesOrSegments(env *experiment.Env) (*table.Table, error) {
	k := env.Scale.K
	t := table.New(fmt.Sprintf("Elasticsearch: 1-bit codes or segment count? bbq_hnsw and hnsw on 1 and 10 segments, %d queries, topK=%d", env.Scale.Queries, k),
		table.Col("index type", ""), table.Col("segments", ""))
	t.AddColumns(table.Pair(fmt.Sprintf("recall@%d", k), "", 3)...)
	t.AddColumns(table.Pair(fmt.Sprintf("filtered recall@%d", k), "", 3)...)
	t.AddColumns(table.Column{Header: "filtered paths", Source: table.Lab})
	f := map[string]float64{}
	for _, typ := range []profile.IndexType{profile.BBQHNSW, profile.HNSWType} {
		for _, segs := range []int{1, 10} {
			p := profile.Default(profile.Elasticsearch)
			p.Type, p.Segments = typ, segs
			s, err := env.Store(p)
			if err != nil {
				return nil, err
			}
			label := fmt.Sprintf("%s, %d segment(s)", typ, segs)
			m, err := experiment.Measure(env, s, label)
			if err != nil {
				return nil, err
			}
			fm, err := experiment.MeasureFiltered(env, s, experiment.ArticleFilter, label)
			if err != nil {
				return nil, err
			}
			f[fmt.Sprintf("%s/filtered/%d", typ, segs)] = fm.Recall
			_ = t.AddValues(typ.String(), fmt.Sprint(segs), Experiment.ArticleValue(typ.String(), "recall@10"), m.Recall,
				Experiment.ArticleValue(typ.String(), "filtered recall@10"), fm.Recall, fm.Leaves.String())
			f[fmt.Sprintf("%s/%d", typ, segs)] = m.Recall
		}
	}
	t.Note("article: one index, segment count not reported; its figures stand beside each row of its type")
	t.Note("filtered paths: how Lucene 10.3 searched the segments, summed over the queries: a segment whose matches are few for its graph (≤ ln(segment size)·k) has them all scored by the reader instead of a graph walk; a larger segment walks its graph over the matches (the acorn heuristic)")
	t.Note("bbq_hnsw: float32 instead of 1-bit codes adds %+.3f to the filtered recall and %+.3f to the unfiltered (one segment); ten segments instead of one add %+.3f to the unfiltered recall and %+.3f to the filtered (same codes)",
		f["hnsw/filtered/1"]-f["bbq_hnsw/filtered/1"], f["hnsw/1"]-f["bbq_hnsw/1"], f["bbq_hnsw/10"]-f["bbq_hnsw/1"], f["bbq_hnsw/filtered/10"]-f["bbq_hnsw/filtered/1"])
	return t, nil
}

// Verdicts compares Measure's three index types with the article's
// table (§ "Elasticsearch: the default mapping is quantised…"): recall@10
// and filtered recall@10 per type within 0.05 of the article's, bbq_hnsw
// the lowest recall of the three (the article's finding: the index type
// is the cause), and each quantized type's size against hnsw's (article:
// 54.4 and 64.1 MB against 52.6, 1.03× and 1.22×) within 0.1×: the
// article's sizes are the index's files, the lab's its resident bytes per
// vector, which both hold the float32 vectors, the codes and the graph,
// but not the same per-segment overheads.
func Verdicts(env *experiment.Env, ms, fms []experiment.Measurement, bytes []float64) experiment.Verdicts {
	out := experiment.RecallVerdicts(env, Experiment, ms, "(index type):")
	for _, m := range fms {
		if f, ok := Experiment.Figure(m.Label, "filtered recall@10"); ok {
			out = append(out, experiment.Within("E10", fmt.Sprintf("%s (index type): filtered recall@10 is %.3f", m.Label, f.Value), f.Value, m.Recall, experiment.RecallTolerance, ""))
		}
	}
	at := map[string]int{}
	for i, m := range ms {
		at[m.Label] = i
	}
	b, okB := at["bbq_hnsw"]
	i8, okI := at["int8_hnsw"]
	h, okH := at["hnsw"]
	if !okB || !okI || !okH || len(bytes) != len(ms) {
		return out
	}
	out = append(out, experiment.Holds("E10", "bbq_hnsw has the lowest recall of the three types (§ "+e10Section05+")", "0.491 < 0.952, 0.995",
		fmt.Sprintf("%.3f against %.3f, %.3f", ms[b].Recall, ms[i8].Recall, ms[h].Recall), ms[b].Recall < ms[i8].Recall && ms[b].Recall < ms[h].Recall,
		"1-bit codes rank the candidates that the float32 rescoring then sees"))
	hs, _ := Experiment.Figure("hnsw", "store size")
	for _, i := range []int{b, i8} {
		if f, ok := Experiment.Figure(ms[i].Label, "store size"); ok && bytes[h] > 0 {
			out = append(out, experiment.Within("E10", fmt.Sprintf("%s's store is %.2f× hnsw's (%.1f against %.1f MB)", ms[i].Label, f.Value/hs.Value, f.Value, hs.Value),
				f.Value/hs.Value, bytes[i]/bytes[h], 0.1, "×"))
		}
	}
	return out
}

// e10Section05 is the article's section E05 and E10 both cite.
const e10Section05 = "Elasticsearch: the default mapping is quantised, and on this data it costs half the recall"

// Rebuilds builds the default (bbq_hnsw) index again with each of seeds
// (the graph's levels and the quantizer's sample: what a rebuild changes,
// as Elasticsearch's concurrent graph build does between the article's
// runs) and measures recall@10 on each.
func Rebuilds(env *experiment.Env, seeds []uint64) ([]float64, error) {
	var out []float64
	for _, sd := range seeds {
		p := profile.Default(profile.Elasticsearch)
		p.Type, p.Seed = profile.BBQHNSW, sd
		s, err := env.Store(p)
		if err != nil {
			return nil, err
		}
		m, err := experiment.Measure(env, s, fmt.Sprintf("bbq_hnsw seed %d", sd))
		if err != nil {
			return nil, err
		}
		out = append(out, m.Recall)
	}
	return out, nil
}

// The band of the run-to-run verdicts, set before any run: the article's
// range (0.47–0.50, a width of 0.03 over an unstated number of runs)
// within a factor of 3 (a range from a handful of runs is known to
// little better; a band reaching down to 0 could not fail), and "far
// larger" read as at least 5× the lab's range (the article's gap is 15×:
// 0.952 − 0.50 over 0.03).
const (
	wobbleArticle = 0.03
	wobbleFactor  = 3
	wobbleFar     = 5
)

// RebuildVerdicts judges the article's two honesty points on the default
// row: its recall moved between 0.47 and 0.50 over rebuilds, and the gap
// to int8_hnsw is far larger than that wobble. recalls are the default's
// recall@10 over rebuilds (the first the run's own), int8 int8_hnsw's.
func RebuildVerdicts(recalls []float64, int8 float64) experiment.Verdicts {
	if len(recalls) < 2 {
		return nil
	}
	lo, hi := slices.Min(recalls), slices.Max(recalls)
	parts := make([]string, len(recalls))
	for i, r := range recalls {
		parts[i] = fmt.Sprintf("%.3f", r)
	}
	builds := fmt.Sprintf("%d builds with different seeds: %s", len(recalls), strings.Join(parts, ", "))
	wobble := experiment.Because(experiment.WithinFactor("E10", "bbq_hnsw's recall@10 moves between builds by about 0.03 (0.47–0.50)", wobbleArticle, hi-lo, wobbleFactor, ""), builds)
	if !wobble.Agrees && hi-lo < wobbleArticle {
		wobble = experiment.Because(wobble, "the lab's builds differ only in their seeded levels and quantizer sample; Elasticsearch's graph also depends on the order its concurrent indexing threads insert and on which segments its merges pick, which the lab does not vary")
	}
	ratio := math.Inf(1)
	if hi > lo {
		ratio = (int8 - hi) / (hi - lo)
	}
	far := experiment.Because(experiment.AtLeast("E10", "the gap from bbq_hnsw to int8_hnsw is far larger than the wobble between builds", wobbleFar, ratio, 0, "×"),
		fmt.Sprintf("int8_hnsw %.3f against bbq_hnsw's best build %.3f, over the builds' range %.3f", int8, hi, hi-lo))
	return experiment.Verdicts{wobble, far}
}
