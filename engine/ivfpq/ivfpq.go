package ivfpq

import (
	"fmt"
	"strings"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/kmeans"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// Config configures an IVFADC index. Zero fields take the defaults
// documented on each.
type Config struct {
	// Nlist is the number of coarse cells; required (≥ 1, at most the
	// training vectors).
	Nlist int
	// Nprobe is the number of cells a query visits when the request does
	// not say (engine.Request.Breadth); 0 → 1, FAISS's IndexIVF default.
	Nprobe int
	// PQ configures the residuals' product quantizer (M sub-spaces of
	// 2^Bits centroids; its Seed is replaced by Seed + 1, its Workers by
	// Workers).
	PQ     quant.PQConfig
	Metric engine.Metric
	// Iters is the coarse k-means iterations; 0 → 25 (FAISS
	// ClusteringParameters.niter). All of them run (no early stop).
	Iters int
	// RandomInit seeds the coarse k-means with a random sample (FAISS)
	// instead of k-means++; PQ.RandomInit does so for the sub-spaces.
	RandomInit bool
	Seed       uint64
	// Workers bounds the goroutines of training and Add; 0 → engine.Cores().
	// Results do not depend on it.
	Workers int
}

// WithDefaults returns c with zero fields filled.
func (c Config) WithDefaults() Config {
	if c.Nprobe == 0 {
		c.Nprobe = 1
	}
	if c.Iters == 0 {
		c.Iters = kmeans.DefaultMaxIter
	}
	if c.Workers <= 0 {
		c.Workers = engine.Cores()
	}
	c.PQ = c.PQ.WithDefaults()
	c.PQ.Seed = c.Seed + 1
	c.PQ.Workers = c.Workers
	return c
}

// Validate reports every invalid field at once; dim is the vectors'
// dimension (0: not checked).
func (c Config) Validate(dim int) error {
	var errs []string
	if c.Nlist < 1 {
		errs = append(errs, fmt.Sprintf("Nlist must be ≥ 1, got %d", c.Nlist))
	}
	if c.Nprobe < 1 {
		errs = append(errs, fmt.Sprintf("Nprobe must be ≥ 1, got %d", c.Nprobe))
	}
	if c.Iters < 1 {
		errs = append(errs, fmt.Sprintf("Iters must be ≥ 1, got %d", c.Iters))
	}
	if !c.Metric.Valid() {
		errs = append(errs, fmt.Sprintf("unknown metric %v", c.Metric))
	}
	if err := c.PQ.Validate(dim); err != nil {
		// Its problems, without a second "invalid argument".
		errs = append(errs, strings.TrimSuffix(err.Error(), ": "+engine.ErrInvalidArgument.Error()))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("ivfpq: config: %v: %w", errs, engine.ErrInvalidArgument)
}

// String prints the configuration as experiments record it.
func (c Config) String() string {
	return fmt.Sprintf("ivfpq{Nlist:%d Nprobe:%d PQ:{%s} Metric:%v Iters:%d Seed:%d}", c.Nlist, c.Nprobe, c.PQ, c.Metric, c.Iters, c.Seed)
}

// list is one cell's posting list: ids and codes in insertion order.
type list struct {
	ids   []engine.ID
	codes []byte // len(ids)·M
}

// Index is an IVFADC index.
type Index struct {
	cfg   Config
	dim   int
	cents *vec.Matrix // Nlist × dim
	pq    *quant.PQ   // of residuals; its metric is L2 under L2, Dot otherwise
	lists []list
	n     int
	pool  sync.Pool // *searcher
}

// Build trains an index on data and adds every row (ids 0…N−1).
func Build(data *vec.Matrix, cfg Config) (*Index, error) {
	ix, err := Train(data, cfg)
	if err != nil {
		return nil, err
	}
	if err := ix.Add(data); err != nil {
		return nil, err
	}
	return ix, nil
}

// Train learns the coarse centroids on data (at most Nlist·256 rows, the
// k-means sample cap) and the product quantizer on the residuals of data
// to their nearest centroid. The index is empty.
func Train(data *vec.Matrix, cfg Config) (*Index, error) {
	cfg = cfg.WithDefaults()
	if data == nil {
		return nil, fmt.Errorf("ivfpq: training data is nil: %w", engine.ErrInvalidArgument)
	}
	if err := cfg.Validate(data.Dim); err != nil {
		return nil, err
	}
	x, err := prepare(data, cfg.Metric)
	if err != nil {
		return nil, err
	}
	if cfg.Nlist > x.N {
		return nil, fmt.Errorf("ivfpq: %d cells need at least as many training vectors, got %d: %w", cfg.Nlist, x.N, engine.ErrInvalidArgument)
	}
	model, err := kmeans.Train(x, kmeans.Config{K: cfg.Nlist, MaxIter: cfg.Iters, Tol: -1, Seed: cfg.Seed, Workers: cfg.Workers, Init: initOf(cfg.RandomInit)})
	if err != nil {
		return nil, fmt.Errorf("ivfpq: coarse quantizer: %w", err)
	}
	ix := &Index{cfg: cfg, dim: x.Dim, cents: model.Centroids, lists: make([]list, cfg.Nlist)}
	assign, _ := kmeans.AssignAll(x, ix.cents, cfg.Workers)
	res := vec.NewMatrix(x.N, x.Dim)
	for i := 0; i < x.N; i++ {
		residual(res.Row(i), x.Row(i), ix.cents.Row(int(assign[i])))
	}
	pm := engine.L2
	if cfg.Metric != engine.L2 {
		// Inner-product tables; Dot, not Cosine, since residuals are not
		// unit vectors (quant would normalise them).
		pm = engine.Dot
	}
	ix.pq, err = quant.TrainPQ(res, pm, cfg.PQ)
	if err != nil {
		return nil, fmt.Errorf("ivfpq: residual quantizer: %w", err)
	}
	return ix, nil
}

// prepare checks data and, under Cosine, returns a unit-normalised copy.
func prepare(data *vec.Matrix, metric engine.Metric) (*vec.Matrix, error) {
	if err := kmeans.CheckData(data); err != nil {
		return nil, fmt.Errorf("ivfpq: %w", err)
	}
	if metric != engine.Cosine {
		for i := 0; i < data.N; i++ {
			if err := engine.CheckVector(data.Row(i), data.Dim, metric); err != nil {
				return nil, fmt.Errorf("ivfpq: vector %d: %w", i, err)
			}
		}
		return data, nil
	}
	x := vec.NewMatrix(data.N, data.Dim)
	for i := 0; i < data.N; i++ {
		row := x.Row(i)
		copy(row, data.Row(i))
		if err := engine.CheckVector(row, data.Dim, metric); err != nil {
			return nil, fmt.Errorf("ivfpq: vector %d: %w", i, err)
		}
		if err := vec.Normalize(row); err != nil {
			return nil, fmt.Errorf("ivfpq: vector %d: %w", i, err)
		}
	}
	return x, nil
}

func residual(dst, x, c []float32) {
	for i := range dst {
		dst[i] = x[i] - c[i]
	}
}

// Add assigns every row of data to its nearest cell (squared L2) and
// appends the product code of its residual there; the rows get ids
// Len()…Len()+N−1. Encoding is spread over Workers goroutines; lists are
// filled in id order, so the index does not depend on them.
func (ix *Index) Add(data *vec.Matrix) error {
	if data == nil || data.Dim != ix.dim {
		return fmt.Errorf("ivfpq: add: data of dimension %v, index has %d: %w", dimOf(data), ix.dim, engine.ErrDimension)
	}
	if data.N == 0 {
		return nil
	}
	x, err := prepare(data, ix.cfg.Metric)
	if err != nil {
		return err
	}
	assign, _ := kmeans.AssignAll(x, ix.cents, ix.cfg.Workers)
	m := ix.pq.CodeSize()
	codes := make([]byte, x.N*m)
	var wg sync.WaitGroup
	chunk := (x.N + ix.cfg.Workers - 1) / ix.cfg.Workers
	for lo := 0; lo < x.N; lo += chunk {
		hi := min(lo+chunk, x.N)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := make([]float32, ix.dim)
			for i := lo; i < hi; i++ {
				residual(r, x.Row(i), ix.cents.Row(int(assign[i])))
				_ = ix.pq.Encode(codes[i*m:(i+1)*m], r) // finite by prepare
			}
		}()
	}
	wg.Wait()
	for i := 0; i < x.N; i++ {
		l := &ix.lists[assign[i]]
		l.ids = append(l.ids, engine.ID(ix.n+i))
		l.codes = append(l.codes, codes[i*m:(i+1)*m]...)
	}
	ix.n += x.N
	return nil
}

func dimOf(m *vec.Matrix) any {
	if m == nil {
		return "nil"
	}
	return m.Dim
}

// Len returns the number of vectors added.
func (ix *Index) Len() int { return ix.n }

// Dim returns the vector dimension.
func (ix *Index) Dim() int { return ix.dim }

// Config returns the configuration, defaults filled.
func (ix *Index) Config() Config { return ix.cfg }

// PQ returns the residuals' product quantizer.
func (ix *Index) PQ() *quant.PQ { return ix.pq }

// Centroids returns the coarse centroids (do not modify).
func (ix *Index) Centroids() *vec.Matrix { return ix.cents }

// ListSizes returns the number of codes in each cell.
func (ix *Index) ListSizes() []int {
	out := make([]int, len(ix.lists))
	for i, l := range ix.lists {
		out[i] = len(l.ids)
	}
	return out
}

// BytesPerVector returns the resident bytes per vector: its code and id
// (M + 4), the centroids spread over the vectors aside.
func (ix *Index) BytesPerVector() float64 { return float64(ix.pq.CodeSize() + 4) }

// searcher is one search's scratch.
type searcher struct {
	q     []float32
	r     []float32
	cells topk.MaxHeap
	heap  topk.MaxHeap
	dist  []float32
	tab   *quant.PQTable
	order []engine.Result
}

var _ engine.Index = (*Index)(nil)

// Query implements [engine.Index]: r.Breadth is the number of cells
// visited (0 → Config.Nprobe), r.Filter is applied before a code is
// scored, r.Bound is neither read nor offered (distances are estimates).
// DistComps counts the codes scored, Visited the cells visited.
func (ix *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("ivfpq: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("ivfpq: query: Params of type %T (an IVF-PQ index takes none): %w", r.Params, engine.ErrInvalidArgument)
	}
	nprobe := r.Breadth
	if nprobe == 0 {
		nprobe = ix.cfg.Nprobe
	}
	res, st, err := ix.search(q, r.K, nprobe, r.Filter)
	if err != nil {
		return nil, st, fmt.Errorf("ivfpq: query: %w", err)
	}
	return res, st, nil
}

// Search returns the k nearest by ADC estimate among the codes of the
// nprobe cells nearest to q (all cells when nprobe ≥ Nlist).
func (ix *Index) Search(q []float32, k, nprobe int) ([]engine.Result, error) {
	if err := engine.CheckK(k); err != nil {
		return nil, fmt.Errorf("ivfpq: search: %w", err)
	}
	if nprobe < 1 {
		return nil, fmt.Errorf("ivfpq: search: nprobe must be ≥ 1, got %d: %w", nprobe, engine.ErrInvalidArgument)
	}
	res, _, err := ix.search(q, k, nprobe, nil)
	if err != nil {
		return nil, fmt.Errorf("ivfpq: search: %w", err)
	}
	return res, nil
}

func (ix *Index) search(q []float32, k, nprobe int, f engine.Filter) ([]engine.Result, engine.SearchStats, error) {
	var st engine.SearchStats
	if ix.n == 0 {
		return nil, st, engine.ErrEmpty
	}
	if err := engine.CheckVector(q, ix.dim, ix.cfg.Metric); err != nil {
		return nil, st, err
	}
	s, _ := ix.pool.Get().(*searcher)
	if s == nil {
		s = &searcher{q: make([]float32, ix.dim), r: make([]float32, ix.dim), dist: make([]float32, 256)}
	}
	defer ix.pool.Put(s)
	copy(s.q, q)
	if ix.cfg.Metric == engine.Cosine {
		if err := vec.Normalize(s.q); err != nil {
			return nil, st, err
		}
	}
	// The nprobe cells nearest to q.
	nprobe = min(nprobe, ix.cents.N)
	s.cells.Reset()
	l2 := ix.cfg.Metric == engine.L2
	for c := 0; c < ix.cents.N; c++ {
		var d float32
		if l2 {
			d = vec.L2Sq(s.q, ix.cents.Row(c))
		} else {
			d = -vec.Dot(s.q, ix.cents.Row(c))
		}
		s.cells.PushBounded(engine.Result{ID: engine.ID(c), Dist: d}, nprobe)
	}
	s.order = s.cells.Sorted(s.order[:0])
	// Under Dot and Cosine one table serves every cell.
	if !l2 {
		if err := ix.resetTable(s, s.q); err != nil {
			return nil, st, err
		}
	}
	var bias float32
	if ix.cfg.Metric == engine.Cosine {
		bias = 1
	}
	s.heap.Reset()
	m := ix.pq.CodeSize()
	for _, cell := range s.order {
		l := &ix.lists[cell.ID]
		st.Visited++
		if len(l.ids) == 0 {
			continue
		}
		var add float32 // the cell's term
		if l2 {
			residual(s.r, s.q, ix.cents.Row(int(cell.ID)))
			if err := ix.resetTable(s, s.r); err != nil {
				return nil, st, err
			}
		} else {
			add = bias + cell.Dist // 1 − ⟨q, c⟩ or −⟨q, c⟩
		}
		for lo := 0; lo < len(l.ids); lo += len(s.dist) {
			hi := min(lo+len(s.dist), len(l.ids))
			d := s.dist[:hi-lo]
			s.tab.Distances(d, l.codes[lo*m:hi*m])
			for i, v := range d {
				id := l.ids[lo+i]
				if f != nil && !f.Allowed(id) {
					continue
				}
				st.DistComps++
				if v += add; s.heap.Len() == k && v >= s.heap.Top().Dist {
					continue // cannot enter the top k (PushBounded's test, without its call)
				}
				s.heap.PushBounded(engine.Result{ID: id, Dist: v}, k)
			}
		}
	}
	return s.heap.Sorted(make([]engine.Result, 0, s.heap.Len())), st, nil
}

func (ix *Index) resetTable(s *searcher, q []float32) error {
	if s.tab == nil {
		t, err := ix.pq.NewTable(q)
		s.tab = t
		return err
	}
	return s.tab.Reset(q)
}

func initOf(random bool) kmeans.Init {
	if random {
		return kmeans.Random
	}
	return kmeans.PlusPlus
}
