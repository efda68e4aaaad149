// Package explore is the computing side of the explorer page (wasm/explorer):
// it generates a seeded data set, builds an HNSW index over it with the
// engine (float32 or quantized codes), and answers the page's questions —
// recall@k and QPS over a sweep of ef, the exact beside the approximate
// top-k of one query, filtered search with each strategy of
// engine/filtered (ACORN-γ over its own denser graph, built on demand by
// [Lab.BuildACORN]), and the layers of an HNSW graph over a 2-D data set
// built for the picture. Everything it reports is computed by the engine;
// the same parameters and seed give the same numbers (timings aside).
//
// It lives under lab/ because it is lab code: wasm/explorer is only the
// browser glue (JavaScript calls in, JSON out). It has no build tag, so
// its tests and the native side of the wasm-versus-native benchmark
// (cmd/veclab's BenchmarkBrowserHNSW) run the very code the browser runs.
//
// Every QPS figure comes from lab/metrics' [metrics.Loop], timed as
// [timing] says; every recall figure is [metrics.RecallDefinition] at the
// page's k.
package explore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
)

// ErrBadParams is wrapped by every error about a parameter.
var ErrBadParams = errors.New("explore: bad parameter")

// ErrNoACORN is wrapped by a search with strategy acorn-gamma before
// [Lab.BuildACORN] built its graph.
var ErrNoACORN = errors.New("explore: the ACORN-γ graph is not built (BuildACORN)")

// BuildParams describe one index. Zero fields take the defaults of
// WithDefaults.
type BuildParams struct {
	N              int    `json:"n"`              // base vectors (default 5,000)
	Dim            int    `json:"dim"`            // dimensions (default 64)
	Clusters       int    `json:"clusters"`       // Gaussian clusters of lab/dataset (default 20)
	Queries        int    `json:"queries"`        // query vectors (default 100)
	M              int    `json:"m"`              // HNSW M (default 16)
	EfConstruction int    `json:"efConstruction"` // HNSW efConstruction (default 100)
	Bits           int    `json:"bits"`           // 32 = float32; 8 (int8), 4, 2, 1 = quantized codes (default 32)
	Seed           uint64 `json:"seed"`           // seeds the data, the levels, the filter values, the quantizer
	PictureN       int    `json:"pictureN"`       // points of the 2-D picture data set (default 300; max 2,000)
	Uniform        bool   `json:"uniform"`        // uniform random data in [−1, 1]^dim under L2 instead of lab/dataset's clusters under cosine
}

// WithDefaults fills zero fields.
func (p BuildParams) WithDefaults() BuildParams {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&p.N, 5000)
	def(&p.Dim, 64)
	def(&p.Clusters, 20)
	def(&p.Queries, 100)
	def(&p.M, 16)
	def(&p.EfConstruction, 100)
	def(&p.Bits, 32)
	def(&p.PictureN, 300)
	return p
}

// Validate reports every bad field at once.
func (p BuildParams) Validate() error {
	var bad []string
	if p.N < 10 || p.N > 200000 {
		bad = append(bad, fmt.Sprintf("n %d (want 10…200000)", p.N))
	}
	if p.Dim < 2 || p.Dim > 1024 {
		bad = append(bad, fmt.Sprintf("dim %d (want 2…1024)", p.Dim))
	}
	if p.Queries < 1 || p.Queries > 10000 {
		bad = append(bad, fmt.Sprintf("queries %d (want 1…10000)", p.Queries))
	}
	if p.Clusters < 1 {
		bad = append(bad, fmt.Sprintf("clusters %d (want ≥ 1)", p.Clusters))
	}
	if p.M < 2 || p.M > 128 {
		bad = append(bad, fmt.Sprintf("M %d (want 2…128)", p.M))
	}
	if p.EfConstruction < 1 || p.EfConstruction > 2000 {
		bad = append(bad, fmt.Sprintf("efConstruction %d (want 1…2000)", p.EfConstruction))
	}
	switch p.Bits {
	case 32, 8, 4, 2, 1:
	default:
		bad = append(bad, fmt.Sprintf("bits %d (want 32, 8, 4, 2 or 1)", p.Bits))
	}
	if p.PictureN < 2 || p.PictureN > 2000 {
		bad = append(bad, fmt.Sprintf("pictureN %d (want 2…2000)", p.PictureN))
	}
	if len(bad) > 0 {
		return fmt.Errorf("explore: build: %s: %w", strings.Join(bad, "; "), ErrBadParams)
	}
	return nil
}

