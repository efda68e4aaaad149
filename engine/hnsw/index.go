package hnsw

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/beam"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/vec"
)

// lockStripes is the number of striped node locks used while AddBatch runs
// on several goroutines. A goroutine never holds two of them at once, so
// two nodes sharing a stripe only ever wait, never deadlock.
const lockStripes = 1 << 12

// Index is an HNSW graph over float32 vectors. See the package doc for the
// concurrency contract.
type Index struct {
	cfg     Config // validated, with defaults
	dim     int
	metric  engine.Metric
	m, m0   int // caps of upper-layer and layer-0 lists
	stride0 int // m0+1: one count word then m0 slots per node on layer 0
	strideU int // m+1 per node per upper layer
	codes   engine.CodeStore

	// mu is held for reading by searches and for writing by Add/AddBatch/
	// AttachCodes: everything below is guarded by it.
	mu       sync.RWMutex
	data     []float32 // the vector slab, row i at data[i*dim:(i+1)*dim]
	keys     []uint64  // id → caller key
	ids      map[uint64]engine.ID
	levels   []uint8     // id → top layer of the node
	links0   []engine.ID // layer 0: id*stride0 holds the count, then m0 slots
	upperOff []uint32    // id → offset in upper of the node's layer-1 list (if level > 0)
	upper    []engine.ID // layers ≥ 1: for node id and layer l ≥ 1 the list at upperOff[id]+(l-1)*strideU
	rng      *rand.Rand  // level generator, drawing from pcg
	pcg      *rand.PCG
	minstd   minstd // the level generator under MinstdLevels

	// epMu guards entry and maxLevel while AddBatch inserts concurrently;
	// outside AddBatch they are guarded by mu.
	epMu     sync.Mutex
	entry    engine.ID
	maxLevel int // -1 while empty

	// concurrent is set while AddBatch runs on several goroutines: link
	// lists are then read and written under the striped locks.
	concurrent bool
	locks      [lockStripes]sync.Mutex // stripe id%lockStripes guards node id's link lists

	searchers sync.Pool // of *Searcher, for Index.Search
}

// New returns an empty index. cfg is copied, its zero fields are set to the
// defaults and the result is validated (every problem reported at once).
func New(cfg Config) (*Index, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ix := &Index{
		cfg: cfg, dim: cfg.Dim, metric: cfg.Metric, m: cfg.M, m0: cfg.M0,
		stride0: cfg.M0 + 1, strideU: cfg.M + 1, codes: cfg.Codes,
		ids: map[uint64]engine.ID{}, maxLevel: -1,
	}
	ix.pcg = rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	ix.rng = rand.New(ix.pcg)
	ix.minstd.seed(cfg.Seed)
	ix.searchers.New = func() any { return ix.NewSearcher() }
	return ix, nil
}

// Reserve makes room for n vectors in all: the slab and the per-node
// arrays are allocated once for n, instead of grown by append as batches
// arrive, which near the end holds the old slab and a new one a quarter
// larger at once (100,000 × 768: 250 MB and 310 MB). A hint: more still
// fit, and fewer leave the rest unused.
func (ix *Index) Reserve(n int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if more := n - len(ix.keys); more > 0 {
		// make, not slices.Grow: append's growth clears the whole new
		// capacity, touching every page of the slab at once; a fresh
		// allocation from make is left to the operating system's zero
		// pages, which become resident as rows are written.
		data := make([]float32, len(ix.data), len(ix.data)+more*ix.dim)
		copy(data, ix.data)
		ix.data = data
		ix.keys = slices.Grow(ix.keys, more)
		ix.levels = slices.Grow(ix.levels, more)
		ix.links0 = slices.Grow(ix.links0, more*ix.stride0)
		ix.upperOff = slices.Grow(ix.upperOff, more)
	}
}

// Config returns the effective configuration (defaults filled).
func (ix *Index) Config() Config { return ix.cfg }

// Dim returns the vector dimension.
func (ix *Index) Dim() int { return ix.dim }

