package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// FilterConfig says what [Filter] measures. Start from
// [DefaultFilterConfig].
type FilterConfig struct {
	M, EfConstruction int     // HNSW (M0 = 2·M)
	Gamma, MBeta      int     // ACORN-γ expansion γ and compression M_β (0: 2·M)
	Expand            int     // ACORN-γ construction: links expanded per node (0: the whole M·γ list)
	MinSelectivity    float64 // ACORN-γ pre-filters below it (0: 1/γ)
	K                 int     // neighbours per query (recall@K)
	Warmup            int     // untimed warm-up queries per strategy
	Workers           int     // HNSW build goroutines (0: all cores; 1: deterministic)
	// Filters: "article" (category == 'c3' && year >= 2022), "tag" (a
	// keyword value of 2.5 %, independent of the vectors) or a selectivity
	// in (0, 1] of a uniform random field.
	Filters    []string
	Strategies []filtered.Strategy
	// Efs are the beams of the graph strategies, one row each (0: each
	// store's default, see defaultBeam); exact search runs once.
	Efs            []int
	NoIndex        bool                          // also run the strategies that can without payload indexes
	Seeds          int                           // also run ACORN with this many matching entry points (0: not)
	Neighbourhoods []filtered.ACORNNeighbourhood // also run ACORN with these neighbourhoods
	PayloadLinks   bool                          // also run Qdrant over the graph with its payload-block links
	Threshold      int                           // Qdrant's full_scan_threshold in vectors (0: 10,000 KB of vectors)
	Seed           uint64                        // graphs and the generated payload fields
}

// DefaultFilterConfig is `veclab bench filter`'s defaults.
func DefaultFilterConfig() FilterConfig {
	c := FilterConfig{M: 16, EfConstruction: 100, Gamma: 8, K: 10, Warmup: 20,
		Filters: []string{"article", "0.5", "0.1", "0.01", "0.001"}, Efs: []int{0},
		NoIndex: true, Seeds: 16, PayloadLinks: true}
	for _, n := range filtered.Strategies() {
		s, _ := filtered.ParseStrategy(n)
		c.Strategies = append(c.Strategies, s)
	}
	return c
}