// Progress is told how far a build is: phase names the step ("data",
// "quantizer", "graph", "picture"), done of total its units.
type Progress func(phase string, done, total int)

// Lab is one built index with its data, ready for searches. Not safe for
// concurrent use.
type Lab struct {
	P       BuildParams
	Metric  engine.Metric
	Base    *vec.Matrix
	Queries *vec.Matrix
	Index   *hnsw.Index
	Codes   *quant.Store // nil under float32
	Quant   string       // the quantizer, e.g. "OSQ 1-bit (BBQ), 4-bit query"
	Picture *hnsw.Index  // over the 2-D picture data set

	rescorer *rescore.Rescorer
	searcher *hnsw.Searcher
	meta     *filter.Store
	coll     *filtered.Collection
	acorn    *ACORNInfo            // nil until BuildACORN
	truth    map[int][][]engine.ID // by filter threshold (100: no filter), K = truthK
	truthK   int
	scans    map[int]*scanCodes // Scan's codes, by bits

	BuildSeconds   float64 // the graph build alone (with code encoding when quantized)
	DataSeconds    float64
	QuantSeconds   float64
	PictureSeconds float64
}

// Buckets is the number of values of the filter field "bucket": a
// document's bucket is uniform in 0…Buckets−1, so "bucket < t" matches a
// fraction t/Buckets.
const Buckets = 100