// Metric returns the metric.
func (ix *Index) Metric() engine.Metric { return ix.metric }

// Len returns the number of vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.keys)
}

// Key returns the caller key of id (id must be < Len).
func (ix *Index) Key(id engine.ID) uint64 { return ix.keys[id] }

// Lookup returns the id of a caller key.
func (ix *Index) Lookup(key uint64) (engine.ID, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	id, ok := ix.ids[key]
	return id, ok
}

// Vectors returns the vector slab (normalised under Cosine) as a matrix
// aliasing the index's storage: read-only, valid until the next Add.
func (ix *Index) Vectors() *vec.Matrix {
	n := len(ix.keys)
	return &vec.Matrix{N: n, Dim: ix.dim, Stride: ix.dim, Data: ix.data[: n*ix.dim : n*ix.dim]}
}

// Vector returns the stored vector of id (aliasing the slab; read-only).
func (ix *Index) Vector(id engine.ID) []float32 {
	o := int(id) * ix.dim
	return ix.data[o : o+ix.dim : o+ix.dim]
}

// Codes returns the attached code store, or nil.
func (ix *Index) Codes() engine.CodeStore { return ix.codes }

// BytesPerVector returns the resident bytes per vector of the float32 slab
// and the graph (link lists at their fixed capacity, levels, upper-layer
// offsets); caller keys and an attached code store are not counted.
func (ix *Index) BytesPerVector() float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	if n == 0 {
		return 0
	}
	b := 4*len(ix.data) + 4*len(ix.links0) + 4*len(ix.upper) + 4*len(ix.upperOff) + len(ix.levels)
	return float64(b) / float64(n)
}

// GraphBytesPerVector returns the graph's share of BytesPerVector.
func (ix *Index) GraphBytesPerVector() float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	if n == 0 {
		return 0
	}
	b := 4*len(ix.links0) + 4*len(ix.upper) + 4*len(ix.upperOff) + len(ix.levels)
	return float64(b) / float64(n)
}

// MaxLevel returns the top layer of the graph (-1 when empty).
func (ix *Index) MaxLevel() int { return ix.maxLevel }

// EntryPoint returns the node searches start from (0 when empty).
func (ix *Index) EntryPoint() engine.ID { return ix.entry }

// Level returns the top layer of node id.
func (ix *Index) Level(id engine.ID) int { return int(ix.levels[id]) }

// M returns the cap of upper-layer lists; M0 the cap on layer 0.
func (ix *Index) M() int { return ix.m }

// M0 returns the cap of layer-0 lists.
func (ix *Index) M0() int { return ix.m0 }

// Neighbors returns node id's links on level (a view of the graph:
// read-only, valid until the next Add). level must be ≤ Level(id).
func (ix *Index) Neighbors(level int, id engine.ID) []engine.ID {
	l := ix.list(level, id)
	return l[1 : 1+l[0]]
}

// list returns node id's whole list on level: the count then the slots.
func (ix *Index) list(level int, id engine.ID) []engine.ID {
	if level == 0 {
		o := int(id) * ix.stride0
		return ix.links0[o : o+ix.stride0 : o+ix.stride0]
	}
	o := int(ix.upperOff[id]) + (level-1)*ix.strideU
	return ix.upper[o : o+ix.strideU : o+ix.strideU]
}

// Degree returns the number of links of id on level.
func (ix *Index) Degree(level int, id engine.ID) int { return int(ix.list(level, id)[0]) }

// PrepareQuery checks q (dimension, finite, non-zero under Cosine) and
// copies it into dst (grown if needed), normalised under Cosine: the form
// QueryDistance and GreedyDescend expect.
func (ix *Index) PrepareQuery(dst, q []float32) ([]float32, error) {
	if err := engine.CheckVector(q, ix.dim, ix.metric); err != nil {
		return dst, fmt.Errorf("hnsw: query: %w", err)
	}
	dst = append(dst[:0], q...)
	if ix.metric == engine.Cosine {
		normalize(dst)
	}
	return dst, nil
}

