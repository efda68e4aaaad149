package profile

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// BuildOptions tune how [Profile.Build] loads a data set.
type BuildOptions struct {
	// Batch is the number of documents per Ingest call (default 1000, the
	// article's batch).
	Batch int
	// Progress, when set, is called after each batch.
	Progress func(done, total int, what string)
	// Train is the sample an Elasticsearch quantizer is trained on; nil
	// means the whole data set being built, as a merged segment would be.
	Train *vec.Matrix
}

// indexerChunk is how many queued documents a background indexer moves into
// the graph at a time, so searches interleave with indexing.
const indexerChunk = 64

// Store is a built (or building) store of one profile: documents are
// ingested in batches under sequential keys 0, 1, 2, … and searched with
// the profile's query plan. Views made by [Store.WithEf] and friends share
// the documents and indexes and differ only in query settings.
//
// # Visibility
//
// Ingest returns when the emulated store would acknowledge the batch;
// what a search sees at that moment is each store's own rule:
//
//   - pgvector inserts each row into the heap and the HNSW index in the
//     inserting transaction: visible when Ingest returns.
//   - Redis stores the documents at once but indexes their vectors from a
//     queue on a background thread; a vector search sees only the indexed
//     ones (FT.INFO percent_indexed < 1 meanwhile).
//   - Qdrant appends the points to plain segments, searched exactly, at
//     once; the optimizer builds a segment's HNSW graph in the background
//     when the segment passes indexing_threshold (collection status
//     yellow until it is done).
//   - Elasticsearch adds each document to the segment's graph on the
//     indexing thread, but a search sees documents only after a refresh
//     (every refresh_interval, or an explicit Refresh).
//
// [Store.WaitSearchable] waits for each store's completion signal (commit,
// percent_indexed = 1, green status, _refresh).
//
// # Concurrency
//
// Search is safe for concurrent use with itself, with Ingest and with the
// background indexers. Ingest calls must not overlap one another.
type Store struct {
	c *core
	// Query-time overrides of this view (0: the profile's).
	ef         int
	oversample float64
}

type core struct {
	p   Profile
	dim int

	ingestMu sync.Mutex // serialises Ingest
	n        atomic.Int64
	visible  atomic.Int64 // Elasticsearch: documents published by the last refresh
	segs     []*segment
	quant    quant.Quantizer // Elasticsearch quantized types; nil otherwise
	codes    []*quant.Store  // per segment, with quant

	// Background work (Redis indexer, Qdrant optimizer, ES refresh).
	wake   chan struct{}
	stop   chan struct{}
	done   sync.WaitGroup
	closed atomic.Bool
	bgMu   sync.Mutex
	bgErr  error      // first background failure, guarded by bgMu
	idle   *sync.Cond // broadcast (with bgMu) after every background step
}

// segment is one graph plus a tail of documents not in it yet.
type segment struct {
	mu         sync.RWMutex // guards everything below
	graph      *hnsw.Index  // nil until the first document is indexed
	keys       []uint64     // graph id → document key
	tailKeys   []uint64     // documents waiting for the graph, in order
	tail       []float32    // their vectors (normalised under Cosine), dim apart
	tailStart  int          // documents before it in tailKeys are indexed
	floatCodes *incCodes    // float-built quantized graph: codes attached at refresh, nil otherwise
	codesStale bool         // float-built: documents added since the last attach
	searchers  sync.Pool    // *hnsw.Searcher of graph
}

func (s *segment) tailLen() int { return len(s.tailKeys) - s.tailStart }
func (s *segment) size() int    { return len(s.keys) + s.tailLen() }

