package e25

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// e25 is nested vectors: passages of one document, searched for the k
// nearest documents (Elastic's reply to Qdrant, "Multi-vector integration
// in Lucene and Elasticsearch").
var e25 = experiment.Experiment{
	ID:     "E25",
	Claims: claims,
	Title:  "passages of one document (nested vectors): the k nearest documents by joining to the parent during the graph walk, vs k passages then dedupe",
	Article: "Elastic's reply, \"Multi-vector integration in Lucene and Elasticsearch\": pre-joining against parent documents " +
		"while searching the HNSW graph returns the k nearest documents instead of passages, for a small memory overhead per vector; no figures, only the mechanism",
	// The article gives no numbers: no Figures.
}

func init() { e25.Run, e25.Notebook = runE25, "09-document-retrieval.ipynb"; experiment.Register(e25) }

// Config describes E25's nested data set. Every parent document is a
// vector of the lab's data set; its passages are drawn around it. The zero
// value is the default: 2–8 passages per parent, spread 0.5.
type Config struct {
	// MinPassages and MaxPassages bound the passages of one parent; the
	// count is drawn uniformly in [MinPassages, MaxPassages] from the
	// environment's seed (equal bounds: every parent has that many).
	// Defaults 2 and 8.
	MinPassages, MaxPassages int
	// Spread is the expected norm of a passage's Gaussian offset from its
	// parent's unit vector, before the passage is normalised (the data
	// set's own clusters use 1.0, so passages of one document sit closer to
	// each other than documents of one cluster). Default 0.5.
	Spread float64
}

// passages is c as lab/dataset's chunking config, which owns the
// defaults and draws the passages (ChunkPassages).
func (c Config) passages() dataset.PassageConfig {
	return dataset.PassageConfig{MinPassages: c.MinPassages, MaxPassages: c.MaxPassages, Spread: c.Spread}
}

// WithDefaults returns c with zero fields set to their defaults
// (dataset.DefaultMinPassages, DefaultMaxPassages, DefaultPassageSpread).
func (c Config) WithDefaults() Config {
	p := c.passages().WithDefaults()
	c.MinPassages, c.MaxPassages, c.Spread = p.MinPassages, p.MaxPassages, p.Spread
	return c
}

// Validate reports every invalid field at once (call it on WithDefaults).
func (c Config) Validate() error {
	var errs []string
	if c.MinPassages < 1 {
		errs = append(errs, fmt.Sprintf("min passages must be ≥ 1, got %d", c.MinPassages))
	}
	if c.MaxPassages < c.MinPassages {
		errs = append(errs, fmt.Sprintf("max passages %d below min %d", c.MaxPassages, c.MinPassages))
	}
	if c.MaxPassages > 1000 {
		errs = append(errs, fmt.Sprintf("max passages must be ≤ 1000, got %d", c.MaxPassages))
	}
	if !(c.Spread > 0) || math.IsInf(c.Spread, 0) {
		errs = append(errs, fmt.Sprintf("spread must be finite and > 0, got %v", c.Spread))
	}
	if len(errs) > 0 {
		return fmt.Errorf("experiment: E25 config: %s: %w", strings.Join(errs, "; "), experiment.ErrBadArgument)
	}
	return nil
}

// MeanPassages is the expected number of passages per parent.
func (c Config) MeanPassages() float64 { return c.passages().MeanPassages() }

// String prints the config in the form [ParseConfig] reads:
// "passages=2-8 spread=0.5" ("passages=4" when the bounds are equal).
func (c Config) String() string {
	p := strconv.Itoa(c.MinPassages)
	if c.MaxPassages != c.MinPassages {
		p += "-" + strconv.Itoa(c.MaxPassages)
	}
	return "passages=" + p + " spread=" + strconv.FormatFloat(c.Spread, 'g', -1, 64)
}