// Build generates the data and builds the index (one worker: the same
// seed gives the same graph). progress may be nil.
func Build(p BuildParams, progress Progress) (l *Lab, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = nil, fmt.Errorf("explore: build: internal error: %v", r)
		}
	}()
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	l = &Lab{P: p, truth: map[int][][]engine.ID{}}
	t0 := time.Now()
	progress("data", 0, 1)
	if p.Uniform {
		l.Metric = engine.L2
		l.Base, l.Queries = uniform(p.N, p.Queries, p.Dim, p.Seed)
	} else {
		l.Metric = engine.Cosine
		ds, err := dataset.Generate(dataset.Config{N: p.N, Queries: p.Queries, Dim: p.Dim, Clusters: p.Clusters, Seed: p.Seed})
		if err != nil {
			return nil, fmt.Errorf("explore: build: %w", err)
		}
		l.Base, l.Queries = ds.Base, ds.Queries
	}
	l.DataSeconds = time.Since(t0).Seconds()
	progress("data", 1, 1)

	cfg := hnsw.Config{Dim: p.Dim, Metric: l.Metric, M: p.M, EfConstruction: p.EfConstruction, Seed: p.Seed, Workers: 1}
	if p.Bits != 32 {
		progress("quantizer", 0, 1)
		t1 := time.Now()
		var q quant.Quantizer
		if p.Bits == 8 {
			// Elasticsearch's int8_hnsw: Lucene's scalar quantization with 7 bits.
			s, err := quant.TrainScalar(l.Base, l.Metric, quant.ScalarConfig{Bits: 7})
			if err != nil {
				return nil, fmt.Errorf("explore: build: %w", err)
			}
			q, l.Quant = s, "int8 (Lucene scalar, 7 bits, as Elasticsearch's int8_hnsw)"
		} else {
			o, err := quant.TrainOSQ(l.Base, l.Metric, quant.OSQConfig{Bits: p.Bits, Seed: p.Seed})
			if err != nil {
				return nil, fmt.Errorf("explore: build: %w", err)
			}
			q = o
			l.Quant = fmt.Sprintf("OSQ %d-bit, 4-bit query", p.Bits)
			if p.Bits == 1 {
				l.Quant += " (BBQ)"
			}
		}
		l.Codes = quant.NewStore(q)
		cfg.Codes = l.Codes
		l.QuantSeconds = time.Since(t1).Seconds()
		progress("quantizer", 1, 1)
	} else {
		l.Quant = "float32"
	}
	ix, err := hnsw.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("explore: build: %w", err)
	}
	keys := make([]uint64, p.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	// Linked in chunks, in row order, for the progress messages: with one
	// worker that is the graph of one AddBatch (engine/hnsw AddBatchContext).
	chunk := max(256, p.N/50)
	t2 := time.Now()
	for lo := 0; lo < p.N; lo += chunk {
		hi := min(p.N, lo+chunk)
		part := &vec.Matrix{N: hi - lo, Dim: p.Dim, Stride: l.Base.Stride, Data: l.Base.Data[lo*l.Base.Stride:]}
		if err := ix.AddBatch(keys[lo:hi], part); err != nil {
			return nil, fmt.Errorf("explore: build: %w", err)
		}
		progress("graph", hi, p.N)
	}
	l.BuildSeconds = time.Since(t2).Seconds()
	l.Index = ix
	l.searcher = ix.NewSearcher()
	// The index's own vectors (normalised under cosine) for exact search
	// and rescoring.
	if l.rescorer, err = rescore.New(rescore.NewSlab(ix.Vectors()), l.Metric, rescore.Options{Concurrency: 1}); err != nil {
		return nil, fmt.Errorf("explore: build: %w", err)
	}
	if err := l.buildMeta(); err != nil {
		return nil, err
	}

	progress("picture", 0, 1)
	t3 := time.Now()
	pts, err := dataset.Plane(p.PictureN, 6, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("explore: build: picture: %w", err)
	}
	pic, err := hnsw.New(hnsw.Config{Dim: 2, Metric: engine.L2, M: p.M, EfConstruction: p.EfConstruction, Seed: p.Seed, Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("explore: build: picture: %w", err)
	}
	pk := make([]uint64, pts.N)
	for i := range pk {
		pk[i] = uint64(i)
	}
	if err := pic.AddBatch(pk, pts); err != nil {
		return nil, fmt.Errorf("explore: build: picture: %w", err)
	}
	l.Picture = pic
	l.PictureSeconds = time.Since(t3).Seconds()
	progress("picture", 1, 1)
	return l, nil
}

// buildMeta gives every document a seeded bucket and binds the collection
// the filtered strategies search.
func (l *Lab) buildMeta() error {
	meta, err := filter.NewStore(filter.Schema{Fields: []filter.Field{{Name: "bucket", Kind: filter.KindInteger, Indexed: true}}})
	if err != nil {
		return fmt.Errorf("explore: build: %w", err)
	}
	r := rand.New(rand.NewPCG(l.P.Seed, 0xb0c7))
	docs := make([]filter.Doc, l.P.N)
	for i := range docs {
		docs[i] = filter.Doc{Meta: map[string]any{"bucket": r.IntN(Buckets)}}
	}
	if _, err := meta.Add(docs...); err != nil {
		return fmt.Errorf("explore: build: %w", err)
	}
	opts := filtered.Options{Metric: l.Metric, Graph: l.Index, M: l.P.M}
	if l.Codes != nil {
		opts.Codes = l.Codes
	}
	coll, err := filtered.New(l.Index.Vectors(), meta, opts)
	if err != nil {
		return fmt.Errorf("explore: build: %w", err)
	}
	l.meta, l.coll = meta, coll
	return nil
}

// uniform draws n base and nq query vectors uniform in [−1, 1]^dim.
func uniform(n, nq, dim int, seed uint64) (*vec.Matrix, *vec.Matrix) {
	r := rand.New(rand.NewPCG(seed, 0x0af))
	fill := func(m *vec.Matrix) *vec.Matrix {
		for i := range m.Data {
			m.Data[i] = float32(2*r.Float64() - 1)
		}
		return m
	}
	return fill(vec.NewMatrix(n, dim)), fill(vec.NewMatrix(nq, dim))
}

// SearchParams are one question of the page.
type SearchParams struct {
	K           int     `json:"k"`           // default 10
	Ef          int     `json:"ef"`          // the current ef (default 40)
	Efs         []int   `json:"efs"`         // the sweep (default 10…512 and Ef)
	Oversample  float64 `json:"oversample"`  // quantized: rescore ⌈oversample·k⌉ candidates with float32; 0 = no rescoring
	Selectivity float64 `json:"selectivity"` // fraction of documents the filter lets through, 0.01…1 (default 1: no filter)
	Strategy    string  `json:"strategy"`    // engine/filtered strategy when filtered (default in-graph)
	Query       int     `json:"query"`       // the query whose top-k is shown
}

// Point is one ef of the sweep.
type Point struct {
	Ef        int     `json:"ef"`
	Recall    float64 `json:"recall"`    // mean recall@k over the queries
	QPS       float64 `json:"qps"`       // queries per second, one thread
	DistComps float64 `json:"distComps"` // mean distance computations per query
	MeanHits  float64 `json:"meanHits"`  // mean results returned (a filter can leave fewer than k)
}

// Hit is one row of a top-k list.
type Hit struct {
	ID   int     `json:"id"`
	Dist float32 `json:"dist"`
	Hit  bool    `json:"hit"` // in the other list
}

// SearchResult answers SearchParams.
type SearchResult struct {
	Curve    []Point `json:"curve"`
	Current  Point   `json:"current"`
	Exact    []Hit   `json:"exact"`
	Approx   []Hit   `json:"approx"`
	Query    int     `json:"query"`
	Matching int     `json:"matching"` // documents the filter lets through
	Filter   string  `json:"filter"`   // the filter expression, "" when none
	Strategy string  `json:"strategy"` // what searched: "hnsw" (no filter) or the strategy
	Paths    string  `json:"paths"`    // the paths a planner took, e.g. "qdrant-graph×100"
	Rescore  int     `json:"rescore"`  // candidates rescored with float32 (0: none)
}

// DefaultEfs is the sweep of ef when SearchParams.Efs is empty.
var DefaultEfs = []int{10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}

// Search runs every query at every ef of the sweep and the current ef, and
// the exact and approximate top-k of one query.
func (l *Lab) Search(p SearchParams) (res *SearchResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("explore: search: internal error: %v", r)
		}
	}()
	strategy, err := l.checkSearch(&p, "search")
	if err != nil {
		return nil, err
	}
	res = &SearchResult{Query: p.Query, Strategy: "hnsw"}
	threshold, f, err := l.filterOf(p.Selectivity)
	if err != nil {
		return nil, fmt.Errorf("explore: search: %w", err)
	}
	res.Matching = l.P.N
	if f != nil {
		res.Filter, res.Matching, res.Strategy = f.String(), len(f.IDs()), strategy.String()
	}
	truth, err := l.truthFor(threshold, f, p.K)
	if err != nil {
		return nil, err
	}
	if l.Codes != nil && p.Oversample > 0 {
		res.Rescore = engine.RescoreDepth(p.K, p.Oversample)
	}
	efs := slices.Clone(p.Efs)
	if len(efs) == 0 {
		efs = slices.Clone(DefaultEfs)
	}
	if !slices.Contains(efs, p.Ef) {
		efs = append(efs, p.Ef)
	}
	sort.Ints(efs)
	efs = slices.Compact(efs)
	paths := map[string]int{}
	for _, ef := range efs {
		pt, err := l.sweep(p, ef, f, strategy, res.Rescore, truth, paths)
		if err != nil {
			return nil, err
		}
		res.Curve = append(res.Curve, pt)
		if ef == p.Ef {
			res.Current = pt
		}
	}
	if f != nil {
		res.Paths = pathsString(paths, len(efs))
	}
	// The one query: exact and approximate top-k, each row marked when
	// the other list holds it.
	q := l.Queries.Row(p.Query)
	approx, _, err := l.one(q, p.K, p.Ef, f, strategy, res.Rescore)
	if err != nil {
		return nil, err
	}
	exact, _, err := l.coll.Search(filtered.Request{Query: q, K: p.K, Filter: f, Strategy: filtered.Exact})
	if err != nil {
		return nil, fmt.Errorf("explore: search: exact: %w", err)
	}
	in := func(rs []engine.Result, id engine.ID) bool {
		return slices.ContainsFunc(rs, func(r engine.Result) bool { return r.ID == id })
	}
	for _, r := range exact {
		res.Exact = append(res.Exact, Hit{ID: int(r.ID), Dist: r.Dist, Hit: in(approx, r.ID)})
	}
	for _, r := range approx {
		res.Approx = append(res.Approx, Hit{ID: int(r.ID), Dist: r.Dist, Hit: in(exact, r.ID)})
	}
	return res, nil
}