// Validate reports every problem of c at once.
func (c FilterConfig) Validate() error {
	var bad []string
	for _, s := range c.Filters {
		if s != "article" && s != "tag" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v > 0 && v <= 1) {
				bad = append(bad, fmt.Sprintf("filter %q: want 'article', 'tag' or a selectivity in (0, 1]", s))
			}
		}
	}
	if len(c.Filters) == 0 {
		bad = append(bad, "no filters")
	}
	if len(c.Efs) == 0 {
		bad = append(bad, "no beams (Efs)")
	}
	for _, ef := range c.Efs {
		if ef < 0 {
			bad = append(bad, fmt.Sprintf("beam %d < 0", ef))
		}
	}
	if c.M < 2 || c.EfConstruction < 1 || c.Gamma < 1 || c.MBeta < 0 || c.K < 1 || c.Warmup < 0 || c.Workers < 0 || c.Seeds < 0 || c.Expand < 0 || !(c.MinSelectivity >= 0 && c.MinSelectivity <= 1) || c.Threshold < 0 {
		bad = append(bad, "-m ≥ 2, -efc, -gamma, -k, -workers ≥ 1 and -mbeta, -warmup, -ef, -threshold ≥ 0 required (and -seeds, -acorn-expand ≥ 0, -acorn-minsel in [0, 1])")
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: filter: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// FilterRow is one (filter, strategy) measurement.
type FilterRow struct {
	Filter, Strategy, Path string
	Matching               int
	Recall, Hits           float64
	P50, P95               time.Duration
	DistComps, Checks      float64
}

// FilterReport is the outcome of [Filter].
type FilterReport struct {
	Config FilterConfig
	Data   string // the data set, for the title ("n × dim" unless the caller names it)
	Info   string // build times and sizes
	Real   bool   // set by a caller that ran on a real data set: adds the note on its metadata
	Rows   []FilterRow
}

// Filter builds the metadata (ds.Meta's category, year and region, plus a
// uniform random integer "bucket" and a 40-value keyword "tag"), an HNSW
// graph, ACORN-γ and Qdrant's payload links when the strategies need them,
// and measures every strategy cfg selects on every filter against exact
// filtered truth. Progress goes to log (nil: none).
func Filter(ds *dataset.Dataset, metric engine.Metric, cfg FilterConfig, log io.Writer) (*FilterReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ds == nil || ds.Base == nil || ds.Queries == nil || len(ds.Meta) != ds.Base.N {
		return nil, fmt.Errorf("bench: filter: the data set needs base vectors, queries and one metadata row per vector: %w", engine.ErrInvalidArgument)
	}
	if log == nil {
		log = io.Discard
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	n, dim := ds.Base.N, ds.Base.Dim
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xb0c4e7))
	tags := rand.New(rand.NewPCG(cfg.Seed, 0x7a65))
	docs := make([]filter.Doc, n)
	for i, d := range ds.Meta {
		docs[i] = filter.Doc{Key: strconv.Itoa(i), Meta: map[string]any{
			"category": d.Category, "year": d.Year, "region": d.Region, "bucket": rng.IntN(1000),
			"tag": fmt.Sprintf("t%02d", tags.IntN(40))}}
	}
	indexed, err := filter.NewStore(filter.Schema{Fields: []filter.Field{
		{Name: "category", Kind: filter.KindKeyword, Indexed: true},
		{Name: "year", Kind: filter.KindInteger, Indexed: true},
		{Name: "region", Kind: filter.KindKeyword, Indexed: true},
		{Name: "bucket", Kind: filter.KindInteger, Indexed: true},
		{Name: "tag", Kind: filter.KindKeyword, Indexed: true}}})
	if err != nil {
		return nil, err
	}
	plain, _ := filter.NewStore(filter.Schema{})
	if _, err := indexed.Add(docs...); err != nil {
		return nil, err
	}
	if _, err := plain.Add(docs...); err != nil {
		return nil, err
	}

	fmt.Fprintf(log, "bench filter: building HNSW (M %d, efConstruction %d, %d workers)…\n", cfg.M, cfg.EfConstruction, cfg.Workers)
	start := time.Now()
	g, err := hnsw.New(hnsw.Config{Dim: dim, Metric: metric, M: cfg.M, EfConstruction: cfg.EfConstruction, Workers: cfg.Workers, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, ds.Base); err != nil {
		return nil, err
	}
	hnswTime := time.Since(start)
	var ac *filtered.ACORN
	acornTime := time.Duration(0)
	if slices.Contains(cfg.Strategies, filtered.ACORNGamma) {
		fmt.Fprintf(log, "bench filter: building ACORN-γ (M %d, γ %d)…\n", cfg.M, cfg.Gamma)
		start = time.Now()
		ac, err = filtered.BuildACORN(g.Vectors(), metric, filtered.ACORNConfig{M: cfg.M, Gamma: cfg.Gamma, MBeta: cfg.MBeta, ExpandConstruction: cfg.Expand, MinSelectivity: cfg.MinSelectivity, Seed: cfg.Seed})
		if err != nil {
			return nil, err
		}
		acornTime = time.Since(start)
	}
	coll, err := filtered.New(g.Vectors(), indexed, filtered.Options{Metric: metric, Graph: g, ACORN: ac, M: cfg.M})
	if err != nil {
		return nil, err
	}
	collPlain, err := filtered.New(g.Vectors(), plain, filtered.Options{Metric: metric, Graph: g, ACORN: ac, M: cfg.M})
	if err != nil {
		return nil, err
	}
	info := fmt.Sprintf("HNSW build %.1f s", hnswTime.Seconds())
	if ac != nil {
		info += fmt.Sprintf(", ACORN-γ build %.1f s, layer-0 degree %.0f", acornTime.Seconds(), ac.MeanDegree())
	}
	var collLinks *filtered.Collection
	if cfg.PayloadLinks && slices.Contains(cfg.Strategies, filtered.QdrantPlanner) {
		fmt.Fprintf(log, "bench filter: building Qdrant's payload-block links…\n")
		var rep filtered.PayloadLinksReport
		thr := cfg.Threshold
		if thr == 0 { // Qdrant's full_scan_threshold, resolved by lab/profile
			thr = profile.Default(profile.Qdrant).FullScanThreshold(ds.Base.Dim)
		}
		collLinks, rep, err = coll.WithPayloadLinks(filtered.PayloadLinksConfig{Threshold: thr, EfConstruction: cfg.EfConstruction, Seed: cfg.Seed, Workers: cfg.Workers})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "bench filter: %s\n", rep)
		info += fmt.Sprintf(", %d payload blocks linked (%d skipped), %.0f B/vector, %.1f s", rep.Built, rep.SkippedPercolation+rep.SkippedSmall, rep.BytesPerVector(), rep.Elapsed.Seconds())
	}

	out := &FilterReport{Config: cfg, Data: fmt.Sprintf("%d × %d", n, dim), Info: info}
	for _, sel := range cfg.Filters {
		text := "category == 'c3' && year >= 2022"
		if sel == "tag" {
			text = "tag == 't07'"
		} else if sel != "article" {
			v, _ := strconv.ParseFloat(sel, 64)
			text = fmt.Sprintf("bucket < %d", int(v*1000+0.5))
		}
		cf, err := indexed.CompileString(text)
		if err != nil {
			return nil, err
		}
		matching := cf.Estimate().Exp
		fmt.Fprintf(log, "bench filter: %s (%d matching)…\n", text, matching)
		truth := make([][]engine.ID, ds.Queries.N)
		for qi := range truth {
			rs, _, err := coll.Search(filtered.Request{Query: ds.Queries.Row(qi), K: cfg.K, Filter: cf, Strategy: filtered.Exact})
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				truth[qi] = append(truth[qi], r.ID)
			}
		}
		type job struct {
			name string
			c    *filtered.Collection
			cf   *filter.Compiled
			s    filtered.Strategy
			p    filtered.Params
		}
		var jobs []job
		for _, s := range cfg.Strategies {
			efs := cfg.Efs
			if s == filtered.Exact {
				efs = efs[:1] // no beam
			}
			for _, ef := range efs {
				name := s.String()
				if len(efs) > 1 {
					name = fmt.Sprintf("%s ef=%d", s, ef)
				}
				p := storeParams(s, cfg.K, ds.Base.Dim)
				if ef > 0 {
					p.Ef = ef
				}
				if cfg.Threshold > 0 {
					p.FullScanThreshold = cfg.Threshold
				}
				jobs = append(jobs, job{name, coll, cf, s, p})
				if s == filtered.ACORNGamma || s == filtered.ACORN1 {
					for _, nb := range cfg.Neighbourhoods {
						jobs = append(jobs, job{name + " " + nb.String() + "-nbhd", coll, cf, s, filtered.Params{Ef: p.Ef, ACORNNeighbourhood: nb}})
					}
					if cfg.Seeds > 0 {
						jobs = append(jobs, job{fmt.Sprintf("%s +%d seeds", name, cfg.Seeds), coll, cf, s, filtered.Params{Ef: p.Ef, EntrySeeds: cfg.Seeds}})
					}
				}
				if cfg.NoIndex && (s == filtered.QdrantPlanner || s == filtered.Exact || s == filtered.ACORN1 || s == filtered.ACORNGamma) {
					pcf, err := plain.CompileString(text)
					if err != nil {
						return nil, err
					}
					jobs = append(jobs, job{name + " (no payload index)", collPlain, pcf, s, p})
				}
				if s == filtered.QdrantPlanner && collLinks != nil {
					jobs = append(jobs, job{name + " +payload links", collLinks, cf, s, p})
				}
			}
		}
		for _, j := range jobs {
			row, err := filterOne(cfg, ds, j.c, j.cf, j.s, j.p, truth)
			if err != nil {
				return nil, fmt.Errorf("bench: filter: %s, %s: %w", text, j.name, err)
			}
			row.Filter, row.Strategy, row.Matching = text, j.name, matching
			out.Rows = append(out.Rows, row)
		}
	}
	return out, nil
}