// ParseConfig reads the form String prints (keys separated by spaces or
// commas, missing keys left zero so WithDefaults fills them) and returns
// the config with defaults, validated.
func ParseConfig(s string) (Config, error) {
	var c Config
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Config{}, fmt.Errorf("experiment: E25 config %q: %q is not key=value: %w", s, f, experiment.ErrBadArgument)
		}
		var err error
		switch k {
		case "passages":
			lo, hi, ranged := strings.Cut(v, "-")
			if c.MinPassages, err = strconv.Atoi(lo); err == nil {
				c.MaxPassages = c.MinPassages
				if ranged {
					c.MaxPassages, err = strconv.Atoi(hi)
				}
			}
		case "spread":
			c.Spread, err = strconv.ParseFloat(v, 64)
		default:
			return Config{}, fmt.Errorf("experiment: E25 config %q: unknown key %q (passages, spread): %w", s, k, experiment.ErrBadArgument)
		}
		if err != nil {
			return Config{}, fmt.Errorf("experiment: E25 config %q: %s: %v: %w", s, k, err, experiment.ErrBadArgument)
		}
		// An explicit zero is an error, not "the default".
		if (k == "passages" && (c.MinPassages < 1 || c.MaxPassages < 1)) || (k == "spread" && !(c.Spread > 0)) {
			return Config{}, fmt.Errorf("experiment: E25 config %q: %s must be positive: %w", s, f, experiment.ErrBadArgument)
		}
	}
	c = c.WithDefaults()
	return c, c.Validate()
}

// Index is E25's nested collection: passages drawn around parent
// documents, an HNSW graph over the passages (m 16, ef_construction 100,
// Elasticsearch's defaults; one goroutine, the environment's seed), and
// the parent of every passage.
type Index struct {
	Config   Config
	Parents  int           // parent documents
	Passages int           // passages (graph nodes)
	ParentOf []uint32      // parent of each passage; passages of one parent are contiguous, as in a Lucene block
	Counts   []int         // passages of each parent
	Build    time.Duration // graph build time
	// GraphBytes is the graph's resident bytes per passage (links);
	// ParentBytes the parent-id column per passage (4 B; Lucene's parent
	// bit set costs 1 bit per document).
	GraphBytes, ParentBytes float64

	ix      *nested.Index
	graph   *hnsw.Index
	truthK  int
	truth   [][]uint32 // exact top-truthK parents per query
	queries *vec.Matrix
}

// meanPassages is the measured mean number of passages per parent.
func (x *Index) meanPassages() float64 {
	return float64(x.Passages) / float64(x.Parents)
}

// countHistogram returns h with h[c] = the number of parents that have c
// passages (h[0] is always 0).
func (x *Index) countHistogram() []int {
	h := make([]int, x.Config.MaxPassages+1)
	for _, c := range x.Counts {
		h[c]++
	}
	return h
}

// String summarises the collection on one line.
func (x *Index) String() string {
	return fmt.Sprintf("%d parents, %d passages (%.2f per parent; %v), HNSW m=16 ef_construction=100 built in %v",
		x.Parents, x.Passages, x.meanPassages(), x.Config, x.Build.Round(time.Millisecond))
}

// Build draws the nested collection from the environment's data set and
// builds its graph: about Scale.N passages in all, so the graph is the
// size of the other experiments'. Parent p is the data set's vector p
// (parents lie in the data set's clusters); it gets a number of passages
// drawn by cfg, each the parent's vector plus a Gaussian offset of norm
// cfg.Spread, normalised. Queries are the environment's.
func Build(env *experiment.Env, cfg Config) (*Index, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	k := env.Scale.K
	nParents := min(int(math.Round(float64(ds.Base.N)/cfg.MeanPassages())), ds.Base.N)
	if nParents < k {
		return nil, fmt.Errorf("experiment: E25: %d documents at %.1f passages each make %d parents, fewer than k=%d: %w", ds.Base.N, cfg.MeanPassages(), nParents, k, experiment.ErrBadArgument)
	}
	// The passages come from lab/dataset (ChunkPassages), as notebook 09 draws them.
	docs, err := dataset.ChunkPassages(ds.Base, ds.Base.N, dataset.PassageConfig{MinPassages: cfg.MinPassages, MaxPassages: cfg.MaxPassages, Spread: cfg.Spread, Seed: env.Seed})
	if err != nil {
		return nil, err
	}
	dim, total, m, parentOf, counts := ds.Base.Dim, docs.Len(), docs.Vectors, docs.ParentOf, docs.Counts
	g, err := hnsw.New(hnsw.Config{Dim: dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: env.Seed, Workers: 1})
	if err != nil {
		return nil, err
	}
	keys := make([]uint64, total)
	for j := range keys {
		keys[j] = uint64(j)
	}
	env.Logf("E25: building HNSW over %d passages of %d parents (%v)", total, nParents, cfg)
	env.Step(0, 1, "E25 graph build")
	t0 := time.Now()
	if err := g.AddBatch(keys, m); err != nil {
		return nil, fmt.Errorf("experiment: E25 graph: %w", err)
	}
	build := time.Since(t0)
	env.Step(1, 1, "E25 graph build")
	ix, err := nested.New(g.Vectors(), parentOf, engine.Cosine, g)
	if err != nil {
		return nil, err
	}
	return &Index{Config: cfg, Parents: nParents, Passages: total, ParentOf: parentOf, Counts: counts, Build: build,
		GraphBytes: g.GraphBytesPerVector(), ParentBytes: 4, ix: ix, graph: g, queries: ds.Queries}, nil
}

