package main

import (
	"errors"
	"flag"
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
	"github.com/veclab/veclab/lab/table"
)

func init() {
	register(&command{
		name:    "bench filter",
		summary: "every filtered-search strategy (post-filter, pgvector iterative, in-graph, Qdrant, Redis, ACORN, exact) at several selectivities",
		run:     runBenchFilter,
	})
}

// benchFilterFlags are the flags of `veclab bench filter`.
type benchFilterFlags struct {
	ds         dataset.Config
	data       string // -data: a real set's name or directory; "" generates ds
	m, efc     int
	gamma      int
	mBeta      int
	k          int
	warmup     int
	workers    int
	ef         int
	sels       []string
	strategies []filtered.Strategy
	noIndex    bool
	seeds      int
	efs        []int
	nbhds      []filtered.ACORNNeighbourhood
	expand     int
	minSel     float64
	links      bool
	threshold  int
}

func parseBenchFilter(args []string, stderr io.Writer) (*benchFilterFlags, error) {
	fs := flag.NewFlagSet("bench filter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFilterFlags{}
	fs.IntVar(&f.ds.N, "n", dataset.DefaultN, "base vectors")
	fs.IntVar(&f.ds.Queries, "queries", dataset.DefaultQueries, "timed queries")
	fs.IntVar(&f.ds.Dim, "dim", dataset.DefaultDim, "dimensions")
	fs.IntVar(&f.ds.Clusters, "clusters", dataset.DefaultClusters, "Gaussian clusters")
	fs.Float64Var(&f.ds.Spread, "spread", dataset.DefaultSpread, "cluster spread (see lab/dataset)")
	fs.Uint64Var(&f.ds.Seed, "seed", 0, "data set seed (graphs and the bucket field use it too)")
	fs.IntVar(&f.m, "m", 16, "HNSW M (M0 = 2M), all four stores' default")
	fs.IntVar(&f.efc, "efc", 100, "HNSW efConstruction (Qdrant/Lucene 100; pgvector 64, Redis 200)")
	fs.IntVar(&f.gamma, "gamma", 8, "ACORN-γ expansion factor γ")
	fs.IntVar(&f.mBeta, "mbeta", 0, "ACORN-γ compression M_β (0: 2·M)")
	fs.IntVar(&f.k, "k", 10, "neighbours per query (recall@k)")
	fs.IntVar(&f.warmup, "warmup", 20, "untimed warm-up queries per strategy (the article: 20)")
	fs.IntVar(&f.workers, "workers", 0, "HNSW build goroutines (0: all cores; 1: deterministic)")
	fs.IntVar(&f.ef, "ef", 0, "search beam for every strategy (0: each store's default: pgvector 40, Qdrant 100, Redis 10, in-graph and ACORN 40)")
	sel := fs.String("sel", "article,0.5,0.1,0.01,0.001", "filters: 'article' (category == 'c3' && year >= 2022), 'tag' (a keyword value of 2.5 %, independent of the vectors) and selectivities of a uniform random field")
	fs.BoolVar(&f.links, "payload-links", true, "also run Qdrant's planner over the graph with its payload-block links (filterable HNSW extra edges)")
	fs.IntVar(&f.threshold, "threshold", 0, "Qdrant's full_scan_threshold in vectors, for the planner and the payload links (0: 10,000 KB of vectors, 6,666 at 384-d)")
	strat := fs.String("strategies", "all", "comma-separated strategies ("+strings.Join(filtered.Strategies(), ", ")+") or all")
	fs.BoolVar(&f.noIndex, "noindex", true, "also run exact search, Qdrant's planner (E08) and ACORN without payload indexes: the predicate is asked of stored payloads (ACORN: predicate-agnostic, each node decoded once per query)")
	fs.IntVar(&f.seeds, "seeds", 16, "also run the ACORN strategies with this many matching documents as extra entry points (0: only the paper's single entry)")
	fs.IntVar(&f.expand, "acorn-expand", 0, "ACORN-γ construction: links expanded per node (0: the whole M·γ list; the authors' code: M)")
	fs.Float64Var(&f.minSel, "acorn-minsel", 0, "ACORN-γ: selectivity below which it pre-filters (0: the default 1/γ)")
	efs := fs.String("efs", "", "comma-separated beams for the graph strategies (each a row; overrides -ef), e.g. 40,100,200")
	nbhds := fs.String("acorn-nbhd", "", "comma-separated: also run the ACORN strategies with these readings of the filtered neighbourhood besides the authors' code: paper (the fixed set of Alg. 3), new-only (the lab's: visited members neither count nor expand)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", engine.ErrInvalidArgument, fs.Args())
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0 // all of the real set's queries
	}
	var errs []error
	for _, s := range strings.Split(*sel, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if s != "article" && s != "tag" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v > 0 && v <= 1) {
				errs = append(errs, fmt.Errorf("%w: -sel %q: want 'article', 'tag' or a selectivity in (0, 1]", engine.ErrInvalidArgument, s))
				continue
			}
		}
		f.sels = append(f.sels, s)
	}
	if len(f.sels) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%w: -sel is empty", engine.ErrInvalidArgument))
	}
	if *strat == "all" {
		for _, n := range filtered.Strategies() {
			s, _ := filtered.ParseStrategy(n)
			f.strategies = append(f.strategies, s)
		}
	} else {
		for _, n := range strings.Split(*strat, ",") {
			s, err := filtered.ParseStrategy(n)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			f.strategies = append(f.strategies, s)
		}
	}
	for _, e := range strings.Split(*efs, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		v, err := strconv.Atoi(e)
		if err != nil || v < 1 {
			errs = append(errs, fmt.Errorf("%w: -efs %q: want beams ≥ 1", engine.ErrInvalidArgument, e))
			continue
		}
		f.efs = append(f.efs, v)
	}
	if len(f.efs) == 0 {
		f.efs = []int{f.ef}
	}
	for _, n := range strings.Split(*nbhds, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		v, err := filtered.ParseACORNNeighbourhood(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("-acorn-nbhd: %w", err))
			continue
		}
		if v != filtered.ACORNAuthors {
			f.nbhds = append(f.nbhds, v)
		}
	}
	if f.workers == 0 {
		f.workers = runtime.GOMAXPROCS(0)
	}
	if f.m < 2 || f.efc < 1 || f.gamma < 1 || f.mBeta < 0 || f.k < 1 || f.warmup < 0 || f.workers < 1 || f.ef < 0 || f.seeds < 0 || f.expand < 0 || !(f.minSel >= 0 && f.minSel <= 1) || f.threshold < 0 {
		errs = append(errs, fmt.Errorf("%w: -m ≥ 2, -efc, -gamma, -k, -workers ≥ 1 and -mbeta, -warmup, -ef, -threshold ≥ 0 required (and -seeds, -acorn-expand ≥ 0, -acorn-minsel in [0, 1])", engine.ErrInvalidArgument))
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

// filterRow is one (filter, strategy) measurement.
type filterRow struct {
	filter, strategy, path string
	matching               int
	recall, hits           float64
	p50, p95               time.Duration
	distComps, checks      float64
}

func runBenchFilter(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFilter(args, stderr)
	if err != nil {
		return err
	}
	rows, info, err := benchFilter(f, stderr)
	if err != nil {
		return err
	}
	t := table.New(fmt.Sprintf("Filtered search, %s, k = %d (%s)", info.data, f.k, info.text),
		table.Col("filter", ""), table.Col("matching", ""), table.Col("strategy", ""), table.Col("path", ""),
		table.Column{Header: "recall@10", Prec: 3}, table.Column{Header: "mean hits", Prec: 1},
		table.Column{Header: "p50", Unit: "ms", Prec: 3}, table.Column{Header: "p95", Unit: "ms", Prec: 3},
		table.Column{Header: "dist comps", Prec: -1}, table.Column{Header: "payload checks", Prec: -1})
	for _, r := range rows {
		if err := t.AddValues(r.filter, r.matching, r.strategy, r.path, r.recall, r.hits,
			float64(r.p50.Microseconds())/1000, float64(r.p95.Microseconds())/1000, r.distComps, r.checks); err != nil {
			return err
		}
	}
	t.Note("article (E03/E07/E08, category == 'c3' && year >= 2022, 4.4 %%): pgvector post-filter ef 40 recall 0.167, 1.8 hits; iterative relaxed 0.611 / 10 hits; strict 0.281 / 10 hits; redis 1.000; qdrant 1.000 (p50 27.6 ms without payload index, 1.5 ms with)")
	t.Note("selectivity rows filter a uniform random integer field 'bucket' (0…999), independent of the vectors; 'tag' rows a keyword value of a uniform 40-value field, also independent")
	t.Note("'+payload links' rows: Qdrant over the graph with its payload-block links (an HNSW per keyword value / numeric range above full_scan_threshold and below the percolation bound, merged into layer 0); Qdrant plans with full_scan_threshold %s", thresholdText(f.threshold))
	t.Note("acorn-gamma pre-filters (path exact) below s_min = 1/γ (-acorn-minsel); acorn-1 below 1/(2·M²); ACORN's neighbourhood is the authors' code's ('paper-nbhd' rows: the paper's fixed set of Alg. 3; 'new-only-nbhd' rows: the lab's variant, see filtered.ACORNNeighbourhood)")
	t.Note("'+N seeds' rows: ACORN with N matching documents as extra layer-0 entry points (a predicate-aware entry, not in the paper)")
	if info.real {
		t.Note("real data: category, year and region are drawn with the generator's weights (lab/dataset.AttachMeta); the category follows the set's labels where it has them (Fashion-MNIST: class mod 8), else it is independent of the vectors, unlike the generated set's, which follow its clusters")
	}
	t.Note("timings are wall time of one search on a machine shared with other jobs")
	fmt.Fprint(stdout, t.String())
	return nil
}

// filterInfo describes a bench filter run for its table's title.
type filterInfo struct {
	data, text string
	real       bool
}

func benchFilter(f *benchFilterFlags, stderr io.Writer) ([]filterRow, filterInfo, error) {
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.k, "")
	if err != nil {
		return nil, filterInfo{}, err
	}
	ds, metric := bd.ds, bd.metric
	if bd.real != nil {
		var labels []int32
		if bd.real.Labels != nil && len(bd.real.Labels) == ds.Base.N {
			labels = bd.real.Labels
		}
		if err := dataset.AttachMeta(ds, labels, f.ds.Seed); err != nil {
			return nil, filterInfo{}, err
		}
	}
	n, dim := ds.Base.N, ds.Base.Dim
	fmt.Fprintf(stderr, "bench filter: %s; building metadata…\n", bd.desc)
	rng := rand.New(rand.NewPCG(f.ds.Seed, 0xb0c4e7))
	tags := rand.New(rand.NewPCG(f.ds.Seed, 0x7a65))
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
		return nil, filterInfo{}, err
	}
	plain, _ := filter.NewStore(filter.Schema{})
	if _, err := indexed.Add(docs...); err != nil {
		return nil, filterInfo{}, err
	}
	if _, err := plain.Add(docs...); err != nil {
		return nil, filterInfo{}, err
	}

	fmt.Fprintf(stderr, "bench filter: building HNSW (M %d, efConstruction %d, %d workers)…\n", f.m, f.efc, f.workers)
	start := time.Now()
	g, err := hnsw.New(hnsw.Config{Dim: dim, Metric: metric, M: f.m, EfConstruction: f.efc, Workers: f.workers, Seed: f.ds.Seed})
	if err != nil {
		return nil, filterInfo{}, err
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, ds.Base); err != nil {
		return nil, filterInfo{}, err
	}
	hnswTime := time.Since(start)
	var ac *filtered.ACORN
	acornTime := time.Duration(0)
	for _, s := range f.strategies {
		if s == filtered.ACORNGamma {
			fmt.Fprintf(stderr, "bench filter: building ACORN-γ (M %d, γ %d)…\n", f.m, f.gamma)
			start = time.Now()
			ac, err = filtered.BuildACORN(g.Vectors(), metric, filtered.ACORNConfig{M: f.m, Gamma: f.gamma, MBeta: f.mBeta, ExpandConstruction: f.expand, MinSelectivity: f.minSel, Seed: f.ds.Seed})
			if err != nil {
				return nil, filterInfo{}, err
			}
			acornTime = time.Since(start)
			break
		}
	}
	coll, err := filtered.New(g.Vectors(), indexed, filtered.Options{Metric: metric, Graph: g, ACORN: ac, M: f.m})
	if err != nil {
		return nil, filterInfo{}, err
	}
	collPlain, err := filtered.New(g.Vectors(), plain, filtered.Options{Metric: metric, Graph: g, ACORN: ac, M: f.m})
	if err != nil {
		return nil, filterInfo{}, err
	}
	info := fmt.Sprintf("HNSW build %.1f s", hnswTime.Seconds())
	if ac != nil {
		info += fmt.Sprintf(", ACORN-γ build %.1f s, layer-0 degree %.0f", acornTime.Seconds(), ac.MeanDegree())
	}
	var collLinks *filtered.Collection
	if f.links && slices.Contains(f.strategies, filtered.QdrantPlanner) {
		fmt.Fprintf(stderr, "bench filter: building Qdrant's payload-block links…\n")
		var rep filtered.PayloadLinksReport
		collLinks, rep, err = coll.WithPayloadLinks(filtered.PayloadLinksConfig{Threshold: f.threshold, EfConstruction: f.efc, Seed: f.ds.Seed, Workers: f.workers})
		if err != nil {
			return nil, filterInfo{}, err
		}
		fmt.Fprintf(stderr, "bench filter: %s\n", rep)
		info += fmt.Sprintf(", %d payload blocks linked (%d skipped), %.0f B/vector, %.1f s", rep.Built, rep.SkippedPercolation+rep.SkippedSmall, rep.BytesPerVector(), rep.Elapsed.Seconds())
	}

	var rows []filterRow
	for _, sel := range f.sels {
		text := "category == 'c3' && year >= 2022"
		if sel == "tag" {
			text = "tag == 't07'"
		} else if sel != "article" {
			v, _ := strconv.ParseFloat(sel, 64)
			text = fmt.Sprintf("bucket < %d", int(v*1000+0.5))
		}
		cf, err := indexed.CompileString(text)
		if err != nil {
			return nil, filterInfo{}, err
		}
		matching := cf.Estimate().Exp
		fmt.Fprintf(stderr, "bench filter: %s (%d matching)…\n", text, matching)
		truth := make([][]engine.ID, ds.Queries.N)
		for qi := range truth {
			rs, _, err := coll.Search(filtered.Request{Query: ds.Queries.Row(qi), K: f.k, Filter: cf, Strategy: filtered.Exact})
			if err != nil {
				return nil, filterInfo{}, err
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
		for _, s := range f.strategies {
			efs := f.efs
			if s == filtered.Exact {
				efs = efs[:1] // no beam
			}
			for _, ef := range efs {
				name := s.String()
				if len(efs) > 1 {
					name = fmt.Sprintf("%s ef=%d", s, ef)
				}
				jobs = append(jobs, job{name, coll, cf, s, filtered.Params{Ef: ef, FullScanThreshold: f.threshold}})
				if s == filtered.ACORNGamma || s == filtered.ACORN1 {
					for _, nb := range f.nbhds {
						jobs = append(jobs, job{name + " " + nb.String() + "-nbhd", coll, cf, s, filtered.Params{Ef: ef, ACORNNeighbourhood: nb}})
					}
					if f.seeds > 0 {
						jobs = append(jobs, job{fmt.Sprintf("%s +%d seeds", name, f.seeds), coll, cf, s, filtered.Params{Ef: ef, EntrySeeds: f.seeds}})
					}
				}
				if f.noIndex && (s == filtered.QdrantPlanner || s == filtered.Exact || s == filtered.ACORN1 || s == filtered.ACORNGamma) {
					pcf, err := plain.CompileString(text)
					if err != nil {
						return nil, filterInfo{}, err
					}
					jobs = append(jobs, job{name + " (no payload index)", collPlain, pcf, s, filtered.Params{Ef: ef, FullScanThreshold: f.threshold}})
				}
				if s == filtered.QdrantPlanner && collLinks != nil {
					jobs = append(jobs, job{name + " +payload links", collLinks, cf, s, filtered.Params{Ef: ef, FullScanThreshold: f.threshold}})
				}
			}
		}
		for _, j := range jobs {
			row, err := benchFilterOne(f, ds, j.c, j.cf, j.s, j.p, truth)
			if err != nil {
				return nil, filterInfo{}, fmt.Errorf("%s, %s: %w", text, j.name, err)
			}
			row.filter, row.strategy, row.matching = text, j.name, matching
			rows = append(rows, row)
		}
	}
	fi := filterInfo{data: fmt.Sprintf("%d × %d", n, dim), text: info, real: bd.real != nil}
	if fi.real {
		fi.data = bd.desc
	}
	return rows, fi, nil
}

func benchFilterOne(f *benchFilterFlags, ds *dataset.Dataset, c *filtered.Collection, cf *filter.Compiled, s filtered.Strategy, p filtered.Params, truth [][]engine.ID) (filterRow, error) {
	var row filterRow
	for i := 0; i < f.warmup; i++ {
		q := ds.Queries.Row(i % ds.Queries.N)
		if _, _, err := c.Search(filtered.Request{Query: q, K: f.k, Filter: cf, Strategy: s, Params: p}); err != nil {
			return row, err
		}
	}
	lat := make([]time.Duration, 0, ds.Queries.N)
	paths := map[string]int{}
	for qi := 0; qi < ds.Queries.N; qi++ {
		rs, st, err := c.Search(filtered.Request{Query: ds.Queries.Row(qi), K: f.k, Filter: cf, Strategy: s, Params: p})
		if err != nil {
			return row, err
		}
		lat = append(lat, st.Elapsed)
		row.recall += metrics.Recall(rs, truth[qi], f.k)
		row.hits += float64(len(rs))
		row.distComps += float64(st.DistComps)
		row.checks += float64(st.PayloadChecks)
		paths[st.Path.String()]++
	}
	nq := float64(ds.Queries.N)
	row.recall /= nq
	row.hits /= nq
	row.distComps /= nq
	row.checks /= nq
	row.p50 = metrics.Quantile(lat, 0.5)
	row.p95 = metrics.Quantile(lat, 0.95)
	names := make([]string, 0, len(paths))
	for k := range paths {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return paths[names[i]] > paths[names[j]] || paths[names[i]] == paths[names[j]] && names[i] < names[j]
	})
	for i, k := range names {
		if i > 0 {
			row.path += " "
		}
		if len(names) > 1 {
			row.path += fmt.Sprintf("%s×%d", k, paths[k])
		} else {
			row.path = k
		}
	}
	return row, nil
}

func thresholdText(t int) string {
	if t == 0 {
		return "10,000 KB (6,666 vectors at 384-d)"
	}
	return fmt.Sprintf("%d vectors", t)
}