func filterOne(cfg FilterConfig, ds *dataset.Dataset, c *filtered.Collection, cf *filter.Compiled, s filtered.Strategy, p filtered.Params, truth [][]engine.ID) (FilterRow, error) {
	var row FilterRow
	paths := map[string]int{}
	// Warm-up queries beyond the query count are capped at it.
	loop := metrics.Loop{Queries: ds.Queries.N, K: cfg.K, Truth: truth, Warmup: cfg.Warmup}
	m, err := loop.Run(engine.Context(), func(pass, qi int) ([]engine.Result, error) {
		rs, st, err := c.Search(filtered.Request{Query: ds.Queries.Row(qi), K: cfg.K, Filter: cf, Strategy: s, Params: p})
		if pass == 0 {
			row.DistComps += float64(st.DistComps)
			row.Checks += float64(st.PayloadChecks)
			paths[st.Path.String()]++
		}
		return rs, err
	})
	if err != nil {
		return row, err
	}
	nq := float64(ds.Queries.N)
	row.Recall, row.Hits = m.Recall, m.MeanHits
	row.DistComps /= nq
	row.Checks /= nq
	row.P50, row.P95 = m.Latency.P50, m.Latency.P95
	names := make([]string, 0, len(paths))
	for k := range paths {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return paths[names[i]] > paths[names[j]] || paths[names[i]] == paths[names[j]] && names[i] < names[j]
	})
	for i, k := range names {
		if i > 0 {
			row.Path += " "
		}
		if len(names) > 1 {
			row.Path += fmt.Sprintf("%s×%d", k, paths[k])
		} else {
			row.Path = k
		}
	}
	return row, nil
}