// truthFor returns (once per k) the exact top-k parents of every query.
func (x *Index) truthFor(env *experiment.Env, k int) ([][]uint32, error) {
	if x.truthK == k && x.truth != nil {
		return x.truth, nil
	}
	qs := x.queries
	t := make([][]uint32, qs.N)
	for i := 0; i < qs.N; i++ {
		env.Step(i, qs.N, "E25 exact parents")
		hs, err := x.ix.ExactParents(qs.Row(i), k)
		if err != nil {
			return nil, fmt.Errorf("experiment: E25 exact parents of query %d: %w", i, err)
		}
		t[i] = make([]uint32, len(hs))
		for j, h := range hs {
			t[i][j] = h.Parent
		}
	}
	env.Step(qs.N, qs.N, "E25 exact parents")
	x.truthK, x.truth = k, t
	return t, nil
}

// The methods E25 compares, as [Row.Method] names them.
const (
	e25Parents     = "parents"  // dedupe during the walk (nested.Index.SearchParents)
	e25Naive       = "naive"    // k nearest passages, then dedupe (SearchNaive)
	e25NaiveKPrime = "naive k'" // k' = k × mean passages per parent nearest passages, dedupe, keep k
)

// Row is one method at one beam, over the environment's queries.
type Row struct {
	Method      string  // e25Parents, e25Naive or e25NaiveKPrime
	Asked       int     // results asked of the walk: k parents, or k / k' passages
	Ef          int     // effective beam: max(ef, Asked)
	MeanParents float64 // mean distinct parents returned (at most k)
	Short       float64 // fraction of queries given fewer than k parents
	Recall      float64 // parent recall@k against nested.Index.ExactParents
	DistComps   float64 // mean distance computations per query
	Visited     float64 // mean layer-0 nodes visited per query
	Latency     metrics.Latency
}

// P50ms is the median latency in milliseconds, for tables.
func (r Row) P50ms() float64 { return r.Latency.P50.Seconds() * 1e3 }

// Label names the row: "parents ef=40", "naive k'=50 ef=50".
func (r Row) Label() string {
	if r.Method == e25NaiveKPrime {
		return fmt.Sprintf("naive k'=%d ef=%d", r.Asked, r.Ef)
	}
	return fmt.Sprintf("%s ef=%d", r.Method, r.Ef)
}

// efSweep is the default beam sweep: Elasticsearch's num_candidates default
// (1.5·k = 15), then wider beams.
var efSweep = []int{15, 40, 100, 200}

// e25KPrime is the usual workaround's passage count for k parents:
// k × the mean passages per parent, rounded.
func e25KPrime(x *Index, k int) int {
	return max(k, int(math.Round(float64(k)*x.meanPassages())))
}

