package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/bench"
	"github.com/veclab/veclab/lab/dataset"
)

func init() {
	register(&command{
		name:    "bench filter",
		summary: "every filtered-search strategy (post-filter, pgvector iterative, in-graph, Qdrant, Redis, ACORN, exact) at several selectivities",
		run:     runBenchFilter,
	})
}

// benchFilterFlags are the flags of `veclab bench filter`: the data set
// and lab/bench's FilterConfig.
type benchFilterFlags struct {
	ds   dataset.Config
	data string // -data: a real set's name or directory; "" generates ds
	cfg  bench.FilterConfig
}

func parseBenchFilter(args []string, stderr io.Writer) (*benchFilterFlags, error) {
	fs := flag.NewFlagSet("bench filter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFilterFlags{cfg: bench.DefaultFilterConfig()}
	c := &f.cfg
	var ef int
	generatorFlags(fs, &f.ds, dataset.DefaultQueries, "timed queries", "data set seed (graphs and the bucket field use it too)")
	fs.IntVar(&c.M, "m", c.M, "HNSW M (M0 = 2M), all four stores' default")
	fs.IntVar(&c.EfConstruction, "efc", c.EfConstruction, "HNSW efConstruction (Qdrant/Lucene 100; pgvector 64, Redis 200)")
	fs.IntVar(&c.Gamma, "gamma", c.Gamma, "ACORN-γ expansion factor γ")
	fs.IntVar(&c.MBeta, "mbeta", 0, "ACORN-γ compression M_β (0: 2·M)")
	fs.IntVar(&c.K, "k", c.K, "neighbours per query (recall@k)")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "untimed warm-up queries per strategy (the article: 20)")
	fs.IntVar(&c.Workers, "workers", 0, "HNSW build goroutines (0: all cores; 1: deterministic)")
	fs.IntVar(&ef, "ef", 0, "search beam for every strategy (0: each store's default: pgvector 40, Qdrant 100, Redis 10, in-graph and ACORN 40)")
	sel := fs.String("sel", strings.Join(c.Filters, ","), "filters: 'article' (category == 'c3' && year >= 2022), 'tag' (a keyword value of 2.5 %, independent of the vectors) and selectivities of a uniform random field")
	fs.BoolVar(&c.PayloadLinks, "payload-links", c.PayloadLinks, "also run Qdrant's planner over the graph with its payload-block links (filterable HNSW extra edges)")
	fs.IntVar(&c.Threshold, "threshold", 0, "Qdrant's full_scan_threshold in vectors, for the planner and the payload links (0: 10,000 KB of vectors, 6,666 at 384-d)")
	strat := fs.String("strategies", "all", "comma-separated strategies ("+strings.Join(filtered.Strategies(), ", ")+") or all")
	fs.BoolVar(&c.NoIndex, "noindex", c.NoIndex, "also run exact search, Qdrant's planner (E08) and ACORN without payload indexes: the predicate is asked of stored payloads (ACORN: predicate-agnostic, each node decoded once per query)")
	fs.IntVar(&c.Seeds, "seeds", c.Seeds, "also run the ACORN strategies with this many matching documents as extra entry points (0: only the paper's single entry)")
	fs.IntVar(&c.Expand, "acorn-expand", 0, "ACORN-γ construction: links expanded per node (0: the whole M·γ list; the authors' code: M)")
	fs.Float64Var(&c.MinSelectivity, "acorn-minsel", 0, "ACORN-γ: selectivity below which it pre-filters (0: the default 1/γ)")
	efs := fs.String("efs", "", "comma-separated beams for the graph strategies (each a row; overrides -ef), e.g. 40,100,200")
	nbhds := fs.String("acorn-nbhd", "", "comma-separated: also run the ACORN strategies with these readings of the filtered neighbourhood besides the authors' code: paper (the fixed set of Alg. 3), new-only (the lab's: visited members neither count nor expand)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, badArg("unexpected arguments %q", fs.Args())
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.ds.Queries = 0 // all of the real set's queries
	}
	var errs []error
	c.Filters = nil
	for _, s := range splitList(*sel) {
		if s != "article" && s != "tag" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v > 0 && v <= 1) {
				errs = append(errs, badArg("-sel %q: want 'article', 'tag' or a selectivity in (0, 1]", s))
				continue
			}
		}
		c.Filters = append(c.Filters, s)
	}
	if len(c.Filters) == 0 && len(errs) == 0 {
		errs = append(errs, badArg("-sel is empty"))
	}
	if *strat != "all" {
		c.Strategies = nil
		for _, n := range strings.Split(*strat, ",") {
			s, err := filtered.ParseStrategy(n)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			c.Strategies = append(c.Strategies, s)
		}
	}
	c.Efs = nil
	for _, e := range splitList(*efs) {
		v, err := strconv.Atoi(e)
		if err != nil || v < 1 {
			errs = append(errs, badArg("-efs %q: want beams ≥ 1", e))
			continue
		}
		c.Efs = append(c.Efs, v)
	}
	if len(c.Efs) == 0 {
		c.Efs = []int{ef}
	}
	for _, n := range splitList(*nbhds) {
		v, err := filtered.ParseACORNNeighbourhood(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("-acorn-nbhd: %w", err))
			continue
		}
		if v != filtered.ACORNAuthors {
			c.Neighbourhoods = append(c.Neighbourhoods, v)
		}
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.Seed = f.ds.Seed
	if len(c.Filters) > 0 { // an empty -sel is reported above
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := f.ds.WithDefaults().Validate(); err != nil && f.data == "" {
		errs = append(errs, err)
	}
	return f, errors.Join(errs...)
}

// runBenchFilter is a front end over lab/bench.Filter: it reads the flags,
// loads the data set (a real one gets the generator's metadata) and prints
// the table.
func runBenchFilter(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFilter(args, stderr)
	if err != nil {
		return err
	}
	bd, err := loadBenchData(f.data, f.ds, f.ds.Queries, f.cfg.K, "")
	if err != nil {
		return err
	}
	if bd.real != nil {
		var labels []int32
		if bd.real.Labels != nil && len(bd.real.Labels) == bd.ds.Base.N {
			labels = bd.real.Labels
		}
		if err := dataset.AttachMeta(bd.ds, labels, f.ds.Seed); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "bench filter: %s; building metadata…\n", bd.desc)
	rep, err := bench.Filter(bd.ds, bd.metric, f.cfg, stderr)
	if err != nil {
		return err
	}
	if bd.real != nil {
		rep.Data, rep.Real = bd.desc, true
	}
	t, err := rep.Table()
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, t.String())
	return nil
}