// filterOf returns the threshold t of the filter "bucket < t" that lets
// through the fraction sel of the documents, and the compiled filter (nil
// when t is Buckets: no filter).
func (l *Lab) filterOf(sel float64) (int, *filter.Compiled, error) {
	t := int(math.Round(sel * Buckets))
	if t >= Buckets {
		return Buckets, nil, nil
	}
	f, err := l.meta.CompileString(fmt.Sprintf("bucket < %d", t))
	return t, f, err
}

// StrategyRow is one strategy's line of Compare.
type StrategyRow struct {
	Strategy string `json:"strategy"`
	Ready    bool   `json:"ready"` // false: acorn-gamma before BuildACORN (no figures)
	Point
	Paths string `json:"paths"` // the paths it took, e.g. "exact×100" when ACORN-γ pre-filtered
}

// Compare runs the queries at p.Ef under p's filter with every strategy,
// one after another on the same data and truth, so the page can show the
// chosen strategy beside the others (a filter is required: without one
// every strategy is the same HNSW search).
func (l *Lab) Compare(p SearchParams) (rows []StrategyRow, err error) {
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, fmt.Errorf("explore: compare: internal error: %v", r)
		}
	}()
	if _, err := l.checkSearch(&p, "compare"); err != nil && !errors.Is(err, ErrNoACORN) {
		return nil, err
	}
	threshold, f, err := l.filterOf(p.Selectivity)
	if err != nil {
		return nil, fmt.Errorf("explore: compare: %w", err)
	}
	if f == nil {
		return nil, fmt.Errorf("explore: compare: selectivity %v is no filter (want < 1): %w", p.Selectivity, ErrBadParams)
	}
	truth, err := l.truthFor(threshold, f, p.K)
	if err != nil {
		return nil, err
	}
	rescoreN := 0
	if l.Codes != nil && p.Oversample > 0 {
		rescoreN = engine.RescoreDepth(p.K, p.Oversample)
	}
	for _, name := range Strategies() {
		s, err := filtered.ParseStrategy(name)
		if err != nil {
			return nil, fmt.Errorf("explore: compare: %w", err)
		}
		row := StrategyRow{Strategy: name}
		if s == filtered.ACORNGamma && l.acorn == nil {
			rows = append(rows, row)
			continue
		}
		paths := map[string]int{}
		if row.Point, err = l.sweep(p, p.Ef, f, s, rescoreN, truth, paths); err != nil {
			return nil, err
		}
		row.Ready, row.Paths = true, pathsString(paths, 1)
		rows = append(rows, row)
	}
	return rows, nil
}