// Measure runs the environment's queries (Scale.Warmup of them first,
// unmeasured) for k = Scale.K with each method at each beam of efs: the
// k nearest parents deduplicated during the walk, the k nearest passages
// deduplicated afterwards, and the workaround of asking for k' =
// [e25KPrime] passages (beam max(ef, k')) and keeping the first k parents
// (a workaround row whose beam repeats an earlier one is left out).
func Measure(env *experiment.Env, x *Index, efs []int) ([]Row, error) {
	if x == nil || x.ix == nil {
		return nil, fmt.Errorf("experiment: E25: no index (build it with Build): %w", experiment.ErrBadArgument)
	}
	if len(efs) == 0 {
		return nil, fmt.Errorf("experiment: E25: no ef values: %w", experiment.ErrBadArgument)
	}
	for _, ef := range efs {
		if ef < 1 {
			return nil, fmt.Errorf("experiment: E25: ef must be ≥ 1, got %d: %w", ef, experiment.ErrBadArgument)
		}
	}
	k := env.Scale.K
	truth, err := x.truthFor(env, k)
	if err != nil {
		return nil, err
	}
	kp := e25KPrime(x, k)
	type plan struct {
		method string
		asked  int
		ef     int
	}
	var plans []plan
	for _, ef := range efs {
		plans = append(plans, plan{e25Parents, k, max(ef, k)})
	}
	for _, ef := range efs {
		plans = append(plans, plan{e25Naive, k, max(ef, k)})
	}
	seen := map[int]bool{}
	for _, ef := range efs {
		if e := max(ef, kp); !seen[e] {
			seen[e] = true
			plans = append(plans, plan{e25NaiveKPrime, kp, e})
		}
	}
	var out []Row
	for i, p := range plans {
		env.Step(i, len(plans), "E25 methods")
		r, err := x.measure(env, p.method, p.asked, p.ef, k, truth)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	env.Step(len(plans), len(plans), "E25 methods")
	return out, nil
}

// search runs one method for one query and returns at most k parents.
func (x *Index) search(method string, q []float32, asked, ef, k int) ([]nested.Hit, engine.SearchStats, error) {
	var hs []nested.Hit
	var st engine.SearchStats
	var err error
	switch method {
	case e25Parents:
		hs, st, err = x.ix.SearchParents(q, asked, ef)
	case e25Naive, e25NaiveKPrime:
		hs, st, err = x.ix.SearchNaive(q, asked, ef)
	default:
		return nil, st, fmt.Errorf("experiment: E25: unknown method %q: %w", method, experiment.ErrBadArgument)
	}
	if len(hs) > k {
		hs = hs[:k]
	}
	return hs, st, err
}

func (x *Index) measure(env *experiment.Env, method string, asked, ef, k int, truth [][]uint32) (Row, error) {
	qs := x.queries
	r := Row{Method: method, Asked: asked, Ef: ef}
	// The loop times the queries; recall here is of parents, so the hits
	// (fresh slices) are kept and scored by parentRecall after the timing
	// rather than by the loop's recall@k of ids.
	got := make([][]nested.Hit, qs.N)
	loop := metrics.Loop{Queries: qs.N, Warmup: env.Scale.Warmup}
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		hs, st, err := x.search(method, qs.Row(i), asked, ef, k)
		if pass == 0 {
			got[i] = hs
			r.DistComps += float64(st.DistComps)
			r.Visited += float64(st.Visited)
		}
		return nil, err
	})
	if err != nil {
		return Row{}, fmt.Errorf("experiment: E25 %s: %w", method, err)
	}
	var recall float64
	for i, hs := range got {
		r.MeanParents += float64(len(hs))
		if len(hs) < min(k, x.Parents) {
			r.Short++
		}
		recall += parentRecall(hs, truth[i])
	}
	n := float64(qs.N)
	r.MeanParents /= n
	r.Short /= n
	r.DistComps /= n
	r.Visited /= n
	r.Recall = recall / n
	r.Latency = m.Latency
	return r, nil
}

// parentRecall is |got ∩ want| / |want|.
func parentRecall(got []nested.Hit, want []uint32) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[uint32]bool, len(want))
	for _, p := range want {
		in[p] = true
	}
	n := 0
	for _, h := range got {
		if in[h.Parent] {
			n++
			in[h.Parent] = false // a parent counts once
		}
	}
	return float64(n) / float64(len(want))
}

