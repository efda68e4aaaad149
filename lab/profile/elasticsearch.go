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

// esModel is the Elasticsearch store: Profile.Segments graphs (documents
// spread by key mod Segments), each document inserted into its segment's
// graph on the indexing thread and published by a refresh, with the
// quantized types' codes attached to the graphs and the best k' rescored
// with float32 vectors. It has not moved onto engine/segment yet: that
// needs segments whose graph is built and searched over codes.
type esModel struct {
	p   Profile
	dim int

	n       atomic.Int64 // documents acknowledged
	visible atomic.Int64 // documents published by the last refresh
	segs    []*esSegment
	quant   quant.Quantizer // quantized types; nil for hnsw
	codes   []*quant.Store  // per segment, with quant

	// The refresher.
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex // serialises ingest and refresh
	bgMu  sync.Mutex
	bgErr error // first refresh failure, guarded by bgMu
}

// esSegment is one graph and the keys of its nodes.
type esSegment struct {
	mu         sync.RWMutex // guards everything below
	graph      *hnsw.Index  // nil until the first document
	keys       []uint64     // graph id → document key
	floatCodes *incCodes    // float-built quantized graph: codes attached at refresh, nil otherwise
	codesStale bool         // float-built: documents added since the last attach
	searchers  sync.Pool    // *hnsw.Searcher of graph
}

func newESModel(p Profile, dim int) *esModel {
	e := &esModel{p: p, dim: dim, stop: make(chan struct{})}
	e.segs = make([]*esSegment, p.Segments)
	for i := range e.segs {
		e.segs[i] = &esSegment{}
	}
	if p.RefreshInterval > 0 {
		e.done.Add(1)
		go e.refresher()
	}
	return e
}

// train fits the quantizer of the effective index type.
func (e *esModel) train(sample *vec.Matrix) error {
	if e.quant != nil {
		return nil
	}
	var q quant.Quantizer
	var err error
	switch e.p.EffectiveType(e.dim) {
	case BBQHNSW:
		// 1-bit documents, 4-bit queries (Lucene102 BBQ).
		q, err = quant.TrainOSQ(sample, e.p.Metric, quant.OSQConfig{Bits: 1, QueryBits: 4, Seed: e.p.Seed})
	case Int8HNSW:
		q, err = quant.TrainScalar(sample, e.p.Metric, quant.ScalarConfig{Bits: 7, Seed: e.p.Seed})
	case Int4HNSW:
		q, err = quant.TrainScalar(sample, e.p.Metric, quant.ScalarConfig{Bits: 4, Seed: e.p.Seed})
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("profile %s: training %s quantizer: %w", e.p.Kind, e.p.EffectiveType(e.dim), err)
	}
	e.quant = q
	return nil
}

func (e *esModel) indexed() int {
	n := 0
	for _, g := range e.segs {
		g.mu.RLock()
		n += len(g.keys)
		g.mu.RUnlock()
	}
	return n
}

func (e *esModel) segments() []SegmentInfo {
	out := make([]SegmentInfo, len(e.segs))
	for i, g := range e.segs {
		g.mu.RLock()
		out[i] = SegmentInfo{Docs: len(g.keys), Indexed: len(g.keys)}
		g.mu.RUnlock()
	}
	return out
}

func (e *esModel) footprint() Footprint {
	var f Footprint
	for _, g := range e.segs {
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
		g.mu.RUnlock()
	}
	return f
}

// ingest inserts a checked batch into the segments' graphs (key mod
// segments). Caller holds the store's ingest lock.
func (e *esModel) ingest(m *vec.Matrix) error {
	if err := e.bgError(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.quant == nil {
		// Opened without Build: train on the first batch.
		if err := e.train(m); err != nil {
			return err
		}
	}
	first := e.n.Load()
	S := int64(len(e.segs))
	per := make([][]int, len(e.segs))
	for i := 0; i < m.N; i++ {
		key := first + int64(i)
		per[key%S] = append(per[key%S], i)
	}
	for si, rows := range per {
		if len(rows) == 0 {
			continue
		}
		keys := make([]uint64, len(rows))
		sub := vec.NewMatrix(len(rows), e.dim)
		for j, r := range rows {
			keys[j] = uint64(first) + uint64(r)
			copy(sub.Row(j), m.Row(r))
		}
		if err := e.addToGraph(si, e.segs[si], keys, sub); err != nil {
			return err
		}
	}
	e.n.Add(int64(m.N))
	return nil
}

// addToGraph inserts documents into segment g's graph, creating it first.
func (e *esModel) addToGraph(si int, g *esSegment, keys []uint64, m *vec.Matrix) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.graph == nil {
		cfg := hnsw.Config{
			Dim: e.dim, Metric: e.p.Metric, M: e.p.M, M0: e.p.M0,
			EfConstruction: e.p.EfConstruction, Seed: e.p.Seed + uint64(si),
			Selection: hnsw.Heuristic, KeepPruned: e.p.KeepPruned,
			NewNodeDegreeL0: e.p.Degree0, Workers: e.p.Workers,
		}
		if e.quant != nil {
			cs := quant.NewStore(e.quant)
			e.codes = append(e.codes, cs)
			if e.p.EffectiveGraph() == FlushGraph {
				g.floatCodes = &incCodes{Store: cs}
			} else {
				cfg.Codes = cs
			}
		}
		ix, err := hnsw.New(cfg)
		if err != nil {
			return fmt.Errorf("profile %s: %w", e.p.Kind, err)
		}
		g.graph = ix
		g.searchers.New = func() any { return ix.NewSearcher() }
	}
	if g.floatCodes != nil && g.graph.Codes() != nil {
		if err := g.graph.AttachCodes(nil); err != nil { // build with float32 scores
			return fmt.Errorf("profile %s: %w", e.p.Kind, err)
		}
	}
	if err := g.graph.AddBatch(keys, m); err != nil {
		return fmt.Errorf("profile %s: %w", e.p.Kind, err)
	}
	g.codesStale = g.floatCodes != nil
	g.keys = append(g.keys, keys...)
	return nil
}