// pathsString prints the paths of a planner, "name×count" (count divided
// by runs), sorted.
func pathsString(paths map[string]int, runs int) string {
	var ps []string
	for k, v := range paths {
		ps = append(ps, fmt.Sprintf("%s×%d", k, v/runs))
	}
	sort.Strings(ps)
	return strings.Join(ps, ", ")
}

// checkSearch fills the defaults of p and validates it (what names the
// caller in errors).
func (l *Lab) checkSearch(p *SearchParams, what string) (filtered.Strategy, error) {
	if p.K == 0 {
		p.K = 10
	}
	if p.Ef == 0 {
		p.Ef = 40
	}
	if p.Selectivity == 0 {
		p.Selectivity = 1
	}
	if p.Strategy == "" {
		p.Strategy = "in-graph"
	}
	var bad []string
	if p.K < 1 || p.K > 100 {
		bad = append(bad, fmt.Sprintf("k %d (want 1…100)", p.K))
	}
	if p.Ef < 1 || p.Ef > 4096 {
		bad = append(bad, fmt.Sprintf("ef %d (want 1…4096)", p.Ef))
	}
	for _, e := range p.Efs {
		if e < 1 || e > 4096 {
			bad = append(bad, fmt.Sprintf("efs holds %d (want 1…4096)", e))
			break
		}
	}
	if !(p.Oversample == 0 || p.Oversample >= 1 && p.Oversample <= 100) {
		bad = append(bad, fmt.Sprintf("oversample %v (want 0 or 1…100)", p.Oversample))
	}
	if !(p.Selectivity >= 0.01 && p.Selectivity <= 1) {
		bad = append(bad, fmt.Sprintf("selectivity %v (want 0.01…1)", p.Selectivity))
	}
	strategy, serr := filtered.ParseStrategy(p.Strategy)
	if serr != nil || !slices.Contains(Strategies(), p.Strategy) {
		bad = append(bad, fmt.Sprintf("strategy %q (want one of %s)", p.Strategy, strings.Join(Strategies(), ", ")))
	}
	if p.Query < 0 || p.Query >= l.Queries.N {
		bad = append(bad, fmt.Sprintf("query %d (want 0…%d)", p.Query, l.Queries.N-1))
	}
	if len(bad) > 0 {
		return strategy, fmt.Errorf("explore: %s: %s: %w", what, strings.Join(bad, "; "), ErrBadParams)
	}
	if strategy == filtered.ACORNGamma && l.acorn == nil && int(math.Round(p.Selectivity*Buckets)) < Buckets {
		return strategy, fmt.Errorf("explore: %s: strategy acorn-gamma: %w", what, ErrNoACORN)
	}
	return strategy, nil
}