// Table is the report as `veclab bench filter` prints it, with the
// article's figures and what each kind of row means in its notes.
func (r *FilterReport) Table() (*table.Table, error) {
	t := table.New(fmt.Sprintf("Filtered search, %s, k = %d (%s)", r.Data, r.Config.K, r.Info),
		table.Col("filter", ""), table.Col("matching", ""), table.Col("strategy", ""), table.Col("path", ""),
		table.Column{Header: metrics.RecallHeader(r.Config.K), Prec: 3}, table.Column{Header: "mean hits", Prec: 1},
		table.Column{Header: "p50", Unit: "ms", Prec: 3}, table.Column{Header: "p95", Unit: "ms", Prec: 3},
		table.Column{Header: "dist comps", Prec: -1}, table.Column{Header: "payload checks", Prec: -1})
	for _, row := range r.Rows {
		if err := t.AddValues(row.Filter, row.Matching, row.Strategy, row.Path, row.Recall, row.Hits,
			float64(row.P50.Microseconds())/1000, float64(row.P95.Microseconds())/1000, row.DistComps, row.Checks); err != nil {
			return nil, fmt.Errorf("bench: filter: %w", err)
		}
	}
	t.Note("article (E03/E07/E08, category == 'c3' && year >= 2022, 4.4 %%): pgvector post-filter ef 40 recall 0.167, 1.8 hits; iterative relaxed 0.611 / 10 hits; strict 0.281 / 10 hits; redis 1.000; qdrant 1.000 (p50 27.6 ms without payload index, 1.5 ms with)")
	t.Note("selectivity rows filter a uniform random integer field 'bucket' (0…999), independent of the vectors; 'tag' rows a keyword value of a uniform 40-value field, also independent")
	t.Note("'+payload links' rows: Qdrant over the graph with its payload-block links (an HNSW per keyword value / numeric range above full_scan_threshold and below the percolation bound, merged into layer 0); Qdrant plans with full_scan_threshold %s", thresholdText(r.Config.Threshold))
	t.Note("acorn-gamma pre-filters (path exact) below s_min = 1/γ (-acorn-minsel); acorn-1 below 1/(2·M²); ACORN's neighbourhood is the authors' code's ('paper-nbhd' rows: the paper's fixed set of Alg. 3; 'new-only-nbhd' rows: the lab's variant, see filtered.ACORNNeighbourhood)")
	t.Note("'+N seeds' rows: ACORN with N matching documents as extra layer-0 entry points (a predicate-aware entry, not in the paper)")
	if r.Real {
		t.Note("real data: category, year and region are drawn with the generator's weights (lab/dataset.AttachMeta); the category follows the set's labels where it has them (Fashion-MNIST: class mod 8), else it is independent of the vectors, unlike the generated set's, which follow its clusters")
	}
	t.Note("timings are wall time of one search on a machine shared with other jobs")
	return t, nil
}

func thresholdText(t int) string {
	if t == 0 {
		return "10,000 KB (6,666 vectors at 384-d)"
	}
	return fmt.Sprintf("%d vectors", t)
}

// graphBeam is the beam of the graph strategies no store runs on its
// defaults here (the in-graph walk, ACORN-γ and ACORN-1): pgvector's
// hnsw.ef_search default, so every graph strategy starts from one beam.
const graphBeam = 40

// storeParams are strategy s's knobs when -ef and -threshold are 0: the
// defaults of the store whose strategy it is, as lab/profile resolves
// them (pgvector hnsw.ef_search 40 and its scan limits for the
// post-filter and the iterative scans, Redis EF_RUNTIME 10, Qdrant
// hnsw_ef = ef_construct and full_scan_threshold 10,000 KB of vectors),
// graphBeam for the others. engine/filtered holds no store's default.
func storeParams(s filtered.Strategy, k, dim int) filtered.Params {
	p := profile.StrategyParams(s, k, dim)
	if p.Ef == 0 && s != filtered.Exact {
		p.Ef = graphBeam
	}
	return p
}
