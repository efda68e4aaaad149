package picture

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// ErrBadArgument is wrapped by every error about an argument.
var ErrBadArgument = errors.New("picture: bad argument")

// GraphOptions are the build knobs of [Graph], named so that a cell reads
// picture.Graph(points, picture.GraphOptions{M: 4, EfConstruction: 32}).
type GraphOptions struct {
	M              int    // links per node on the upper layers (2·M on layer 0); 0: 16
	EfConstruction int    // the build's beam; 0: hnswlib's 200
	Seed           uint64 // the layer draw; 0: 1
	// Selection is how a node keeps its links among the candidates the
	// build found: hnsw.Heuristic (the default: a candidate nearer to a
	// kept link than to the node is dropped, Malkov and Yashunin's Alg. 4)
	// or hnsw.Simple (the nearest M, Alg. 3).
	Selection hnsw.Selection
}

// Graph builds an HNSW graph (squared L2) over points on one worker, so
// the same seed gives the same graph.
func Graph(points *vec.Matrix, o GraphOptions) (*hnsw.Index, error) {
	if points == nil || points.N == 0 {
		return nil, fmt.Errorf("picture: Graph: no points: %w", ErrBadArgument)
	}
	if o.M == 0 {
		o.M = 16
	}
	if o.EfConstruction == 0 {
		o.EfConstruction = 200
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	ix, err := hnsw.New(hnsw.Config{Dim: points.Dim, M: o.M, EfConstruction: o.EfConstruction,
		Metric: engine.L2, Seed: o.Seed, Workers: 1, Selection: o.Selection})
	if err != nil {
		return nil, fmt.Errorf("picture: Graph: %w", err)
	}
	keys := make([]uint64, points.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := ix.AddBatch(keys, points); err != nil {
		return nil, fmt.Errorf("picture: Graph: %w", err)
	}
	return ix, nil
}

func check2D(ix *hnsw.Index) error {
	if ix == nil || ix.Len() == 0 {
		return fmt.Errorf("picture: Facts: empty or nil graph: %w", ErrBadArgument)
	}
	if ix.Dim() != 2 {
		return fmt.Errorf("picture: a %d-dimensional graph cannot be drawn in the plane: %w", ix.Dim(), ErrBadArgument)
	}
	return nil
}

// coords returns the x and y of ids.
func coords(ix *hnsw.Index, ids []engine.ID) (x, y []float64) {
	x, y = make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		v := ix.Vector(id)
		x[i], y[i] = float64(v[0]), float64(v[1])
	}
	return x, y
}

func all(ix *hnsw.Index) []engine.ID {
	ids := make([]engine.ID, ix.Len())
	for i := range ids {
		ids[i] = engine.ID(i)
	}
	return ids
}

// onLevel returns the nodes whose top layer is at least level.
func onLevel(ix *hnsw.Index, level int) []engine.ID {
	var ids []engine.ID
	for i := 0; i < ix.Len(); i++ {
		if ix.Level(engine.ID(i)) >= level {
			ids = append(ids, engine.ID(i))
		}
	}
	return ids
}

// edges returns the segments of level's lists (each undirected pair once,
// a one-way link drawn too).
func edges(ix *hnsw.Index, level int) (x1, y1, x2, y2 []float64) {
	type pair struct{ a, b engine.ID }
	seen := map[pair]bool{}
	for _, a := range onLevel(ix, level) {
		for _, b := range ix.Neighbors(level, a) {
			p := pair{min(a, b), max(a, b)}
			if seen[p] {
				continue
			}
			seen[p] = true
			va, vb := ix.Vector(a), ix.Vector(b)
			x1, y1 = append(x1, float64(va[0])), append(y1, float64(va[1]))
			x2, y2 = append(x2, float64(vb[0])), append(y2, float64(vb[1]))
		}
	}
	return
}

func square(title string) *chart.Scatter {
	c := chart.NewScatter(title, "", "")
	c.Equal, c.NoLegend = true, true
	return c
}

// LayerPicture draws one layer: every point in grey, the layer's nodes
// ringed and its links as segments.
func LayerPicture(ix *hnsw.Index, level int) (*chart.Scatter, error) {
	if err := check2D(ix); err != nil {
		return nil, err
	}
	if level < 0 || level > ix.MaxLevel() {
		return nil, fmt.Errorf("picture: layer %d (the graph has layers 0…%d): %w", level, ix.MaxLevel(), ErrBadArgument)
	}
	nodes := onLevel(ix, level)
	c := square(fmt.Sprintf("layer %d: %d nodes", level, len(nodes)))
	if level > 0 { // on layer 0 the nodes are all the points
		x, y := coords(ix, all(ix))
		c.Add("points", chart.Background, x, y)
	}
	x1, y1, x2, y2 := edges(ix, level)
	c.AddSegments("links", x1, y1, x2, y2)
	x, y := coords(ix, nodes)
	role := chart.Marks
	if level == 0 {
		role = chart.Dots
	}
	c.Add("nodes", role, x, y)
	return c, nil
}

// Layers draws every layer of the graph side by side, the top layer first.
func Layers(ix *hnsw.Index) (*chart.Grid, error) {
	if err := check2D(ix); err != nil {
		return nil, err
	}
	var cs []chart.Chart
	for l := ix.MaxLevel(); l >= 0; l-- {
		c, err := LayerPicture(ix, l)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	cfg := ix.Config()
	return chart.NewGrid(fmt.Sprintf("HNSW over %d points, M = %d, efConstruction = %d: the layers, top first", ix.Len(), cfg.M, cfg.EfConstruction),
		min(len(cs), 4), cs...), nil
}

// WalkPicture draws the search of tr on one layer: the layer's links, the
// nodes it scored there (dots), the path of expanded nodes (on layers ≥ 1
// the greedy hops; on layer 0 the order the beam expanded them in), the
// query (a cross) and, on layer 0, the results (rings).
func WalkPicture(ix *hnsw.Index, tr *hnsw.Trace, q []float32, level int) (*chart.Scatter, error) {
	if err := check2D(ix); err != nil {
		return nil, err
	}
	if tr == nil || len(q) != 2 {
		return nil, fmt.Errorf("picture: WalkPicture needs a trace and a 2-D query: %w", ErrBadArgument)
	}
	lt, ok := tr.Layer(level)
	if !ok {
		return nil, fmt.Errorf("picture: the search did not pass layer %d: %w", level, ErrBadArgument)
	}
	title := fmt.Sprintf("layer %d: %s, %d scored", level, plural(len(lt.Expanded), "hop"), len(lt.Visited))
	c := square(title)
	c.NoLegend = level != 0
	x, y := coords(ix, all(ix))
	c.Add("points", chart.Background, x, y)
	x1, y1, x2, y2 := edges(ix, level)
	c.AddSegments("links", x1, y1, x2, y2)
	x, y = coords(ix, lt.Visited)
	c.Add("scored", chart.Dots, x, y)
	path := lt.Expanded
	if level == 0 && len(path) > 0 {
		path = path[:1] // the beam's expansions are not a path: draw its start only
	}
	x, y = coords(ix, path)
	c.Add("path (start on layer 0)", chart.Path, x, y)
	c.Add("query", chart.Star, []float64{float64(q[0])}, []float64{float64(q[1])})
	var expanded, results []engine.ID
	if level == 0 {
		expanded = lt.Expanded
		for _, r := range tr.Results {
			results = append(results, r.ID)
		}
	}
	x, y = coords(ix, expanded)
	c.Add("expanded", chart.Marks, x, y)
	x, y = coords(ix, results)
	c.Add("results", chart.Marks, x, y)
	return c, nil
}

// Walk draws a traced search layer by layer, top first (see WalkPicture).
func Walk(ix *hnsw.Index, tr *hnsw.Trace, q []float32) (*chart.Grid, error) {
	if tr == nil {
		return nil, fmt.Errorf("picture: Walk: nil trace: %w", ErrBadArgument)
	}
	var cs []chart.Chart
	for _, l := range tr.Layers {
		c, err := WalkPicture(ix, tr, q, l.Level)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return chart.NewGrid(fmt.Sprintf("one search from entry point %d: %d distances for %d results", tr.Entry, tr.Stats.DistComps, len(tr.Results)),
		min(len(cs), 4), cs...), nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// DescribeTrace prints a trace: per layer the hops and the nodes scored.
func DescribeTrace(tr *hnsw.Trace) string {
	if tr == nil {
		return "no trace"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "entry point %d (distance %.4f)\n", tr.Entry, tr.EntryDist)
	for _, l := range tr.Layers {
		if l.Level > 0 {
			fmt.Fprintf(&b, "layer %d: greedy path %v, %d nodes scored\n", l.Level, l.Expanded, len(l.Visited))
		} else if len(l.Expanded) > 0 {
			fmt.Fprintf(&b, "layer 0: beam search from %d, %d nodes expanded, %d scored\n", l.Expanded[0], len(l.Expanded), len(l.Visited))
		}
	}
	ids := make([]engine.ID, len(tr.Results))
	for i, r := range tr.Results {
		ids[i] = r.ID
	}
	fmt.Fprintf(&b, "results %v; %d distance computations in all", ids, tr.Stats.DistComps)
	return b.String()
}

// GraphFacts are the numbers M and efConstruction change.
type GraphFacts struct {
	M, EfConstruction int
	Selection         hnsw.Selection // the neighbour-selection rule
	Layers            int            // top layer + 1
	Nodes             []int          // nodes per layer, layer 0 first
	MeanDegree0       float64        // mean links per node on layer 0
	MaxDegree0        int            // the most links any node has on layer 0
	MeanEdgeLength0   float64        // mean length of a layer-0 link
}

// Facts measures a graph's layers and layer-0 degrees.
func Facts(ix *hnsw.Index) (GraphFacts, error) {
	if ix == nil || ix.Len() == 0 {
		return GraphFacts{}, fmt.Errorf("picture: Facts: empty or nil graph: %w", ErrBadArgument)
	}
	cfg := ix.Config()
	f := GraphFacts{M: cfg.M, EfConstruction: cfg.EfConstruction, Selection: cfg.Selection, Layers: ix.MaxLevel() + 1}
	for l := 0; l <= ix.MaxLevel(); l++ {
		f.Nodes = append(f.Nodes, len(onLevel(ix, l)))
	}
	var links int
	var length float64
	for i := 0; i < ix.Len(); i++ {
		nb := ix.Neighbors(0, engine.ID(i))
		links += len(nb)
		f.MaxDegree0 = max(f.MaxDegree0, len(nb))
		for _, b := range nb {
			length += math.Sqrt(float64(ix.PairDistance(engine.ID(i), b)))
		}
	}
	f.MeanDegree0 = float64(links) / float64(ix.Len())
	if links > 0 {
		f.MeanEdgeLength0 = length / float64(links)
	}
	return f, nil
}

// FactsTable puts the facts of several graphs side by side.
func FactsTable(fs []GraphFacts) *table.Table {
	t := table.New("what M, efConstruction and the selection rule change in the graph",
		table.Col("M", ""), table.Col("efConstruction", ""), table.Col("selection", ""), table.Col("layers", ""),
		table.Col("nodes per layer (0 first)", ""), table.Col("mean links on layer 0", ""),
		table.Col("max links on layer 0", ""), table.Col("mean link length", ""))
	for _, f := range fs {
		ns := make([]string, len(f.Nodes))
		for i, n := range f.Nodes {
			ns[i] = fmt.Sprint(n)
		}
		_ = t.AddValues(f.M, f.EfConstruction, f.Selection.String(), f.Layers, strings.Join(ns, " / "), f.MeanDegree0, f.MaxDegree0, f.MeanEdgeLength0)
	}
	return t
}

// Visit is what one traced search read and found (see VisitedPicture).
type Visit struct {
	Ef, K int
	// Found of the exact top K were returned; Missed are the others.
	Found  int
	Missed []engine.ID
	// Layer-0 nodes scored and expanded, and the whole search's distance
	// computations (the upper layers' included).
	Scored0, Expanded0, Distances int
	Trace                         *hnsw.Trace
}

// String prints the visit on one line.
func (v Visit) String() string {
	return fmt.Sprintf("ef = %2d: %d of the true top %d found; layer 0: %3d scored, %3d expanded (%d distances in all)",
		v.Ef, v.Found, v.K, v.Scored0, v.Expanded0, v.Distances)
}

// VisitedPicture runs a traced search with ef and draws layer 0: the nodes
// scored and expanded, the results, the true top k the search missed
// (an exact scan finds them) and the query. Its title gives how many of
// the true top k were found and layer 0's counts.
func VisitedPicture(ix *hnsw.Index, q []float32, k, ef int) (*chart.Scatter, Visit, error) {
	if err := check2D(ix); err != nil {
		return nil, Visit{}, err
	}
	tr, err := ix.NewSearcher().SearchTrace(q, engine.Request{K: k, Breadth: ef})
	if err != nil {
		return nil, Visit{}, fmt.Errorf("picture: %w", err)
	}
	c, err := WalkPicture(ix, tr, q, 0)
	if err != nil {
		return nil, Visit{}, err
	}
	v := Visit{Ef: ef, K: k, Distances: tr.Stats.DistComps, Trace: tr}
	if lt, ok := tr.Layer(0); ok {
		v.Scored0, v.Expanded0 = len(lt.Visited), len(lt.Expanded)
	}
	got := map[engine.ID]bool{}
	for _, r := range tr.Results {
		got[r.ID] = true
	}
	for _, id := range exactTop(ix, q, k) {
		if got[id] {
			v.Found++
		} else {
			v.Missed = append(v.Missed, id)
		}
	}
	x, y := coords(ix, v.Missed)
	c.Add("missed (true top k)", chart.Marks, x, y)
	// Short enough for a panel of a three-wide grid; pictures side by
	// side share one legend (VisitedLegend) instead of covering the
	// query with one each.
	c.Title = fmt.Sprintf("ef = %d: %d of %d found, %d scored", ef, v.Found, k, v.Scored0)
	c.NoLegend = true
	return c, v, nil
}

// VisitedLegend is the legend of VisitedPicture's panels, one line.
func VisitedLegend() string {
	return "grey: the points and layer-0 links; blue dots: nodes layer 0 scored; thick line: the layer-0 start; " +
		"cross: the query; pink rings: nodes expanded; orange rings: the results; light-blue rings: the true top k the search missed"
}

// exactTop returns the k nearest nodes to q by an exact scan (engine/flat,
// the oracle behind every recall figure), nil if the scan fails.
func exactTop(ix *hnsw.Index, q []float32, k int) []engine.ID {
	ex, err := flat.New(ix.Vectors(), flat.Config{Metric: engine.L2})
	if err != nil {
		return nil
	}
	res, _, err := ex.Search(q, k, nil)
	if err != nil {
		return nil
	}
	out := make([]engine.ID, len(res))
	for i, r := range res {
		out[i] = r.ID
	}
	return out
}

// TradeOff draws recall against median latency for a sweep of one store's
// query breadth (e06.Measure's measurements), each point
// labelled with its setting.
func TradeOff(title string, ms []experiment.Measurement) *chart.Line {
	x := make([]float64, len(ms))
	y := make([]float64, len(ms))
	labels := make([]string, len(ms))
	k := 0
	for i, m := range ms {
		x[i], y[i], labels[i] = m.P50ms(), m.Recall, "ef="+m.Label
		k = m.K
	}
	c := chart.NewLine(title, "median latency per query (ms)", fmt.Sprintf("recall@%d", k))
	c.AddLabeled("lab", x, y, labels)
	return c
}