// Strategies are the filter strategies the page offers: every one of
// engine/filtered's ("acorn-gamma" searches only after BuildACORN).
func Strategies() []string { return filtered.Strategies() }

// truthFor returns the exact top-k of every query under the filter
// (threshold Buckets: none), computed once per threshold and k.
func (l *Lab) truthFor(threshold int, f *filter.Compiled, k int) ([][]engine.ID, error) {
	if k != l.truthK {
		l.truth, l.truthK = map[int][][]engine.ID{}, k
	}
	if t, ok := l.truth[threshold]; ok {
		return t, nil
	}
	t := make([][]engine.ID, l.Queries.N)
	for i := range t {
		rs, _, err := l.coll.Search(filtered.Request{Query: l.Queries.Row(i), K: k, Filter: f, Strategy: filtered.Exact})
		if err != nil {
			return nil, fmt.Errorf("explore: exact search: %w", err)
		}
		for _, r := range rs {
			t[i] = append(t[i], r.ID)
		}
	}
	l.truth[threshold] = t
	return t, nil
}

// one runs one approximate search.
func (l *Lab) one(q []float32, k, ef int, f *filter.Compiled, strategy filtered.Strategy, rescoreN int) ([]engine.Result, filtered.Stats, error) {
	if f == nil {
		var st filtered.Stats
		if rescoreN > 0 {
			rs, err := l.searcher.Search(q, engine.Request{K: k, Breadth: ef, Params: &hnsw.Rescore{Rescorer: l.rescorer, Oversample: float64(rescoreN) / float64(k)}})
			st.SearchStats = l.searcher.Stats()
			return rs, st, err
		}
		rs, err := l.searcher.Search(q, engine.Request{K: k, Breadth: ef})
		st.SearchStats = l.searcher.Stats()
		return slices.Clone(rs), st, err
	}
	// The store's knobs beyond the beam (pgvector's scan limits, Qdrant's
	// full_scan_threshold, the M Redis's heuristic is fed) on its
	// defaults, from lab/profile: engine/filtered holds no store's default.
	p := profile.StrategyParams(strategy, k, l.Index.Dim())
	p.Ef, p.Rescore, p.SampleSeed = ef, rescoreN, l.P.Seed
	rs, st, err := l.coll.Search(filtered.Request{Query: q, K: k, Filter: f, Strategy: strategy, Params: p})
	if err != nil {
		return nil, st, fmt.Errorf("explore: search: %s: %w", strategy, err)
	}
	return rs, st, nil
}

// sweep runs every query at ef through [timing].
func (l *Lab) sweep(p SearchParams, ef int, f *filter.Compiled, strategy filtered.Strategy, rescoreN int, truth [][]engine.ID, paths map[string]int) (Point, error) {
	comps := 0
	loop := timing
	loop.Queries, loop.K, loop.Truth = l.Queries.N, p.K, truth
	m, err := loop.Run(context.Background(), func(pass, i int) ([]engine.Result, error) {
		var fc *filter.Compiled
		if f != nil {
			fc = f.Clone()
		}
		rs, st, err := l.one(l.Queries.Row(i), p.K, ef, fc, strategy, rescoreN)
		if pass == 0 {
			comps += st.DistComps
			if f != nil {
				paths[st.Path.String()]++
			}
		}
		return rs, err
	})
	if err != nil {
		return Point{}, fmt.Errorf("explore: ef %d: %w", ef, err)
	}
	return Point{Ef: ef, Recall: m.Recall, QPS: m.QPS,
		DistComps: float64(comps) / float64(l.Queries.N), MeanHits: m.MeanHits}, nil
}

