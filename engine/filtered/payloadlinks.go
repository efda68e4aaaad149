package filtered

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// Qdrant's "filterable HNSW" extra edges (qdrant/qdrant
// lib/segment/src/index/hnsw_index/hnsw/build.rs, HNSWIndex::build and
// build_filtered_graph; the merge is GraphLayersBuilder::merge_from_other in
// graph_layers_builder.rs), restated:
//
//  1. after the main graph, take the average layer-0 degree K of the main
//     graph (at least 1) and the percolation bound N/K·4: a block larger
//     than that stays connected inside the main graph anyway;
//  2. for every payload-indexed field, enumerate its payload blocks for
//     the full-scan threshold in vectors (filter.Store.PayloadBlocks:
//     keyword values with more points than the threshold, overlapping
//     numeric ranges);
//  3. skip a block above the percolation bound, or with no more than
//     threshold/4 points (Qdrant's "mostly deleted" rule; with no deletions
//     only a small numeric range meets it);
//  4. build a separate HNSW over the block's points with payload_m links
//     (payload_m0 = 2·payload_m on layer 0, Qdrant's default payload_m is
//     the main m) and the main ef_construct;
//  5. merge: append each block link that a node's layer-0 list does not
//     already hold. Lists grow past m0; nothing is pruned.
//
// Departures: Qdrant's block graph is flat (every point on its layer 0);
// here engine/hnsw builds an ordinary layered graph over the block (its
// upper layers only guide construction and are dropped). Qdrant also
// skips, for the second and later fields, blocks whose sampled
// connectivity in the main graph already reaches the main graph's own
// (subgraph_connectivity at the 2/K percolation point); that rule is not
// emulated: every eligible block of every listed field is built.

// PayloadLinksConfig configures [BuildPayloadLinks]. Zero fields take the
// defaults noted, the engine's own: Qdrant's values (full_scan_threshold,
// ef_construct, payload_m) come resolved from lab/profile.
type PayloadLinksConfig struct {
	// Fields are the payload-indexed fields to build links for, in order.
	// Default: every indexed field of the store, in schema order. Qdrant
	// builds them only for indexes that exist before the HNSW build.
	Fields []string
	// M is the main graph's M (default: the graph's own when it has an
	// M() method, as *hnsw.Index does, else 16).
	M int
	// PayloadM is Qdrant's payload_m: the block graphs' links per node on
	// layers ≥ 1, 2·PayloadM on layer 0 (default M). Negative is an error.
	PayloadM int
	// Threshold is Qdrant's full_scan_threshold as a vector count, the
	// same value as Params.FullScanThreshold. Required: which blocks get
	// links is a comparison with it.
	Threshold int
	// EfConstruction is the block graphs' beam (Qdrant's ef_construct;
	// default: the main graph's when it reports one, as *hnsw.Index does,
	// else hnsw.Config's own default).
	EfConstruction int
	// Seed seeds the block graphs' level generators (block i gets a seed
	// derived from Seed and i).
	Seed uint64
	// Workers is the number of blocks built at once, each on one goroutine
	// (default 1). The result does not depend on it: every block graph is
	// built single-threaded and merged in block order.
	Workers int
}