// rowTable tabulates the rows with the notes that explain the mechanism.
func rowTable(env *experiment.Env, x *Index, rows []Row) *table.Table {
	k := env.Scale.K
	t := table.New(fmt.Sprintf("E25 nested vectors: %d parents, %d passages (%.2f per parent), %d queries, k=%d parents, HNSW m=16 ef_construction=100",
		x.Parents, x.Passages, x.meanPassages(), x.queries.N, k),
		table.Col("method", ""),
		table.Column{Header: "asked of the walk", Source: table.Lab, Prec: -1},
		table.Column{Header: "ef", Source: table.Lab, Prec: -1},
		table.Column{Header: "distinct parents", Source: table.Lab, Prec: 2},
		table.Column{Header: fmt.Sprintf("queries < %d parents", k), Unit: "%", Source: table.Lab, Prec: -1},
		table.Column{Header: fmt.Sprintf("parent recall@%d", k), Source: table.Lab, Prec: 3},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3})
	for _, r := range rows {
		asked := fmt.Sprintf("%d parents", r.Asked)
		if r.Method != e25Parents {
			asked = fmt.Sprintf("%d passages", r.Asked)
		}
		_ = t.AddValues(r.Method, asked, r.Ef, r.MeanParents, 100*r.Short, r.Recall, r.DistComps, r.P50ms())
	}
	t.Note("article: no figures, only the mechanism: joining to the parent while walking the graph returns the k nearest documents instead of passages")
	t.Note("parents: the walk's result set keeps one entry per parent (its nearest passage so far), so the beam of ef holds ef distinct documents and the k best are k documents (Lucene's DiversifyingChildrenFloatKnnVectorQuery)")
	t.Note("naive: the same walk keeps the ef nearest passages; the k nearest are deduplicated afterwards, so a document with several passages near the query takes several of the k slots and fewer than k documents come back")
	t.Note("naive k': the usual workaround asks for k' = k × mean passages per parent = %d passages (beam at least k') and keeps the first k documents; it pays for the wider beam and still misses a document whenever more than k' passages crowd the top", e25KPrime(x, k))
	t.Note("recall is against the exact k nearest parents (every passage scored, the best per parent); the parent of each passage is a 4-byte column here (Lucene: a bit set over parent documents, since a block's children precede their parent)")
	return t
}

// recallChart draws parent recall@k against distance computations, one line
// per method, each point labelled with its beam.
func recallChart(env *experiment.Env, rows []Row) *chart.Line {
	c := chart.NewLine(fmt.Sprintf("E25 nested vectors: parent recall@%d against work (lab)", env.Scale.K), "distance computations per query", fmt.Sprintf("parent recall@%d", env.Scale.K))
	for _, m := range []string{e25Parents, e25Naive, e25NaiveKPrime} {
		var xs, ys []float64
		var ls []string
		for _, r := range rows {
			if r.Method == m {
				xs, ys = append(xs, r.DistComps), append(ys, r.Recall)
				ls = append(ls, "ef="+strconv.Itoa(r.Ef))
			}
		}
		if len(xs) > 0 {
			c.AddLabeled(m, xs, ys, ls)
		}
	}
	return c
}

// e25Sweep builds the collection of cfg, measures it at efs and returns
// the table (a notebook's one-liner).
func e25Sweep(env *experiment.Env, cfg Config, efs []int) (*table.Table, error) {
	x, err := Build(env, cfg)
	if err != nil {
		return nil, err
	}
	rows, err := Measure(env, x, efs)
	if err != nil {
		return nil, err
	}
	return rowTable(env, x, rows), nil
}