// Open returns an empty store of the profile for vectors of dim dimensions.
func (p Profile) Open(dim int) (*Store, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if dim < 1 {
		return nil, fmt.Errorf("profile: %s: dimension must be positive, got %d: %w", p.Kind, dim, engine.ErrInvalidArgument)
	}
	c := &core{p: p, dim: dim, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	c.idle = sync.NewCond(&c.bgMu)
	c.segs = make([]*segment, p.Segments)
	for i := range c.segs {
		c.segs[i] = &segment{}
	}
	switch p.Kind {
	case Redis, Qdrant:
		c.done.Add(1)
		go c.background()
	case Elasticsearch:
		if p.RefreshInterval > 0 {
			c.done.Add(1)
			go c.refresher()
		}
	}
	return &Store{c: c}, nil
}

// Build opens a store and ingests base in batches (opt.Batch), then waits
// until everything is searchable: the state the article measured queries
// in.
func (p Profile) Build(base *vec.Matrix, opt BuildOptions) (*Store, error) {
	if base == nil || base.N == 0 {
		return nil, fmt.Errorf("profile: %s: nothing to build from: %w", p.Kind, engine.ErrEmpty)
	}
	s, err := p.Open(base.Dim)
	if err != nil {
		return nil, err
	}
	if s.c.p.Kind == Elasticsearch {
		train := opt.Train
		if train == nil {
			train = base
		}
		if err := s.Train(train); err != nil {
			s.Close()
			return nil, err
		}
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 1000
	}
	what := "ingest " + s.c.p.Kind.String()
	for lo := 0; lo < base.N; lo += batch {
		hi := min(lo+batch, base.N)
		m := &vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}
		if err := s.Ingest(m); err != nil {
			s.Close()
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(hi, base.N, what)
		}
	}
	if err := s.WaitSearchable(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Train fits an Elasticsearch store's quantizer on sample before any
// document is ingested (Build trains on the whole data set, as a merged
// segment would; Ingest trains on the first batch otherwise). It is a
// no-op for the other stores and for the plain hnsw type.
func (s *Store) Train(sample *vec.Matrix) error {
	if s.c.p.Kind != Elasticsearch {
		return nil
	}
	if sample == nil || sample.N == 0 {
		return fmt.Errorf("profile: %s: empty training sample: %w", s.c.p.Kind, engine.ErrEmpty)
	}
	s.c.ingestMu.Lock()
	defer s.c.ingestMu.Unlock()
	if s.c.n.Load() > 0 {
		return fmt.Errorf("profile: %s: Train after documents were ingested: %w", s.c.p.Kind, engine.ErrInvalidArgument)
	}
	return s.c.train(sample)
}

// train fits the Elasticsearch quantizer of the effective index type.
func (c *core) train(sample *vec.Matrix) error {
	if c.quant != nil {
		return nil
	}
	var q quant.Quantizer
	var err error
	switch c.p.EffectiveType(c.dim) {
	case BBQHNSW:
		// 1-bit documents, 4-bit queries (Lucene102 BBQ).
		q, err = quant.TrainOSQ(sample, c.p.Metric, quant.OSQConfig{Bits: 1, QueryBits: 4, Seed: c.p.Seed})
	case Int8HNSW:
		q, err = quant.TrainScalar(sample, c.p.Metric, quant.ScalarConfig{Bits: 7, Seed: c.p.Seed})
	case Int4HNSW:
		q, err = quant.TrainScalar(sample, c.p.Metric, quant.ScalarConfig{Bits: 4, Seed: c.p.Seed})
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("profile %s: training %s quantizer: %w", c.p.Kind, c.p.EffectiveType(c.dim), err)
	}
	c.quant = q
	return nil
}

// Profile returns the profile of this view, with its overrides applied.
func (s *Store) Profile() Profile {
	p := s.c.p
	if s.ef > 0 {
		p.EfSearch = s.ef
	}
	if s.oversample != 0 {
		p.Oversample = s.oversample
	}
	return p
}

// Dim returns the vector dimension.
func (s *Store) Dim() int { return s.c.dim }

// WithEf returns a view whose query breadth is ef under the store's own
// name: pgvector hnsw.ef_search, Redis EF_RUNTIME, Qdrant hnsw_ef,
// Elasticsearch num_candidates. ef ≤ 0 restores the profile's default.
func (s *Store) WithEf(ef int) *Store {
	v := *s
	v.ef = max(ef, 0)
	return &v
}

// WithOversample returns a view with Elasticsearch's rescore oversample
// set (x < 0 disables rescoring, 0 restores the default).
func (s *Store) WithOversample(x float64) *Store {
	v := *s
	v.oversample = x
	return &v
}

// Len returns the number of documents ingested (acknowledged).
func (s *Store) Len() int { return int(s.c.n.Load()) }

// Indexed returns the number of documents in a graph.
func (s *Store) Indexed() int {
	n := 0
	for _, g := range s.c.segs {
		g.mu.RLock()
		n += len(g.keys)
		g.mu.RUnlock()
	}
	return n
}

// Visible returns the number of documents a search sees now.
func (s *Store) Visible() int {
	switch s.c.p.Kind {
	case Redis:
		return s.Indexed()
	case Elasticsearch:
		return int(s.c.visible.Load())
	}
	return s.Len()
}

// SegmentInfo describes one segment of a store.
type SegmentInfo struct {
	Docs    int // documents in the segment
	Indexed int // of which in its HNSW graph
}

// Segments describes the store's segments.
func (s *Store) Segments() []SegmentInfo {
	out := make([]SegmentInfo, len(s.c.segs))
	for i, g := range s.c.segs {
		g.mu.RLock()
		out[i] = SegmentInfo{Docs: g.size(), Indexed: len(g.keys)}
		g.mu.RUnlock()
	}
	return out
}

// BytesPerVector returns the resident bytes per document of the float32
// vectors, the graph links and, for quantized types, the codes.
func (s *Store) BytesPerVector() float64 {
	var b float64
	n := 0
	for _, g := range s.c.segs {
		g.mu.RLock()
		if g.graph != nil {
			k := len(g.keys)
			b += g.graph.BytesPerVector() * float64(k)
			if cs := g.graph.Codes(); cs != nil {
				b += cs.BytesPerVector() * float64(k)
			}
			n += k
		}
		t := g.tailLen()
		b += float64(4*s.c.dim) * float64(t)
		n += t
		g.mu.RUnlock()
	}
	if n == 0 {
		return 0
	}
	return b / float64(n)
}

// Footprint is what a store's vector structures hold in memory, in bytes
// summed over its segments (see [Store.Footprint]).
type Footprint struct {
	Docs    int   // documents counted: in a graph or in a plain tail
	Vectors int64 // float32 vectors: the graphs' slabs and the plain tails (normalised copies)
	Links   int64 // graph link lists at their fixed capacity, node levels and upper-layer offsets
	Codes   int64 // quantized codes attached to the graphs (Elasticsearch's quantized types)
}

// Footprint measures the store's vector structures by component: the
// float32 slabs (hnsw.Index.Vectors and the plain tails), the graph's
// share of hnsw.Index.BytesPerVector (GraphBytesPerVector) and the
// attached codes (CodeStore.BytesPerVector per indexed document).
// Vectors+Links+Codes equals BytesPerVector·Docs up to rounding.
func (s *Store) Footprint() Footprint {
	var f Footprint
	for _, g := range s.c.segs {
		g.mu.RLock()
		if g.graph != nil {
			k := len(g.keys)
			f.Vectors += int64(4 * len(g.graph.Vectors().Data))
			f.Links += int64(math.Round(g.graph.GraphBytesPerVector() * float64(k)))
			if cs := g.graph.Codes(); cs != nil {
				f.Codes += int64(math.Round(cs.BytesPerVector() * float64(k)))
			}
			f.Docs += k
		}
		t := g.tailLen()
		f.Vectors += int64(4*s.c.dim) * int64(t)
		f.Docs += t
		g.mu.RUnlock()
	}
	return f
}

// Ingest adds the rows of m as the next documents (keys Len(), Len()+1,
// …) and returns when the store would acknowledge the batch. The batch is
// checked first: a bad row rejects the whole batch and nothing of it is
// stored.
func (s *Store) Ingest(m *vec.Matrix) error {
	c := s.c
	if c.closed.Load() {
		return fmt.Errorf("profile %s: ingest: %w", c.p.Kind, engine.ErrClosed)
	}
	if m == nil || m.N == 0 {
		return nil
	}
	if m.Dim != c.dim {
		return fmt.Errorf("profile: %s: batch has %d dimensions, store has %d: %w", c.p.Kind, m.Dim, c.dim, engine.ErrDimension)
	}
	for i := 0; i < m.N; i++ {
		if err := engine.CheckVector(m.Row(i), c.dim, c.p.Metric); err != nil {
			return fmt.Errorf("profile %s: batch row %d: %w", c.p.Kind, i, err)
		}
	}
	if err := c.bgError(); err != nil {
		return err
	}
	c.ingestMu.Lock()
	defer c.ingestMu.Unlock()
	if c.p.Kind == Elasticsearch && c.quant == nil {
		// Opened without Build: train on the first batch.
		if err := c.train(m); err != nil {
			return err
		}
	}
	first := c.n.Load()
	S := int64(len(c.segs))
	// Split the batch by segment (key mod segments), keeping key order.
	per := make([][]int, len(c.segs))
	for i := 0; i < m.N; i++ {
		key := first + int64(i)
		per[key%S] = append(per[key%S], i)
	}
	for si, rows := range per {
		if len(rows) == 0 {
			continue
		}
		g := c.segs[si]
		keys := make([]uint64, len(rows))
		for j, r := range rows {
			keys[j] = uint64(first) + uint64(r)
		}
		switch c.p.Kind {
		case PGVector, Elasticsearch:
			// Synchronous insertion into the graph.
			sub := vec.NewMatrix(len(rows), c.dim)
			for j, r := range rows {
				copy(sub.Row(j), m.Row(r))
			}
			if err := c.addToGraph(si, g, keys, sub, 0); err != nil {
				return err
			}
		default:
			// Redis queue / Qdrant plain segment: append to the tail.
			g.mu.Lock()
			for j, r := range rows {
				g.tailKeys = append(g.tailKeys, keys[j])
				o := len(g.tail)
				g.tail = append(g.tail, m.Row(r)...)
				if c.p.Metric == engine.Cosine {
					normalize(g.tail[o:])
				}
			}
			g.mu.Unlock()
		}
	}
	c.n.Add(int64(m.N))
	if c.p.Kind == Redis || c.p.Kind == Qdrant {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// addToGraph inserts documents into segment g's graph, creating it first;
// fromTail of them are taken off the front of the tail in the same step, so
// a search never sees a document twice or not at all.
func (c *core) addToGraph(si int, g *segment, keys []uint64, m *vec.Matrix, fromTail int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.graph == nil {
		cfg := hnsw.Config{
			Dim: c.dim, Metric: c.p.Metric, M: c.p.M, M0: c.p.M0,
			EfConstruction: c.p.EfConstruction, Seed: c.p.Seed + uint64(si),
			Selection: hnsw.Heuristic, KeepPruned: c.p.KeepPruned,
			NewNodeDegreeL0: c.p.Degree0, Workers: c.p.Workers,
		}
		if c.quant != nil {
			cs := quant.NewStore(c.quant)
			c.codes = append(c.codes, cs)
			if c.p.EffectiveGraph() == FlushGraph {
				g.floatCodes = &incCodes{Store: cs}
			} else {
				cfg.Codes = cs
			}
		}
		ix, err := hnsw.New(cfg)
		if err != nil {
			return fmt.Errorf("profile %s: %w", c.p.Kind, err)
		}
		g.graph = ix
		g.searchers.New = func() any { return ix.NewSearcher() }
	}
	if g.floatCodes != nil && g.graph.Codes() != nil {
		if err := g.graph.AttachCodes(nil); err != nil { // build with float32 scores
			return fmt.Errorf("profile %s: %w", c.p.Kind, err)
		}
	}
	if err := g.graph.AddBatch(keys, m); err != nil {
		return fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	g.codesStale = g.floatCodes != nil
	g.keys = append(g.keys, keys...)
	if fromTail > 0 {
		g.tailStart += fromTail
		if g.tailStart == len(g.tailKeys) {
			g.tailKeys, g.tail, g.tailStart = g.tailKeys[:0], g.tail[:0], 0
		}
	}
	return nil
}

// background is the Redis indexing thread and the Qdrant optimizer.
func (c *core) background() {
	defer c.done.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		for {
			moved, err := c.indexStep()
			c.bgMu.Lock()
			if err != nil && c.bgErr == nil {
				c.bgErr = err
			}
			c.idle.Broadcast()
			c.bgMu.Unlock()
			if err != nil || !moved {
				break
			}
			select {
			case <-c.stop:
				return
			default:
			}
		}
	}
}

// due reports whether segment g has documents the background worker is to
// move into its graph: any queued document for Redis; for Qdrant, any
// plain point of a segment whose vectors pass the indexing threshold.
func (c *core) due(g *segment) bool {
	g.mu.RLock()
	t, size := g.tailLen(), g.size()
	g.mu.RUnlock()
	if t == 0 {
		return false
	}
	if c.p.Kind == Qdrant {
		th := int64(c.p.IndexingThresholdKB) * 1024
		return th > 0 && int64(size)*int64(4*c.dim) >= th
	}
	return true
}

// busy reports whether any segment is due for indexing.
func (c *core) busy() bool {
	for _, g := range c.segs {
		if c.due(g) {
			return true
		}
	}
	return false
}

// indexStep moves one chunk of one segment's tail into its graph, if the
// store's rule says the segment is to be indexed; it reports whether it
// moved anything.
func (c *core) indexStep() (bool, error) {
	for si, g := range c.segs {
		// Qdrant indexes a segment only once its vectors pass the
		// indexing threshold (and never when it is 0).
		if !c.due(g) {
			continue
		}
		// Chunks keep the segment lock short, so ingest and searches go on
		// while the graph grows (Qdrant keeps serving the old segment while
		// its optimizer builds the new one).
		g.mu.RLock()
		n := min(indexerChunk, g.tailLen())
		keys := append([]uint64(nil), g.tailKeys[g.tailStart:g.tailStart+n]...)
		m := &vec.Matrix{N: n, Dim: c.dim, Stride: c.dim, Data: append([]float32(nil), g.tail[g.tailStart*c.dim:(g.tailStart+n)*c.dim]...)}
		g.mu.RUnlock()
		if err := c.addToGraph(si, g, keys, m, n); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// refresher publishes Elasticsearch documents every refresh interval.
func (c *core) refresher() {
	defer c.done.Done()
	t := time.NewTicker(c.p.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			if err := c.refresh(); err != nil {
				c.bgMu.Lock()
				if c.bgErr == nil {
					c.bgErr = err
				}
				c.bgMu.Unlock()
			}
		}
	}
}

func (c *core) refresh() error {
	c.ingestMu.Lock()
	defer c.ingestMu.Unlock()
	for _, g := range c.segs {
		g.mu.Lock()
		var err error
		if g.codesStale {
			// Encode the new documents and search with codes again.
			err = g.graph.AttachCodes(g.floatCodes)
			g.codesStale = err != nil
		}
		g.mu.Unlock()
		if err != nil {
			return fmt.Errorf("profile %s: refresh: %w", c.p.Kind, err)
		}
	}
	c.visible.Store(c.n.Load())
	return nil
}

// incCodes is a code store that encodes each id once: AttachCodes
// re-encodes every vector, and a float-built store attaches at every
// refresh.
type incCodes struct {
	*quant.Store
	done []bool // ids already encoded
}

// Reserve makes room for ids 0…n-1.
func (s *incCodes) Reserve(n int) {
	s.Store.Reserve(n)
	if n > len(s.done) {
		s.done = append(s.done, make([]bool, n-len(s.done))...)
	}
}

// Set encodes id unless it already has its code (vectors never change).
func (s *incCodes) Set(id engine.ID, v []float32) error {
	if int(id) < len(s.done) && s.done[id] {
		return nil
	}
	if err := s.Store.Set(id, v); err != nil {
		return err
	}
	if int(id) < len(s.done) {
		s.done[id] = true
	}
	return nil
}

// Refresh publishes every acknowledged document (Elasticsearch _refresh);
// for the other stores it is a no-op.
func (s *Store) Refresh() error {
	if s.c.p.Kind == Elasticsearch {
		return s.c.refresh()
	}
	return nil
}

func (c *core) bgError() error {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	return c.bgErr
}

// WaitSearchable blocks until every acknowledged document is searchable
// the way the store reports completion: pgvector (already committed),
// Redis percent_indexed = 1, Qdrant status green (the optimizer idle),
// Elasticsearch after an explicit _refresh.
func (s *Store) WaitSearchable() error {
	c := s.c
	switch c.p.Kind {
	case Elasticsearch:
		if err := c.refresh(); err != nil {
			return err
		}
	case Redis, Qdrant:
		c.bgMu.Lock()
		for c.bgErr == nil && !c.closed.Load() && c.busy() {
			c.idle.Wait()
		}
		c.bgMu.Unlock()
	}
	if c.closed.Load() {
		return fmt.Errorf("profile %s: %w", c.p.Kind, engine.ErrClosed)
	}
	return c.bgError()
}

// Close stops the background work. The store must not be used afterwards.
func (s *Store) Close() error {
	c := s.c
	if c.closed.Swap(true) {
		return nil
	}
	close(c.stop)
	c.done.Wait()
	c.bgMu.Lock()
	c.idle.Broadcast()
	c.bgMu.Unlock()
	return nil
}

// QueryStats are the counters of one store search.
type QueryStats struct {
	DistComps int  // distance computations (graph, exact scans and rescoring)
	Rescored  int  // candidates rescored with float32 vectors
	Exact     bool // some segment was searched exactly (Qdrant plain segment)
}

// Search returns up to k documents nearest to q under the view's query
// plan (see [Profile.Plan]); Result.ID is the document key (its ingest
// position). Fewer than k results is the store's behaviour (pgvector with
// k > ef_search), not an error.
func (s *Store) Search(q []float32, k int) ([]engine.Result, error) {
	res, _, err := s.SearchStats(q, k)
	return res, err
}

// SearchStats is Search with its counters.
func (s *Store) SearchStats(q []float32, k int) ([]engine.Result, QueryStats, error) {
	c := s.c
	var st QueryStats
	if c.closed.Load() {
		return nil, st, fmt.Errorf("profile %s: search: %w", c.p.Kind, engine.ErrClosed)
	}
	if err := engine.CheckK(k); err != nil {
		return nil, st, fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	if err := engine.CheckVector(q, c.dim, c.p.Metric); err != nil {
		return nil, st, fmt.Errorf("profile %s: query: %w", c.p.Kind, err)
	}
	pl := s.Profile().Plan(k, c.dim)
	qn := append([]float32(nil), q...)
	if c.p.Metric == engine.Cosine {
		normalize(qn)
	}
	var visible engine.Filter
	if c.p.Kind == Elasticsearch {
		if v := uint64(c.visible.Load()); v < uint64(c.n.Load()) {
			lim := v
			visible = engine.FilterFunc(func(id engine.ID) bool { return uint64(id) < lim })
		}
	}
	fullScan := 0
	if c.p.Kind == Qdrant {
		fullScan = c.p.FullScanThresholdKB * 1024 / (4 * c.dim)
	}
	var all []engine.Result
	var where map[engine.ID]docRef // rescoring: where each candidate lives
	if pl.Rescore > 0 {
		where = map[engine.ID]docRef{}
	}
	for si, g := range c.segs {
		res, err := s.searchSegment(si, g, q, qn, pl, visible, fullScan, where, &st)
		if err != nil {
			return nil, st, err
		}
		all = append(all, res...)
	}
	all = sortResults(dedupe(all))
	if pl.Rescore > 0 {
		// Elasticsearch merges the segments' candidates by quantized score
		// to the k' best, then rescores those with float32 vectors
		// (rescore_vector, Elasticsearch 9.1 dense_vector docs) and keeps
		// the top k.
		if len(all) > pl.Candidates {
			all = all[:pl.Candidates]
		}
		for i, r := range all {
			ref := where[r.ID]
			g := c.segs[ref.seg]
			g.mu.RLock()
			all[i].Dist = g.graph.QueryDistance(qn, ref.id)
			g.mu.RUnlock()
		}
		st.DistComps += len(all)
		st.Rescored += len(all)
		all = sortResults(all)
	}
	if len(all) > pl.Limit {
		all = all[:pl.Limit]
	}
	return all, st, nil
}

// docRef locates a document in a segment's graph.
type docRef struct {
	seg int
	id  engine.ID
}

func sortResults(rs []engine.Result) []engine.Result {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Dist != rs[j].Dist {
			return rs[i].Dist < rs[j].Dist
		}
		return rs[i].ID < rs[j].ID
	})
	return rs
}

// searchSegment searches one segment: its graph (or an exact scan of it,
// for a Qdrant segment under the full-scan threshold) and, for Qdrant, an
// exact scan of the tail. Results carry document keys; with where non-nil
// their graph location is recorded there for rescoring.
func (s *Store) searchSegment(si int, g *segment, q, qn []float32, pl Plan, visible engine.Filter, fullScan int, where map[engine.ID]docRef, st *QueryStats) ([]engine.Result, error) {
	c := s.c
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []engine.Result
	exactAll := c.p.Kind == Qdrant && g.size() < fullScan
	if g.graph != nil && len(g.keys) > 0 {
		if exactAll {
			vs := g.graph.Vectors()
			out = exactScan(out, qn, vs.Data, c.dim, g.keys, c.p.Metric, pl.Candidates)
			st.DistComps += len(g.keys)
			st.Exact = true
		} else {
			sr := g.searchers.Get().(*hnsw.Searcher)
			want := max(pl.Candidates, 1)
			allow := visible
			if allow != nil {
				keys := g.keys
				allow = engine.FilterFunc(func(id engine.ID) bool { return visible.Allowed(engine.ID(keys[id])) })
			}
			res, err := sr.Search(q, want, pl.Ef, allow)
			st.DistComps += sr.Stats().DistComps
			if err != nil {
				g.searchers.Put(sr)
				return nil, fmt.Errorf("profile %s: %w", c.p.Kind, err)
			}
			for _, r := range res {
				key := engine.ID(g.keys[r.ID])
				out = append(out, engine.Result{ID: key, Dist: r.Dist})
				if where != nil {
					where[key] = docRef{seg: si, id: r.ID}
				}
			}
			g.searchers.Put(sr)
		}
	}
	if c.p.Kind == Qdrant && g.tailLen() > 0 {
		// Points not yet in a graph live in a plain segment: exact scan.
		out = exactScan(out, qn, g.tail[g.tailStart*c.dim:], c.dim, g.tailKeys[g.tailStart:], c.p.Metric, max(pl.Candidates, 1))
		st.DistComps += g.tailLen()
		st.Exact = true
	}
	return out, nil
}

// exactScan appends the k nearest of the rows (dim apart, keyed) to dst.
func exactScan(dst []engine.Result, q, rows []float32, dim int, keys []uint64, m engine.Metric, k int) []engine.Result {
	dist := vec.Distance(m)
	best := make([]engine.Result, 0, k+1)
	for i, key := range keys {
		d := dist(q, rows[i*dim:(i+1)*dim])
		if len(best) == k && d >= best[k-1].Dist {
			continue
		}
		r := engine.Result{ID: engine.ID(key), Dist: d}
		j := sort.Search(len(best), func(j int) bool { return best[j].Dist > d })
		best = append(best, engine.Result{})
		copy(best[j+1:], best[j:])
		best[j] = r
		if len(best) > k {
			best = best[:k]
		}
	}
	return append(dst, best...)
}

// dedupe drops repeated ids, keeping the smallest distance.
func dedupe(rs []engine.Result) []engine.Result {
	if len(rs) < 2 {
		return rs
	}
	best := make(map[engine.ID]float32, len(rs))
	out := rs[:0]
	for _, r := range rs {
		if d, ok := best[r.ID]; ok {
			if r.Dist < d {
				best[r.ID] = r.Dist
			}
			continue
		}
		best[r.ID] = r.Dist
		out = append(out, r)
	}
	for i := range out {
		out[i].Dist = best[out[i].ID]
	}
	return out
}

// normalize scales v to unit length in place (v is checked non-zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