// withDefaults fills the zero fields.
func (c PayloadLinksConfig) withDefaults(dim int, g Graph) PayloadLinksConfig {
	if c.M == 0 {
		c.M = 16
		if mg, ok := g.(interface{ M() int }); ok && mg.M() > 0 {
			c.M = mg.M()
		}
	}
	if c.PayloadM == 0 {
		c.PayloadM = c.M
	}
	if c.EfConstruction == 0 {
		if cg, ok := g.(interface{ Config() hnsw.Config }); ok {
			c.EfConstruction = cg.Config().EfConstruction
		}
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	return c
}

// String prints the configuration.
func (c PayloadLinksConfig) String() string {
	return fmt.Sprintf("fields=%s m=%d payload_m=%d threshold=%d efc=%d seed=%d workers=%d",
		strings.Join(c.Fields, ","), c.M, c.PayloadM, c.Threshold, c.EfConstruction, c.Seed, c.Workers)
}

// BlockLinks is what happened to one payload block.
type BlockLinks struct {
	Field string
	Cond  string // the block's condition, e.g. category == 'c3'
	Size  int    // points in the block
	// Skip is "" for a built block, else the rule that skipped it:
	// "percolation" (more than N/K·4 points) or "small" (no more than
	// threshold/4 points).
	Skip       string
	ExtraLinks int // layer-0 links the block added to the main graph
}

// PayloadLinksReport says what [BuildPayloadLinks] built.
type PayloadLinksReport struct {
	Config     PayloadLinksConfig // with defaults
	N          int                // nodes
	AvgDegree0 float64            // the main graph's mean layer-0 degree K
	MaxBlock   int                // percolation bound N/⌊K⌋·4
	// BelowThreshold counts keyword/bool values with no more points than
	// the threshold: no block (the planner scores such filters exactly).
	BelowThreshold     int
	Blocks             []BlockLinks  // every block considered, in build order
	Built              int           // blocks built
	SkippedPercolation int           // blocks above MaxBlock
	SkippedSmall       int           // blocks of at most threshold/4 points
	ExtraLinks         int           // layer-0 links added in all
	Elapsed            time.Duration // wall time of the whole build
}

// Considered returns the number of blocks enumerated.
func (r PayloadLinksReport) Considered() int { return len(r.Blocks) }

// BytesPerVector is the link storage the extra edges add per vector
// (4 bytes per link, as in Qdrant's uncompressed link lists).
func (r PayloadLinksReport) BytesPerVector() float64 {
	if r.N == 0 {
		return 0
	}
	return 4 * float64(r.ExtraLinks) / float64(r.N)
}

// String summarises the report on one line.
func (r PayloadLinksReport) String() string {
	return fmt.Sprintf("payload links: %d blocks considered (%d values below threshold %d), %d built, %d skipped by percolation (> %d points, K = %.1f), %d skipped as small; %d extra links, %.1f B/vector, %.2f s",
		r.Considered(), r.BelowThreshold, r.Config.Threshold, r.Built, r.SkippedPercolation, r.MaxBlock, r.AvgDegree0,
		r.SkippedSmall, r.ExtraLinks, r.BytesPerVector(), r.Elapsed.Seconds())
}

// PayloadGraph is a main HNSW graph with Qdrant's payload-block links
// merged into its layer 0: an overlay that leaves the main graph
// untouched. Upper layers, the entry point and the top level are the main
// graph's. It is read-only and safe for concurrent use; build it after the
// main graph's last insert (its merged lists copy the main lists of the
// nodes that got links).
type PayloadGraph struct {
	base Graph
	// start[id]…start[id+1] is id's merged layer-0 list in adj (its main
	// links then its extra ones); an empty range means no extra links: the
	// main graph's list is used as is.
	start  []uint32
	adj    []engine.ID
	report PayloadLinksReport
}

// Len returns the number of nodes.
func (g *PayloadGraph) Len() int { return g.base.Len() }

// MaxLevel returns the main graph's top layer.
func (g *PayloadGraph) MaxLevel() int { return g.base.MaxLevel() }

// EntryPoint returns the main graph's entry point.
func (g *PayloadGraph) EntryPoint() engine.ID { return g.base.EntryPoint() }

// Neighbors returns id's links on level: on layer 0 the main graph's
// followed by the payload links (read-only, not retained).
func (g *PayloadGraph) Neighbors(level int, id engine.ID) []engine.ID {
	if level == 0 {
		if int(id)+1 < len(g.start) {
			if lo, hi := g.start[id], g.start[id+1]; lo < hi {
				return g.adj[lo:hi:hi]
			}
		}
	}
	return g.base.Neighbors(level, id)
}

// Base returns the main graph.
func (g *PayloadGraph) Base() Graph { return g.base }

// Report returns what was built.
func (g *PayloadGraph) Report() PayloadLinksReport { return g.report }

// M returns the main graph's M (for a caller that reads it off the graph).
func (g *PayloadGraph) M() int { return g.report.Config.M }

// BuildPayloadLinks builds Qdrant's payload-block links for the main graph
// g over vectors (row i = node i, normalised under Cosine as g was built)
// and the payload indexes of meta (same ids), and returns g with the links
// merged into its layer 0. See the comment at the top of payloadlinks.go
// for the rules and the Qdrant source they restate. Every bad argument is
// reported at once; g and meta are only read.
func BuildPayloadLinks(vectors *vec.Matrix, metric engine.Metric, meta *filter.Store, g Graph, cfg PayloadLinksConfig) (*PayloadGraph, error) {
	start := time.Now()
	var bad []string
	if vectors == nil {
		bad = append(bad, "no vectors")
	}
	if meta == nil {
		bad = append(bad, "no metadata store")
	}
	if g == nil {
		bad = append(bad, "no main graph")
	}
	if !metric.Valid() {
		bad = append(bad, fmt.Sprintf("metric %v", metric))
	}
	if vectors != nil && meta != nil && meta.Len() != vectors.N {
		bad = append(bad, fmt.Sprintf("%d vectors but %d metadata records", vectors.N, meta.Len()))
	}
	if vectors != nil && g != nil && g.Len() != vectors.N {
		bad = append(bad, fmt.Sprintf("main graph has %d nodes, %d vectors", g.Len(), vectors.N))
	}
	if cfg.M < 0 {
		bad = append(bad, fmt.Sprintf("m %d < 0", cfg.M))
	}
	if cfg.PayloadM < 0 {
		bad = append(bad, fmt.Sprintf("payload_m %d < 0", cfg.PayloadM))
	}
	if cfg.PayloadM == 1 || cfg.PayloadM == 0 && cfg.M == 1 {
		bad = append(bad, "payload_m 1 (a block graph needs at least 2 links per node)")
	}
	if cfg.Threshold < 1 {
		bad = append(bad, fmt.Sprintf("threshold %d < 1: Qdrant's full_scan_threshold in vectors is required (lab/profile resolves its default)", cfg.Threshold))
	}
	if cfg.EfConstruction < 0 {
		bad = append(bad, fmt.Sprintf("ef_construct %d < 0", cfg.EfConstruction))
	}
	if cfg.Workers < 0 {
		bad = append(bad, fmt.Sprintf("workers %d < 0", cfg.Workers))
	}
	var fieldErrs []error
	if meta != nil {
		seen := map[string]bool{}
		for _, f := range cfg.Fields {
			switch {
			case seen[f]:
				bad = append(bad, fmt.Sprintf("field %q listed twice", f))
			case meta.Kind(f) == filter.KindNone:
				fieldErrs = append(fieldErrs, fmt.Errorf("filtered: payload links: field %q: %w", f, filter.ErrUnknownField))
			case !meta.Indexed(f):
				bad = append(bad, fmt.Sprintf("field %q has no payload index (Qdrant builds links only for fields indexed before the HNSW build)", f))
			}
			seen[f] = true
		}
	}
	if len(bad) > 0 {
		fieldErrs = append(fieldErrs, fmt.Errorf("filtered: payload links: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument))
	}
	if err := errors.Join(fieldErrs...); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(vectors.Dim, g)
	if cfg.Fields == nil {
		for _, f := range meta.Schema().Fields {
			if meta.Indexed(f.Name) {
				cfg.Fields = append(cfg.Fields, f.Name)
			}
		}
	}
	n := vectors.N
	rep := PayloadLinksReport{Config: cfg, N: n}

	// 1. The main graph's mean layer-0 degree and the percolation bound.
	deg := 0
	for id := 0; id < n; id++ {
		deg += len(g.Neighbors(0, engine.ID(id)))
	}
	if n > 0 {
		rep.AvgDegree0 = float64(deg) / float64(n)
	}
	k := max(int(rep.AvgDegree0), 1)
	rep.MaxBlock = n / k * 4

	// 2–3. Enumerate and sieve the blocks.
	type job struct {
		ids  []engine.ID
		rep  int // index in rep.Blocks
		seed uint64
	}
	var jobs []job
	for _, f := range cfg.Fields {
		blocks, below, err := meta.PayloadBlocks(f, cfg.Threshold)
		if err != nil {
			return nil, fmt.Errorf("filtered: payload links: %w", err)
		}
		rep.BelowThreshold += below
		for _, b := range blocks {
			bl := BlockLinks{Field: f, Cond: b.Cond.String(), Size: len(b.IDs)}
			switch {
			case len(b.IDs) > rep.MaxBlock:
				bl.Skip = "percolation"
				rep.SkippedPercolation++
			case len(b.IDs) <= cfg.Threshold/4 || len(b.IDs) < 2:
				bl.Skip = "small"
				rep.SkippedSmall++
			default:
				rep.Built++
				jobs = append(jobs, job{ids: b.IDs, rep: len(rep.Blocks), seed: cfg.Seed + 0x9e3779b97f4a7c15*uint64(len(rep.Blocks)+1)})
			}
			rep.Blocks = append(rep.Blocks, bl)
		}
	}

	// 4. Build the block graphs (each single-threaded; Workers at once)
	// and keep their layer-0 links in global ids.
	links := make([][][2]engine.ID, len(jobs)) // per job: (from, to) pairs in build order
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(cfg.Workers, max(len(jobs), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				links[j], errs[j] = blockLinks(vectors, metric, jobs[j].ids, cfg, jobs[j].seed)
			}
		}()
	}
	for j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("filtered: payload links: %w", err)
	}

	// 5. Merge, in block order: a link is added when the node's list does
	// not hold it yet (main links or an earlier block's).
	extra := make([][]engine.ID, n)
	has := func(list []engine.ID, x engine.ID) bool {
		for _, y := range list {
			if y == x {
				return true
			}
		}
		return false
	}
	for j, ls := range links {
		added := 0
		for _, l := range ls {
			from, to := l[0], l[1]
			if has(g.Neighbors(0, from), to) || has(extra[from], to) {
				continue
			}
			extra[from] = append(extra[from], to)
			added++
		}
		rep.Blocks[jobs[j].rep].ExtraLinks = added
		rep.ExtraLinks += added
	}
	pg := &PayloadGraph{base: g, start: make([]uint32, n+1)}
	total := 0
	for id := 0; id < n; id++ {
		if e := extra[id]; len(e) > 0 {
			total += len(g.Neighbors(0, engine.ID(id))) + len(e)
		}
	}
	pg.adj = make([]engine.ID, 0, total)
	for id := 0; id < n; id++ {
		pg.start[id] = uint32(len(pg.adj))
		if e := extra[id]; len(e) > 0 {
			pg.adj = append(pg.adj, g.Neighbors(0, engine.ID(id))...)
			pg.adj = append(pg.adj, e...)
		}
	}
	pg.start[n] = uint32(len(pg.adj))
	rep.Elapsed = time.Since(start)
	pg.report = rep
	return pg, nil
}

// blockLinks builds an HNSW over the rows ids of vectors and returns its
// layer-0 links as (from, to) pairs of global ids, node by node.
func blockLinks(vectors *vec.Matrix, metric engine.Metric, ids []engine.ID, cfg PayloadLinksConfig, seed uint64) ([][2]engine.ID, error) {
	dim := vectors.Dim
	m := vec.NewMatrix(len(ids), dim)
	keys := make([]uint64, len(ids))
	for i, id := range ids {
		copy(m.Row(i), vectors.Row(int(id)))
		keys[i] = uint64(i)
	}
	ix, err := hnsw.New(hnsw.Config{Dim: dim, Metric: metric, M: cfg.PayloadM, M0: 2 * cfg.PayloadM,
		EfConstruction: cfg.EfConstruction, Seed: seed, Workers: 1})
	if err != nil {
		return nil, err
	}
	if err := ix.AddBatch(keys, m); err != nil {
		return nil, fmt.Errorf("block of %d points: %w", len(ids), err)
	}
	var out [][2]engine.ID
	for i := range ids {
		for _, nb := range ix.Neighbors(0, engine.ID(i)) {
			out = append(out, [2]engine.ID{ids[i], ids[nb]})
		}
	}
	return out, nil
}

// WithPayloadLinks returns a collection over the same vectors, metadata
// and ACORN graph whose HNSW graph is the collection's with Qdrant's
// payload-block links merged in ([BuildPayloadLinks] over the collection's
// payload indexes). Every graph strategy then walks the merged graph; it is
// meant for the Qdrant strategy, whose filtered traversal needs the links.
// The report says what was built.
func (c *Collection) WithPayloadLinks(cfg PayloadLinksConfig) (*Collection, PayloadLinksReport, error) {
	if c.graph == nil {
		return nil, PayloadLinksReport{}, fmt.Errorf("filtered: payload links need the collection's HNSW graph and it has none: %w", engine.ErrInvalidArgument)
	}
	base := c.graph
	if pg, ok := base.(*PayloadGraph); ok {
		base = pg.base // rebuild over the main graph, not on top of older links
	}
	if cfg.M == 0 {
		cfg.M = c.m
	}
	pg, err := BuildPayloadLinks(c.vectors, c.metric, c.meta, base, cfg)
	if err != nil {
		return nil, PayloadLinksReport{}, err
	}
	nc, err := New(c.vectors, c.meta, withGraph(c.options(&c.plan), pg))
	if err != nil {
		return nil, PayloadLinksReport{}, err
	}
	return nc, pg.Report(), nil
}

func withGraph(o Options, g Graph) Options {
	o.Graph = g
	return o
}