// Query shows one query (index qi of the environment's queries) at
// beam ef: the k nearest passages with their parents, before the naive
// plan deduplicates them (HNSW's own search, the same walk; a parent seen
// before is marked), beside the k parents of the parent walk and the
// exact k parents.
func (x *Index) Query(env *experiment.Env, qi, ef int) (*table.Table, error) {
	if x == nil || x.ix == nil {
		return nil, fmt.Errorf("experiment: E25: no index (build it with Build): %w", experiment.ErrBadArgument)
	}
	if qi < 0 || qi >= x.queries.N || ef < 1 {
		return nil, fmt.Errorf("experiment: Query: query %d of %d, ef %d: %w", qi, x.queries.N, ef, experiment.ErrBadArgument)
	}
	k := env.Scale.K
	q := x.queries.Row(qi)
	// All k passages, before dedupe: the naive walk's own result list.
	pass, _, err := x.graph.Query(q, engine.Request{K: k, Breadth: ef})
	if err != nil {
		return nil, err
	}
	par, _, err := x.ix.SearchParents(q, k, ef)
	if err != nil {
		return nil, err
	}
	exact, err := x.ix.ExactParents(q, k)
	if err != nil {
		return nil, err
	}
	t := table.New(fmt.Sprintf("E25 query %d, k=%d, ef=%d: the k nearest passages and the k nearest parents", qi, k, ef),
		table.Col("rank", ""),
		table.Column{Header: "naive: passage → parent", Source: table.Lab},
		table.Column{Header: "distance", Source: table.Lab, Prec: 4},
		table.Column{Header: "parents: parent (passage)", Source: table.Lab},
		table.Column{Header: "distance", Source: table.Lab, Prec: 4},
		table.Column{Header: "exact parent", Source: table.Lab})
	seen := map[uint32]bool{}
	distinct := 0
	for i := 0; i < k; i++ {
		row := []any{i + 1, nil, nil, nil, nil, nil}
		if i < len(pass) {
			p := x.ParentOf[pass[i].ID]
			s := fmt.Sprintf("%d → %d", pass[i].ID, p)
			if seen[p] {
				s += " (again)"
			} else {
				distinct++
			}
			seen[p] = true
			row[1], row[2] = s, float64(pass[i].Dist)
		}
		if i < len(par) {
			row[3], row[4] = fmt.Sprintf("%d (%d)", par[i].Parent, par[i].Passage), float64(par[i].Dist)
		}
		if i < len(exact) {
			row[5] = strconv.Itoa(int(exact[i].Parent))
		}
		_ = t.AddValues(row...)
	}
	t.Note("naive: %d passages name %d distinct parents; parents: %d", len(pass), distinct, len(par))
	t.Note("distance is cosine distance (1 − cos); a parent's distance is its nearest passage's")
	return t, nil
}

// Shape is one passage-count distribution measured by [Shapes].
type Shape struct {
	Config Config
	Mean   float64 // measured passages per parent
	Rows   []Row
}

// Shapes builds one collection per config (each about Scale.N passages)
// and measures the three methods at one beam ef: how the naive plan's
// shortfall grows with the passages per parent.
func Shapes(env *experiment.Env, cfgs []Config, ef int) (*table.Table, []Shape, error) {
	if len(cfgs) == 0 || ef < 1 {
		return nil, nil, fmt.Errorf("experiment: Shapes: %d configs, ef %d: %w", len(cfgs), ef, experiment.ErrBadArgument)
	}
	k := env.Scale.K
	var out []Shape
	for i, c := range cfgs {
		env.Step(i, len(cfgs), "E25 passage-count distributions")
		progress := env.Progress
		env.Progress = nil // one bar for the sweep, not one per build
		x, err := Build(env, c)
		var rows []Row
		if err == nil {
			rows, err = Measure(env, x, []int{ef})
		}
		env.Progress = progress
		if err != nil {
			return nil, nil, err
		}
		out = append(out, Shape{Config: x.Config, Mean: x.meanPassages(), Rows: rows})
	}
	env.Step(len(cfgs), len(cfgs), "E25 passage-count distributions")
	t := table.New(fmt.Sprintf("E25 by passage-count distribution: k=%d parents, ef=%d, %d queries (lab)", k, ef, env.Scale.Queries),
		table.Col("passages per parent", ""),
		table.Col("spread", ""),
		table.Column{Header: "mean", Source: table.Lab, Prec: 2},
		table.Column{Header: "naive distinct parents", Source: table.Lab, Prec: 2},
		table.Column{Header: "naive recall", Source: table.Lab, Prec: 3},
		table.Column{Header: "parents distinct", Source: table.Lab, Prec: 2},
		table.Column{Header: "parents recall", Source: table.Lab, Prec: 3},
		table.Column{Header: "parents distances/q", Source: table.Lab, Prec: -1},
		table.Column{Header: "k'", Source: table.Lab, Prec: -1},
		table.Column{Header: "naive k' recall", Source: table.Lab, Prec: 3},
		table.Column{Header: "naive k' distances/q", Source: table.Lab, Prec: -1})
	for _, s := range out {
		var par, nai, kp Row
		for _, r := range s.Rows {
			switch r.Method {
			case e25Parents:
				par = r
			case e25Naive:
				nai = r
			case e25NaiveKPrime:
				kp = r
			}
		}
		dist := strconv.Itoa(s.Config.MinPassages)
		if s.Config.MaxPassages != s.Config.MinPassages {
			dist += "–" + strconv.Itoa(s.Config.MaxPassages) + " uniform"
		} else {
			dist += " each"
		}
		_ = t.AddValues(dist, strconv.FormatFloat(s.Config.Spread, 'g', -1, 64), s.Mean, nai.MeanParents, nai.Recall, par.MeanParents, par.Recall, par.DistComps, kp.Asked, kp.Recall, kp.DistComps)
	}
	t.Note("each distribution is its own collection of about %d passages (fewer parents when they have more passages), spread as configured; one passage per parent is plain kNN, where all three plans coincide", env.Scale.N)
	return t, out, nil
}