// refresher publishes documents every refresh interval.
func (e *esModel) refresher() {
	defer e.done.Done()
	t := time.NewTicker(e.p.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if err := e.refresh(); err != nil {
				e.bgMu.Lock()
				if e.bgErr == nil {
					e.bgErr = err
				}
				e.bgMu.Unlock()
			}
		}
	}
}

func (e *esModel) refresh() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, g := range e.segs {
		g.mu.Lock()
		var err error
		if g.codesStale {
			// Encode the new documents and search with codes again.
			err = g.graph.AttachCodes(g.floatCodes)
			g.codesStale = err != nil
		}
		g.mu.Unlock()
		if err != nil {
			return fmt.Errorf("profile %s: refresh: %w", e.p.Kind, err)
		}
	}
	e.visible.Store(e.n.Load())
	return e.bgError()
}

func (e *esModel) bgError() error {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	return e.bgErr
}

func (e *esModel) close() error {
	close(e.stop)
	e.done.Wait()
	return nil
}

// search answers one query under plan pl: every segment's graph is walked
// with num_candidates, the candidates are merged by (quantized) score to
// k', and those are rescored with float32 vectors.
func (e *esModel) search(q []float32, pl Plan) ([]engine.Result, QueryStats, error) {
	var st QueryStats
	qn := append([]float32(nil), q...)
	if e.p.Metric == engine.Cosine {
		normalize(qn)
	}
	var visible engine.Filter
	if v := uint64(e.visible.Load()); v < uint64(e.n.Load()) {
		lim := v
		visible = engine.FilterFunc(func(id engine.ID) bool { return uint64(id) < lim })
	}
	var all []engine.Result
	var where map[engine.ID]docRef // rescoring: where each candidate lives
	if pl.Rescore > 0 {
		where = map[engine.ID]docRef{}
	}
	for si, g := range e.segs {
		res, err := e.searchSegment(si, g, q, pl, visible, where, &st)
		if err != nil {
			return nil, st, err
		}
		all = append(all, res...)
	}
	all = sortResults(all)
	if pl.Rescore > 0 {
		// Elasticsearch merges the segments' candidates by quantized score
		// to the k' best, then rescores those with float32 vectors and
		// keeps the top k (RescoreKnnVectorQuery).
		if len(all) > pl.Candidates {
			all = all[:pl.Candidates]
		}
		for i, r := range all {
			ref := where[r.ID]
			g := e.segs[ref.seg]
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

// searchSegment walks one segment's graph; results carry document keys,
// and with where non-nil their graph location is recorded for rescoring.
func (e *esModel) searchSegment(si int, g *esSegment, q []float32, pl Plan, visible engine.Filter, where map[engine.ID]docRef, st *QueryStats) ([]engine.Result, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.graph == nil || len(g.keys) == 0 {
		return nil, nil
	}
	sr := g.searchers.Get().(*hnsw.Searcher)
	defer g.searchers.Put(sr)
	allow := visible
	if allow != nil {
		keys := g.keys
		allow = engine.FilterFunc(func(id engine.ID) bool { return visible.Allowed(engine.ID(keys[id])) })
	}
	res, err := sr.Search(q, max(pl.Candidates, 1), pl.Ef, allow)
	st.DistComps += sr.Stats().DistComps
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", e.p.Kind, err)
	}
	out := make([]engine.Result, 0, len(res))
	for _, r := range res {
		key := engine.ID(g.keys[r.ID])
		out = append(out, engine.Result{ID: key, Dist: r.Dist})
		if where != nil {
			where[key] = docRef{seg: si, id: r.ID}
		}
	}
	return out, nil
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
