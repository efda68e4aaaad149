package quant

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/vec"
)

// Store keeps one code per document in id order in a single slab and
// implements [engine.CodeStore].
//
// For an asymmetric quantizer (BBQ: 1-bit documents, 4-bit queries) it
// also keeps each document's query code while the graph is built, so
// [Store.Pair] scores a document as a query against its neighbours as
// Lucene does when it builds a bbq_hnsw graph; [Store.DropBuildCodes]
// frees them afterwards. They are not counted in BytesPerVector. A
// product quantizer's query code is a distance table of kilobytes, so for
// [PQ] none is kept and Pair is the symmetric distance (SDC) from the
// start.
//
// # Concurrency
//
// Reserve must not run concurrently with anything else. After it, Set may
// be called concurrently for distinct ids, and Pair, NewQueryScorer and
// Search concurrently with each other.
type Store struct {
	q      Quantizer
	size   int    // bytes per document code
	qsize  int    // bytes per build-time query code (0 when not kept)
	codes  []byte // guarded by the contract above
	qcodes []byte
	has    []atomic.Bool
	n      atomic.Int64
}

// NewStore returns an empty store for q's codes.
func NewStore(q Quantizer) *Store {
	s := &Store{q: q, size: q.CodeSize()}
	if _, pq := q.(*PQ); !q.Symmetric() && !pq {
		s.qsize = q.QueryCodeSize()
	}
	return s
}

// Quantizer returns the store's quantizer.
func (s *Store) Quantizer() Quantizer { return s.q }

// Reserve makes room for ids 0…n-1.
func (s *Store) Reserve(n int) {
	if n <= len(s.has) {
		return
	}
	s.codes = slices.Grow(s.codes, (n-len(s.has))*s.size)[:n*s.size]
	if s.qsize > 0 {
		s.qcodes = slices.Grow(s.qcodes, (n-len(s.has))*s.qsize)[:n*s.qsize]
	}
	has := make([]atomic.Bool, n)
	for i := range s.has {
		has[i].Store(s.has[i].Load())
	}
	s.has = has
}

// Set encodes v as the code of document id (id < the reserved count).
func (s *Store) Set(id engine.ID, v []float32) error {
	if int(id) >= len(s.has) {
		return fmt.Errorf("quant: code store: id %d beyond reserved %d: %w", id, len(s.has), engine.ErrInvalidArgument)
	}
	i := int(id)
	if err := s.q.Encode(s.codes[i*s.size:(i+1)*s.size], v); err != nil {
		return fmt.Errorf("code store: document %d: %w", id, err)
	}
	if s.qsize > 0 && s.qcodes != nil {
		if err := s.q.EncodeQuery(s.qcodes[i*s.qsize:(i+1)*s.qsize], v); err != nil {
			return fmt.Errorf("code store: document %d: %w", id, err)
		}
	}
	if !s.has[i].Swap(true) {
		s.n.Add(1)
	}
	return nil
}

// SetCode stores code (CodeSize bytes, as Encode wrote it, read back from
// a file) as the code of document id (id < the reserved count). A store
// filled this way has no build-time query codes: it serves searches, not
// a graph build.
func (s *Store) SetCode(id engine.ID, code []byte) error {
	if int(id) >= len(s.has) {
		return fmt.Errorf("quant: code store: id %d beyond reserved %d: %w", id, len(s.has), engine.ErrInvalidArgument)
	}
	if len(code) != s.size {
		return fmt.Errorf("quant: code store: document %d: code of %d bytes, want %d: %w", id, len(code), s.size, engine.ErrInvalidArgument)
	}
	i := int(id)
	copy(s.codes[i*s.size:(i+1)*s.size], code)
	if !s.has[i].Swap(true) {
		s.n.Add(1)
	}
	return nil
}

// Len returns the number of ids with a code.
func (s *Store) Len() int { return int(s.n.Load()) }

// Code returns the code of id (aliasing the slab); id must be below the
// reserved count, as for Pair (a hot path that trusts its caller, the index).
func (s *Store) Code(id engine.ID) []byte {
	i := int(id)
	return s.codes[i*s.size : (i+1)*s.size : (i+1)*s.size]
}

// BytesPerVector returns the resident bytes of one document code.
func (s *Store) BytesPerVector() float64 { return s.q.BytesPerVector() }

// DropBuildCodes frees the build-time query codes; Pair then scores two
// document codes symmetrically. Not safe concurrently with Pair or Set.
func (s *Store) DropBuildCodes() {
	s.qcodes = nil
	s.qsize = 0
}

// Pair returns the approximate distance between stored documents a and b.
func (s *Store) Pair(a, b engine.ID) float32 {
	if s.qsize > 0 {
		ia := int(a)
		return s.q.Distance(s.qcodes[ia*s.qsize:(ia+1)*s.qsize], s.Code(b))
	}
	return s.q.CodeDistance(s.Code(a), s.Code(b))
}

// scorer is a query bound to a store, for any Quantizer.
type scorer struct {
	s  *Store
	qc []byte
}

func (sc *scorer) Distance(id engine.ID) float32 {
	i := int(id)
	return sc.s.q.Distance(sc.qc, sc.s.codes[i*sc.s.size:(i+1)*sc.s.size])
}

// osqScorer decodes the query's factors once and calls the OSQ directly.
type osqScorer struct {
	o     *OSQ
	codes []byte
	size  int
	qc    []byte
	y     osqSide
}

func (sc *osqScorer) Distance(id engine.ID) float32 {
	i := int(id)
	return sc.o.distance(sc.y, sc.qc, sc.codes[i*sc.size:(i+1)*sc.size])
}

// scalarScorer calls the Scalar directly.
type scalarScorer struct {
	q     *Scalar
	codes []byte
	size  int
	qc    []byte
}