// normalize scales v (checked: finite, non-zero) to unit length, computing
// the norm in float64 so that tiny or huge vectors do not under/overflow.
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// QueryDistance returns the float32 distance between a prepared query and
// stored node id (smaller is closer).
func (ix *Index) QueryDistance(q []float32, id engine.ID) float32 {
	o := int(id) * ix.dim
	row := ix.data[o : o+ix.dim : o+ix.dim]
	switch ix.metric {
	case engine.L2:
		return f32.L2Sq(q, row)
	case engine.Dot:
		return -f32.Dot(q, row)
	default:
		return 1 - f32.Dot(q, row)
	}
}

// PairDistance returns the distance between two stored nodes: with codes
// attached, the codes' approximate distance (the one the graph is built
// with); otherwise the float32 distance.
func (ix *Index) PairDistance(a, b engine.ID) float32 {
	if ix.codes != nil {
		return ix.codes.Pair(a, b)
	}
	return ix.QueryDistance(ix.Vector(a), b)
}

// FloatScorer scores nodes against a prepared float32 query. It implements
// engine.QueryScorer without allocation when held by value.
type FloatScorer struct {
	ix *Index
	q  []float32
}

// NewFloatScorer binds a prepared query (see PrepareQuery).
func (ix *Index) NewFloatScorer(q []float32) FloatScorer { return FloatScorer{ix: ix, q: q} }

// Distance implements engine.QueryScorer.
func (s *FloatScorer) Distance(id engine.ID) float32 { return s.ix.QueryDistance(s.q, id) }

// NewQueryScorer binds a prepared query: the code store's scorer when codes
// are attached, else a float32 scorer.
func (ix *Index) NewQueryScorer(q []float32) (engine.QueryScorer, error) {
	if ix.codes != nil {
		return ix.codes.NewQueryScorer(q)
	}
	return &FloatScorer{ix: ix, q: q}, nil
}

// errList collects validation errors, keeping the first few.
type errList struct {
	errs []error
	more int
}

func (l *errList) add(err error) {
	if len(l.errs) < 8 {
		l.errs = append(l.errs, err)
	} else {
		l.more++
	}
}

func (l *errList) Err() error {
	if len(l.errs) == 0 {
		return nil
	}
	if l.more > 0 {
		l.errs = append(l.errs, fmt.Errorf("… and %d more bad rows", l.more))
	}
	return errors.Join(l.errs...)
}

// space is the float32 slab as the shared beam loop scores it: rows
// prefetched (Space.Prefetch) and scored four per kernel call so the four
// rows' cache misses overlap (Space.Score).
func (ix *Index) space() beam.Space {
	return beam.Space{Data: ix.data, Dim: ix.dim, Stride: ix.dim, Metric: ix.metric, Quad: true}
}

// UseCodes makes the index traverse with cs, which already holds the code
// of every node (codes read back from a file): nothing is re-encoded.
func (ix *Index) UseCodes(cs engine.CodeStore) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if cs == nil || cs.Len() != len(ix.keys) {
		n := -1
		if cs != nil {
			n = cs.Len()
		}
		return fmt.Errorf("hnsw: UseCodes with %d codes for %d nodes: %w", n, len(ix.keys), engine.ErrInvalidArgument)
	}
	ix.codes, ix.cfg.Codes = cs, cs
	return nil
}

// AttachCodes encodes every stored vector into cs and makes the index
// traverse with it from now on (a loaded index, or a float index switched
// to quantized traversal: the graph is not rebuilt). nil detaches.
func (ix *Index) AttachCodes(cs engine.CodeStore) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if cs == nil {
		ix.codes, ix.cfg.Codes = nil, nil
		return nil
	}
	n := len(ix.keys)
	cs.Reserve(n)
	for i := 0; i < n; i++ {
		if err := cs.Set(engine.ID(i), ix.Vector(engine.ID(i))); err != nil {
			return fmt.Errorf("hnsw: encoding id %d: %w", i, err)
		}
	}
	ix.codes, ix.cfg.Codes = cs, cs
	return nil
}