func runE25(env *experiment.Env) (*experiment.Report, error) {
	x, err := Build(env, Config{})
	if err != nil {
		return nil, err
	}
	rows, err := Measure(env, x, efSweep)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e25, env)
	r.AddTable(rowTable(env, x, rows))
	r.AddChart(recallChart(env, rows))
	k := env.Scale.K
	for _, row := range rows {
		if row.Ef == max(efSweep[0], k) && row.Method != e25NaiveKPrime {
			r.Note("lab, ef=%d: %s returns %.2f distinct parents on average at parent recall@%d %.3f", row.Ef, row.Method, row.MeanParents, k, row.Recall)
		}
	}
	r.Note("the collection: %v; graph %.0f B/passage of links, parent ids %.0f B/passage", x, x.GraphBytes, x.ParentBytes)
	r.Verdicts = append(r.Verdicts, Verdicts(env, e25KPrime(x, k), results(rows, e25Parents), results(rows, e25Naive), results(rows, e25NaiveKPrime), nil)...)
	return r, nil
}

// Verdicts compares the three plans' measurements with the article's
// mechanism (it gives no figures): parents, naive and workaround are one
// [measure.Result] per beam, in the same beam order, of the parent walk
// (measure.Index on the nested index), the naive plan (on its
// nested.Naive view) and the workaround that asks kPrime = k × mean
// passages per parent (nested.Naive{Passages: kPrime}); MeanHits is the
// distinct documents returned, Recall parent recall@k. Joining passages
// to their parent during the walk returns k documents at every beam,
// where k passages then dedupe return fewer, and finds more of the true
// nearest documents at equal beam; the workaround brings back about k
// documents (± 0.5). shapes, when not nil (from [Shapes] with configs of
// exactly 1, 2 and 10 passages per parent), add the lab's checks of how
// the naive plan's shortfall grows with the passages per parent.
func Verdicts(env *experiment.Env, kPrime int, parents, naive, workaround []measure.Result, shapes []Shape) experiment.Verdicts {
	k := float64(env.Scale.K)
	par, kp := parents, workaround
	allK, short, above := 0, 0, 0
	n := min(len(par), len(naive))
	for i := 0; i < n; i++ {
		if par[i].MeanHits == k {
			allK++
		}
		if naive[i].MeanHits < k {
			short++
		}
		if par[i].Recall > naive[i].Recall {
			above++
		}
	}
	kpOK, kpMin := 0, math.Inf(1)
	for _, r := range kp {
		if r.MeanHits >= k-0.5 {
			kpOK++
		}
		kpMin = math.Min(kpMin, r.MeanHits)
	}
	out := experiment.Verdicts{
		experiment.Holds("E25", "joining during the walk returns k documents at every beam", fmt.Sprintf("k = %d documents", env.Scale.K),
			experiment.OfN(allK, n)+" beams return k", n > 0 && allK == n, "the walk collects parents, not passages"),
		experiment.Holds("E25", "k passages then dedupe return fewer than k documents", fmt.Sprintf("< %d documents", env.Scale.K),
			experiment.OfN(short, n)+" beams short", n > 0 && short == n, "several of the k nearest passages share a parent"),
		experiment.Holds("E25", "at equal beam the parent walk finds more of the nearest documents than the naive plan", "higher parent recall",
			experiment.OfN(above, n)+" beams higher", n > 0 && above == n, experiment.Why(n > 0 && above == n, "the naive plan spends its k results on duplicates", "some beams find as many")),
		experiment.Holds("E25", "the workaround (k' = k × mean passages) brings back about k documents (± 0.5)", fmt.Sprintf("about %d documents", env.Scale.K),
			fmt.Sprintf("k' = %d: at least %.2f documents", kPrime, kpMin), len(kp) > 0 && kpOK == len(kp), experiment.OfN(kpOK, len(kp))+" beams"),
	}
	shape := func(lo, hi int) *Shape {
		for i := range shapes {
			if c := shapes[i].Config; c.MinPassages == lo && c.MaxPassages == hi {
				return &shapes[i]
			}
		}
		return nil
	}
	row := func(s *Shape, method string) Row { return s.Row(method) }
	one, two, ten := shape(1, 1), shape(2, 2), shape(10, 10)
	if one != nil && two != nil && ten != nil {
		a, b := row(one, e25Naive), row(one, e25Parents)
		out = append(out,
			experiment.Holds("E25", "(lab) with one passage per parent the naive plan and the parent walk agree", "(follows from the mechanism)",
				fmt.Sprintf("recall %.3f and %.3f", a.Recall, b.Recall), a.Recall == b.Recall, "no two passages share a parent"),
			experiment.Holds("E25", "(lab) more passages per parent leave the naive plan fewer documents", "(follows from the mechanism)",
				fmt.Sprintf("%.2f at 2, %.2f at 10 per parent", row(two, e25Naive).MeanParents, row(ten, e25Naive).MeanParents),
				row(ten, e25Naive).MeanParents < row(two, e25Naive).MeanParents, "more duplicates among the k nearest passages"),
			experiment.Holds("E25", "(lab) the workaround's beam grows with the passages per parent (k' = k × mean)", "(follows from k')",
				fmt.Sprintf("ef %d at 2, %d at 10 per parent", row(two, e25NaiveKPrime).Ef, row(ten, e25NaiveKPrime).Ef),
				row(ten, e25NaiveKPrime).Ef > row(two, e25NaiveKPrime).Ef, "its cost grows with the documents' length"))
	}
	return out
}

