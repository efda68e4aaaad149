package experiment

import (
	"fmt"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// The article's filter matched 1,328 of its 30,000 documents (the Spring
// AI VectorStore article, § "Adding a metadata filter"): the selectivity
// pgvector's post-filter multiplies ef_search by.
const (
	articleFilterMatching = 1328
	articleFilterN        = 30000
)

// Selectivity is how many documents of the environment's collection a
// filter admits, counted exactly from the metadata: pgvector's post-filter
// returns about ef_search × S() rows, so every reading of its hits starts
// from this share.
type Selectivity struct {
	Filter   string
	Matching int // documents the filter admits
	N        int // documents in the collection
}

// s is the share of the collection the filter admits, in [0, 1].
func (s Selectivity) S() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Matching) / float64(s.N)
}

// String prints the filter, the lab's count and, for [ArticleFilter], the
// article's count beside it.
func (s Selectivity) String() string {
	out := fmt.Sprintf("filter %s\n  lab:     %d of %d documents match (s = %.1f %%)", s.Filter, s.Matching, s.N, 100*s.S())
	if s.Filter == ArticleFilter {
		out += fmt.Sprintf("\n  article: 1,328 of 30,000 (s = %.1f %%)", 100*float64(articleFilterMatching)/articleFilterN)
	}
	return out
}

// MeasureSelectivity counts the documents of the environment's data set
// that expr admits (pgvector's metadata, unindexed: the count does not
// depend on the index).
func MeasureSelectivity(env *Env, expr string) (Selectivity, error) {
	ds, err := env.Dataset()
	if err != nil {
		return Selectivity{}, err
	}
	meta, err := filterMeta(env, false)
	if err != nil {
		return Selectivity{}, err
	}
	f, err := meta.CompileString(expr)
	if err != nil {
		return Selectivity{}, fmt.Errorf("experiment: selectivity of filter %q: %w", expr, err)
	}
	return Selectivity{Filter: expr, Matching: len(f.IDs()), N: ds.Base.N}, nil
}

// HitsSummary sums up the rows a group of filtered queries returned: a
// post-filter's mean hides that some queries get all k rows and many none.
type HitsSummary struct {
	Queries  int
	MeanHits float64
	NoHit    int // queries that returned no row at all
}

// summarizeHits sums up hits, the rows each query returned.
func summarizeHits(hits []int) HitsSummary {
	s := HitsSummary{Queries: len(hits)}
	if len(hits) == 0 {
		return s
	}
	sum := 0
	for _, h := range hits {
		sum += h
		if h == 0 {
			s.NoHit++
		}
	}
	s.MeanHits = float64(sum) / float64(len(hits))
	return s
}

// String prints the summary on one line.
func (s HitsSummary) String() string {
	if s.Queries == 0 {
		return "no queries"
	}
	return fmt.Sprintf("%3d queries, mean hits %.2f, %d with no hit at all", s.Queries, s.MeanHits, s.NoHit)
}

// splitHits sums up hits separately for the queries with in[i] set and
// the others.
func SplitHits(hits []int, in []bool) (inside, outside HitsSummary, err error) {
	if len(hits) != len(in) {
		return inside, outside, fmt.Errorf("experiment: %d hit counts for %d queries: %w", len(hits), len(in), ErrBadArgument)
	}
	var a, b []int
	for i, h := range hits {
		if in[i] {
			a = append(a, h)
		} else {
			b = append(b, h)
		}
	}
	return summarizeHits(a), summarizeHits(b), nil
}

// PostFilterHits reads E03's pgvector row against the post-filter's
// arithmetic: the scan yields ef_search rows and the WHERE clause keeps
// those that match, so the mean hits should be about ef_search × s and
// recall@k can be no higher than hits / k; the lab's and the article's
// figures side by side. The queries are then split by the cluster they
// were drawn from, because the article's filter follows the clusters
// (category is the cluster mod 8): the mean is close to ef × s, the
// individual queries are not.
type PostFilterHits struct {
	Ef  int
	Sel Selectivity
	K   int
	// MeanHits and Recall are the lab's pgvector row; ArticleHits and
	// ArticleRecall the article's.
	MeanHits, Recall, ArticleHits, ArticleRecall float64
	// InCategory sums up the queries drawn from a cluster of the filter's
	// category, Others the rest.
	InCategory, Others HitsSummary
}

// String prints the expected and measured hits, the recall bound, and
// the per-query split.
func (p *PostFilterHits) String() string {
	aS := float64(articleFilterMatching) / articleFilterN
	k := float64(p.K)
	s := fmt.Sprintf("pgvector, hnsw.ef_search = %d; s = %.4f (lab), 1,328 / 30,000 = %.4f (article)\n", p.Ef, p.Sel.S(), aS)
	s += fmt.Sprintf("  expected hits ef × s      lab %.2f    article %.2f\n", float64(p.Ef)*p.Sel.S(), float64(p.Ef)*aS)
	s += fmt.Sprintf("  measured mean hits        lab %.2f    article %.1f\n", p.MeanHits, p.ArticleHits)
	s += fmt.Sprintf("  recall@%d ≤ hits / %d     lab %.3f ≤ %.3f    article %.3f ≤ %.3f\n", p.K, p.K, p.Recall, p.MeanHits/k, p.ArticleRecall, p.ArticleHits/k)
	s += "\nper query (lab):\n"
	s += fmt.Sprintf("  drawn from a %s cluster:   %s\n", ArticleCategory, p.InCategory)
	s += fmt.Sprintf("  drawn from another cluster: %s", p.Others)
	return s
}