// timing is how the explorer times the queries of one setting (one ef of
// the sweep, one strategy, one scan) with lab/metrics' loop: every query
// once untimed (the warm-up), then passes over all queries, each timed as
// a whole because a browser's clock (performance.now, coarsened to
// 0.1–1 ms) cannot time one 20 µs query, until at least timingPasses
// passes and timingMin have run; the QPS is the best pass's. Before, the
// first pass and its repeats were totalled over 25 ms with no warm-up,
// and the curve zig-zagged in a browser
// (at 5,000 × 64: 15k QPS at ef 16, 6k at ef 32, 15k at ef 64): a
// garbage collection or a busy tab inside the window lands on one point.
// The best of several passes leaves it out (TestSweepQPSMonotone).
var timing = metrics.Loop{Warmup: math.MaxInt, Passes: timingPasses, MinTime: timingMin, MaxPasses: 200, Pick: metrics.BestPass, PerPass: true}

const (
	timingPasses = 5
	timingMin    = 40 * time.Millisecond
)

// Layer is one layer of the picture's graph.
type Layer struct {
	Level int      `json:"level"`
	Nodes []int    `json:"nodes"` // ids whose top layer is ≥ Level
	Edges [][2]int `json:"edges"` // each undirected link once
	Path  []int    `json:"path"`  // the nodes the search of Query expanded on this layer
}

// PictureData is the picture's graph for drawing.
type PictureData struct {
	X, Y     []float32 `json:"-"`
	Points   []float32 `json:"points"` // x0, y0, x1, y1, …
	Layers   []Layer   `json:"layers"` // top first
	Entry    int       `json:"entry"`
	Query    []float32 `json:"query"`   // the 2-D query drawn
	Results  []int     `json:"results"` // its approximate top-k at ef
	M        int       `json:"m"`
	EfConstr int       `json:"efConstruction"`
}

// Draw returns the layers of the picture's graph (engine/hnsw's graph
// accessors) and the trace of one search for a seeded 2-D query, at ef.
func (l *Lab) Draw(ef, k int, seed uint64) (pd *PictureData, err error) {
	defer func() {
		if r := recover(); r != nil {
			pd, err = nil, fmt.Errorf("explore: picture: internal error: %v", r)
		}
	}()
	ix := l.Picture
	pd = &PictureData{Entry: int(ix.EntryPoint()), M: ix.Config().M, EfConstr: ix.Config().EfConstruction, Results: []int{}}
	for i := 0; i < ix.Len(); i++ {
		v := ix.Vector(engine.ID(i))
		pd.Points = append(pd.Points, v[0], v[1])
	}
	r := rand.New(rand.NewPCG(seed, 0x9e))
	q := []float32{float32(2*r.Float64() - 1), float32(2*r.Float64() - 1)}
	pd.Query = q
	tr, err := ix.NewSearcher().SearchTrace(q, engine.Request{K: k, Breadth: ef})
	if err != nil {
		return nil, fmt.Errorf("explore: picture: %w", err)
	}
	for _, rr := range tr.Results {
		pd.Results = append(pd.Results, int(rr.ID))
	}
	for level := ix.MaxLevel(); level >= 0; level-- {
		ly := Layer{Level: level, Nodes: []int{}, Edges: [][2]int{}, Path: []int{}} // [] in JSON, never null
		seen := map[[2]int]bool{}
		for i := 0; i < ix.Len(); i++ {
			a := engine.ID(i)
			if ix.Level(a) < level {
				continue
			}
			ly.Nodes = append(ly.Nodes, i)
			for _, b := range ix.Neighbors(level, a) {
				e := [2]int{int(min(a, b)), int(max(a, b))}
				if !seen[e] {
					seen[e] = true
					ly.Edges = append(ly.Edges, e)
				}
			}
		}
		if lt, ok := tr.Layer(level); ok {
			for _, id := range lt.Expanded {
				ly.Path = append(ly.Path, int(id))
			}
		}
		pd.Layers = append(pd.Layers, ly)
	}
	return pd, nil
}

// Truth returns the exact top-k of every query without a filter (ids,
// nearest first), as the recall of Search counts it.
func (l *Lab) Truth(k int) ([][]engine.ID, error) {
	if k < 1 || k > 100 {
		return nil, fmt.Errorf("explore: truth: k %d (want 1…100): %w", k, ErrBadParams)
	}
	return l.truthFor(Buckets, nil, k)
}