// results hands the rows of one method to [Verdicts] as the notebook
// measures them: one measure.Result per beam.
func results(rows []Row, method string) []measure.Result {
	var out []measure.Result
	for _, r := range rows {
		if r.Method == method {
			res := measure.Result{Label: r.Label(), DistComps: r.DistComps}
			res.Recall, res.MeanHits, res.Latency = r.Recall, r.MeanParents, r.Latency
			out = append(out, res)
		}
	}
	return out
}

// Summary prints Measure's rows side by side: per beam, what the
// parent walk and the naive plan return, and for each target parent recall
// the cheapest row (fewest distance computations) of each method.
func (x *Index) Summary(env *experiment.Env, rows []Row) string {
	k := env.Scale.K
	var b strings.Builder
	if x != nil {
		fmt.Fprintf(&b, "k = %d documents; workaround k' = k × %.2f passages per parent = %d passages\n\n", k, x.meanPassages(), e25KPrime(x, k))
	}
	by := map[string][]Row{}
	for _, r := range rows {
		by[r.Method] = append(by[r.Method], r)
	}
	par, naive, kp := by[e25Parents], by[e25Naive], by[e25NaiveKPrime]
	for i := 0; i < min(len(par), len(naive)); i++ {
		p, n := par[i], naive[i]
		fmt.Fprintf(&b, "ef %4d   parents: %5.2f docs, recall %.3f, %5.0f distances   naive: %5.2f docs (bound %.3f), recall %.3f, %5.0f distances\n",
			p.Ef, p.MeanParents, p.Recall, p.DistComps, n.MeanParents, n.MeanParents/float64(k), n.Recall, n.DistComps)
	}
	cheapest := func(rs []Row, target float64) string {
		best := -1
		for i, r := range rs {
			if r.Recall >= target && (best < 0 || r.DistComps < rs[best].DistComps) {
				best = i
			}
		}
		if best < 0 {
			return "not reached"
		}
		r := rs[best]
		return fmt.Sprintf("ef %d, %.0f distances, p50 %.3f ms", r.Ef, r.DistComps, r.P50ms())
	}
	b.WriteString("\n")
	for _, target := range []float64{0.9, 0.95, 0.99} {
		fmt.Fprintf(&b, "cheapest row at parent recall ≥ %.2f   parents: %-36s naive k': %-36s naive: %s\n",
			target, cheapest(par, target), cheapest(kp, target), cheapest(naive, target))
	}
	return b.String()
}