// Selectivities is the lab's step beyond E03: pgvector's post-filter
// (ef_search 40, iterative_scan off) under filters of many selectivities,
// some independent of the vectors (year, region) and some tied to the
// clusters (category). Hits follow ef × s for the first kind, whose
// ef_search nearest rows are a fair sample of the collection, and not for
// the second, where a query either sits in a matching cluster or not.
type Selectivities struct {
	// Want (ef × s) and Hits (measured mean hits) per filter, for the
	// filters independent of the vectors and for those tied to the
	// clusters, in the order given.
	IndependentWant, IndependentHits []float64
	TiedWant, TiedHits               []float64
	Table                            *table.Table
	Chart                            *chart.Line
}

// SweepSelectivity measures pgvector's default post-filter under each
// filter of independent (filters on fields drawn independently of the
// vectors) and tied (filters on the category, which follows the
// clusters). LIMIT k caps the hits, so filters should stay below
// s = k / ef_search.
func SweepSelectivity(env *Env, independent, tied []string) (*Selectivities, error) {
	if len(independent)+len(tied) == 0 {
		return nil, fmt.Errorf("experiment: SweepSelectivity: no filters: %w", ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	p := profile.Default(profile.PGVector)
	s, coll, err := FilteredCollection(env, p, false)
	if err != nil {
		return nil, err
	}
	k := env.Scale.K
	t := table.New(fmt.Sprintf("post-filter (pgvector, ef_search = %d, iterative_scan = off), %d queries, topK=%d", p.Ef, env.Scale.Queries, k),
		table.Col("filter", ""), table.Col("kind", ""),
		table.Column{Header: "matching", Source: table.Lab, Prec: -1},
		table.Column{Header: "s", Unit: "%", Source: table.Lab, Prec: 1},
		table.Column{Header: "ef × s", Source: table.Lab, Prec: 2},
		table.Column{Header: "mean hits", Source: table.Lab, Prec: 2},
		table.Column{Header: "hits / (ef × s)", Source: table.Lab, Prec: 2},
		table.Column{Header: fmt.Sprintf("recall@%d", k), Source: table.Lab, Prec: 3})
	o := &Selectivities{Table: t}
	n := len(independent) + len(tied)
	for i := 0; i < n; i++ {
		env.Step(i, n, "post-filter selectivities")
		expr, isTied := "", i >= len(independent)
		if isTied {
			expr = tied[i-len(independent)]
		} else {
			expr = independent[i]
		}
		m, err := MeasureStrategy(env, coll, expr, p.FilterStrategy(), p.FilterParams(k, s.Dim()), expr)
		if err != nil {
			return nil, fmt.Errorf("experiment: SweepSelectivity: filter %q: %w", expr, err)
		}
		sel := Selectivity{Filter: expr, Matching: m.Matching, N: ds.Base.N}
		want := float64(p.Ef) * sel.S()
		kind := "independent of the vectors"
		if isTied {
			kind = "tied to the clusters"
			o.TiedWant, o.TiedHits = append(o.TiedWant, want), append(o.TiedHits, m.MeanHits)
		} else {
			o.IndependentWant, o.IndependentHits = append(o.IndependentWant, want), append(o.IndependentHits, m.MeanHits)
		}
		var ratio any
		if want > 0 {
			ratio = m.MeanHits / want
		}
		_ = t.AddValues(expr, kind, m.Matching, 100*sel.S(), want, m.MeanHits, ratio, m.Recall)
	}
	env.Step(n, n, "post-filter selectivities")
	for i, expr := range tied {
		if expr == ArticleFilter {
			t.Note("the article's filter is the %s of the cluster-tied rows; the article measured only that one (1.8 hits at 40 × 4.4 %%)", ordinal(i))
			break
		}
	}
	o.Chart = chart.NewLine("post-filter mean hits against ef_search × selectivity (lab)", "ef_search × s", "mean hits")
	o.Chart.Add("hits = ef × s", []float64{0, float64(k)}, []float64{0, float64(k)})
	o.Chart.Add("filters independent of the vectors", o.IndependentWant, o.IndependentHits)
	o.Chart.Add("filters tied to the clusters", o.TiedWant, o.TiedHits)
	return o, nil
}

// ordinal names position i (from 0) of a short list: "first", "second", …
func ordinal(i int) string {
	words := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if i >= 0 && i < len(words) {
		return words[i]
	}
	n, suffix := i+1, "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprint(n) + suffix
}