// ACORNInfo describes the ACORN-γ graph of a Lab beside its HNSW graph.
type ACORNInfo struct {
	Gamma          int     `json:"gamma"`          // γ: lists of up to M·γ neighbours
	M              int     `json:"m"`              // the M the predicate subgraph keeps (the index's M)
	MBeta          int     `json:"mBeta"`          // M_β: layer-0 candidates kept before compression (2·M)
	EfConstruction int     `json:"efConstruction"` // its insertion beam (M·γ)
	MinSelectivity float64 `json:"minSelectivity"` // below it a search pre-filters (exact search over the matches): 1/γ
	Seconds        float64 `json:"seconds"`        // build time (one thread)
	MeanDegree     float64 `json:"meanDegree"`     // mean layer-0 list length, after compression
	LinkBytes      float64 `json:"linkBytes"`      // bytes per vector of its lists as stored (ids and a level byte)
	HNSWMeanDegree float64 `json:"hnswMeanDegree"` // the HNSW graph's mean layer-0 list length, for comparison
	HNSWLinkBytes  float64 `json:"hnswLinkBytes"`  // the HNSW graph's bytes per vector of links (at their fixed capacity)
}

// MaxGamma is the largest γ BuildACORN accepts: lists of M·γ neighbours
// grow the build about γ-fold over HNSW's, and a page waits for it.
const MaxGamma = 32

// BuildACORN builds the ACORN-γ graph over the index's vectors
// (engine/filtered's BuildACORN: Patel et al., "ACORN: Performant and
// Predicate-Agnostic Search Over Vector Embeddings and Structured Data",
// SIGMOD 2024 — every node keeps its M·γ nearest candidates with no
// diversity pruning, layer 0 compressed past the first M_β = 2·M) with
// the index's M and seed, and makes strategy acorn-gamma searchable.
// gamma 0 means engine/filtered's default (8). A Lab holds one ACORN graph:
// a new γ replaces it; the same γ returns the one built.
func (l *Lab) BuildACORN(gamma int) (info *ACORNInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("explore: ACORN-γ build: internal error: %v", r)
		}
	}()
	cfg := filtered.ACORNConfig{M: l.P.M, Gamma: gamma, Seed: l.P.Seed}.WithDefaults()
	if cfg.Gamma < 1 || cfg.Gamma > MaxGamma {
		return nil, fmt.Errorf("explore: ACORN-γ build: gamma %d (want 1…%d): %w", gamma, MaxGamma, ErrBadParams)
	}
	if l.acorn != nil && l.acorn.Gamma == cfg.Gamma {
		return l.acorn, nil
	}
	t0 := time.Now()
	a, err := filtered.BuildACORN(l.Index.Vectors(), l.Metric, cfg)
	if err != nil {
		return nil, fmt.Errorf("explore: ACORN-γ build: %w", err)
	}
	secs := time.Since(t0).Seconds()
	opts := filtered.Options{Metric: l.Metric, Graph: l.Index, ACORN: a, M: l.P.M}
	if l.Codes != nil {
		opts.Codes = l.Codes
	}
	coll, err := filtered.New(l.Index.Vectors(), l.meta, opts)
	if err != nil {
		return nil, fmt.Errorf("explore: ACORN-γ build: %w", err)
	}
	deg := 0
	for i := 0; i < l.Index.Len(); i++ {
		deg += len(l.Index.Neighbors(0, engine.ID(i)))
	}
	c := a.Config()
	l.coll = coll
	l.acorn = &ACORNInfo{Gamma: c.Gamma, M: c.M, MBeta: c.MBeta, EfConstruction: c.EfConstruction, MinSelectivity: c.MinSelectivity,
		Seconds: secs, MeanDegree: a.MeanDegree(), LinkBytes: a.BytesPerVector(),
		HNSWMeanDegree: float64(deg) / float64(max(1, l.Index.Len())), HNSWLinkBytes: l.Index.GraphBytesPerVector()}
	return l.acorn, nil
}

// ACORN returns what BuildACORN built (nil before it).
func (l *Lab) ACORN() *ACORNInfo { return l.acorn }