func (sc *scalarScorer) Distance(id engine.ID) float32 {
	i := int(id)
	return sc.q.CodeDistance(sc.qc, sc.codes[i*sc.size:(i+1)*sc.size])
}

// pqScorer reads one code through a query's distance table.
type pqScorer struct {
	t     *PQTable
	codes []byte
	size  int
}

func (sc *pqScorer) Distance(id engine.ID) float32 {
	i := int(id)
	return sc.t.Distance(sc.codes[i*sc.size : (i+1)*sc.size])
}

// turboScorer decodes the query's float32 coordinates once.
type turboScorer struct {
	t     *Turbo
	codes []byte
	size  int
	q     turboQuery
}

func (sc *turboScorer) Distance(id engine.ID) float32 {
	i := int(id)
	return sc.t.distance(sc.q, sc.codes[i*sc.size:(i+1)*sc.size])
}

// NewQueryScorer encodes q once; the scorer's Distance reads one code.
// q must be checked and, under Cosine, normalised (engine.CodeStore's
// contract); its length and finiteness are checked again here.
func (s *Store) NewQueryScorer(q []float32) (engine.QueryScorer, error) {
	if p, ok := s.q.(*PQ); ok {
		t, err := p.NewTable(q)
		if err != nil {
			return nil, err
		}
		return &pqScorer{t: t, codes: s.codes, size: s.size}, nil
	}
	qc := make([]byte, s.q.QueryCodeSize())
	if err := s.q.EncodeQuery(qc, q); err != nil {
		return nil, err
	}
	return s.bind(qc), nil
}

func (s *Store) bind(qc []byte) engine.QueryScorer {
	switch qz := s.q.(type) {
	case *OSQ:
		return &osqScorer{o: qz, codes: s.codes, size: s.size, qc: qc, y: qz.side(qc, qz.qCode, 4, qz.cfg.QueryBits)}
	case *Scalar:
		return &scalarScorer{q: qz, codes: s.codes, size: s.size, qc: qc}
	case *Turbo:
		return &turboScorer{t: qz, codes: s.codes, size: s.size, q: qz.bindQuery(qc)}
	}
	return &scorer{s: s, qc: qc}
}

// Search returns the k documents nearest to q by code distance, scanning
// every code (a flat index over codes: it isolates the quantizer's error
// from any graph's). q is checked, and normalised under Cosine; f may be nil.
func (s *Store) Search(q []float32, k int, f engine.Filter) ([]engine.Result, error) {
	res, _, err := s.search(q, k, f)
	return res, err
}

// search is Search returning the number of codes scored too.
func (s *Store) search(q []float32, k int, f engine.Filter) ([]engine.Result, int, error) {
	if err := engine.CheckK(k); err != nil {
		return nil, 0, err
	}
	if s.Len() == 0 {
		return nil, 0, engine.ErrEmpty
	}
	m := s.q.Metric()
	if err := engine.CheckVector(q, s.q.Dim(), m); err != nil {
		return nil, 0, err
	}
	if m == engine.Cosine {
		q = slices.Clone(q)
		if err := vec.Normalize(q); err != nil {
			return nil, 0, err
		}
	}
	if p, ok := s.q.(*PQ); ok {
		return s.searchPQ(p, q, k, f)
	}
	qc := make([]byte, s.q.QueryCodeSize())
	if err := s.q.EncodeQuery(qc, q); err != nil {
		return nil, 0, err
	}
	sc := s.bind(qc)
	var h topk.MaxHeap
	scored := 0
	for i := range s.has {
		if !s.has[i].Load() {
			continue
		}
		id := engine.ID(i)
		if f != nil && !f.Allowed(id) {
			continue
		}
		scored++
		h.PushBounded(engine.Result{ID: id, Dist: sc.Distance(id)}, k)
	}
	return h.Sorted(make([]engine.Result, 0, h.Len())), scored, nil
}

// pqBlock is the number of codes a PQ scan scores per Distances call.
const pqBlock = 256

// searchPQ is search for product codes: the query's distance table is
// built once; with every id present and no filter the codes go through
// the fused scan-and-select loop (PQTable.top), otherwise they are scored
// a block at a time by the unrolled ADC kernel, then offered to the
// top-k heap.
func (s *Store) searchPQ(p *PQ, q []float32, k int, f engine.Filter) ([]engine.Result, int, error) {
	t, _ := p.tables.Get().(*PQTable)
	if t == nil {
		t = &PQTable{p: p, t: make([]float32, p.cfg.M*tableStride), bias: p.bias()}
	}
	defer p.tables.Put(t)
	p.table(t.t, q, tableStride) // q was checked by search: Reset's check would read it again
	var h topk.MaxHeap
	n := len(s.has)
	full := s.Len() == n // every id has a code: no flag to read per code
	if full && f == nil {
		// Every code is scored: the fused scan and top-k loop.
		t.top(&h, k, s.codes[:n*s.size], 0)
		return h.Sorted(make([]engine.Result, 0, h.Len())), n, nil
	}
	var dist [pqBlock]float32
	scored := 0
	for lo := 0; lo < n; lo += pqBlock {
		hi := min(lo+pqBlock, n)
		d := dist[:hi-lo]
		t.Distances(d, s.codes[lo*s.size:hi*s.size])
		for i, v := range d {
			id := engine.ID(lo + i)
			if (!full && !s.has[lo+i].Load()) || (f != nil && !f.Allowed(id)) {
				continue
			}
			scored++
			if h.Len() == k && v >= h.Top().Dist {
				continue // cannot enter the top k (PushBounded's test, without its call)
			}
			h.PushBounded(engine.Result{ID: id, Dist: v}, k)
		}
	}
	return h.Sorted(make([]engine.Result, 0, h.Len())), scored, nil
}
