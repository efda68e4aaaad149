package flat

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/batch"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/vec"
)

// Config describes an exact index. The zero value is valid: cosine, one
// worker per search.
type Config struct {
	// Metric is the distance; default engine.Cosine.
	Metric engine.Metric
	// Workers is the number of goroutines one search (or SearchBatch) uses;
	// 0 means 1. Use AllCores() for all cores.
	Workers int
}

// withDefaults returns cfg with zero fields filled.
func (c Config) withDefaults() Config {
	if c.Workers == 0 {
		c.Workers = 1
	}
	return c
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []string
	if !c.Metric.Valid() {
		errs = append(errs, fmt.Sprintf("metric %v is not cosine, dot or l2", c.Metric))
	}
	if c.Workers < 0 {
		errs = append(errs, fmt.Sprintf("workers must be ≥ 0, got %d", c.Workers))
	}
	if len(errs) > 0 {
		return fmt.Errorf("flat: config: %s: %w", strings.Join(errs, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the config as "metric=cosine workers=1".
func (c Config) String() string {
	return "metric=" + c.Metric.String() + " workers=" + strconv.Itoa(c.Workers)
}

// Index is an exact index over a matrix it does not copy.
type Index struct {
	cfg     Config
	m       *vec.Matrix
	invNorm []float32 // Cosine only: 1/‖row i‖
}

// minRowsPerWorker keeps a search serial when splitting would cost more in
// goroutine start-up than it saves.
const minRowsPerWorker = 4096

// New checks every row of m (finite components; non-zero under Cosine) and
// returns an index over it. The matrix is not copied; it must not change
// while the index is used. An empty matrix is accepted (searches then
// return engine.ErrEmpty).
func New(m *vec.Matrix, cfg Config) (*Index, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("flat: nil matrix: %w", engine.ErrInvalidArgument)
	}
	if m.Dim <= 0 || m.Stride < m.Dim || m.N < 0 || (m.N > 0 && len(m.Data) < (m.N-1)*m.Stride+m.Dim) {
		return nil, fmt.Errorf("flat: malformed matrix (N=%d Dim=%d Stride=%d len(Data)=%d): %w", m.N, m.Dim, m.Stride, len(m.Data), engine.ErrInvalidArgument)
	}
	x := &Index{cfg: cfg, m: m}
	if cfg.Metric == engine.Cosine {
		x.invNorm = make([]float32, m.N)
	}
	for i := 0; i < m.N; i++ {
		row := m.Row(i)
		if err := engine.CheckVector(row, m.Dim, cfg.Metric); err != nil {
			return nil, fmt.Errorf("flat: row %d: %w", i, err)
		}
		if x.invNorm != nil {
			x.invNorm[i] = float32(1 / math.Sqrt(float64(f32.Dot(row, row))))
		}
	}
	return x, nil
}

// Config returns the effective configuration.
func (x *Index) Config() Config { return x.cfg }

// Len returns the number of rows.
func (x *Index) Len() int { return x.m.N }

// Dim returns the dimension.
func (x *Index) Dim() int { return x.m.Dim }

// BytesPerVector returns the resident bytes per row: the row itself plus,
// under Cosine, its inverse norm.
func (x *Index) BytesPerVector() float64 {
	b := float64(4 * x.m.Stride)
	if x.invNorm != nil {
		b += 4
	}
	return b
}

// prepare checks q and k and returns the query as it is scored (unit
// length under Cosine, in a new slice).
func (x *Index) prepare(q []float32, k int) ([]float32, error) {
	if err := engine.CheckK(k); err != nil {
		return nil, fmt.Errorf("flat: %w", err)
	}
	if err := engine.CheckVector(q, x.m.Dim, x.cfg.Metric); err != nil {
		return nil, fmt.Errorf("flat: query: %w", err)
	}
	if x.m.N == 0 {
		return nil, fmt.Errorf("flat: %w", engine.ErrEmpty)
	}
	if x.cfg.Metric == engine.Cosine {
		q = slices.Clone(q)
		if err := vec.Normalize(q); err != nil {
			return nil, fmt.Errorf("flat: query: %w", err)
		}
	}
	return q, nil
}

// dist scores row i against the prepared query. It goes through the same
// four-row kernel as the scan (with row i in every slot) so that a row's
// distance is bit-identical whichever path scored it: serial or split scan,
// filter or id list.
func (x *Index) dist(q []float32, i int) float32 {
	d, _, _, _ := x.dist4(q, [4]int{i, i, i, i})
	return d
}

// Search returns the k rows nearest to q among those allow admits (nil
// allows all), nearest first, ties by id, and the number of distance
// computations. Fewer than k results come back when fewer rows are allowed.
func (x *Index) Search(q []float32, k int, allow engine.Filter) ([]engine.Result, engine.SearchStats, error) {
	q, err := x.prepare(q, k)
	if err != nil {
		return nil, engine.SearchStats{}, err
	}
	return x.search(q, k, allow, x.cfg.Workers)
}

func (x *Index) search(q []float32, k int, allow engine.Filter, workers int) ([]engine.Result, engine.SearchStats, error) {
	n := x.m.N
	workers = min(workers, max(1, n/minRowsPerWorker))
	if workers <= 1 {
		var h heap
		st := x.scanRange(&h, q, k, allow, 0, n)
		return h.sorted(), st, nil
	}
	heaps := make([]heap, workers)
	stats := make([]engine.SearchStats, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[w] = x.scanRange(&heaps[w], q, k, allow, lo, hi)
		}()
	}
	wg.Wait()
	var merged heap
	var st engine.SearchStats
	for w := range heaps {
		st.Add(stats[w])
		for _, r := range heaps[w].items {
			merged.pushBounded(r, k)
		}
	}
	return merged.sorted(), st, nil
}

// scanRange scores rows lo…hi-1 into h, four rows per kernel call (one
// pass over the query for four rows: f32.Dot4 / L2Sq4).
func (x *Index) scanRange(h *heap, q []float32, k int, allow engine.Filter, lo, hi int) engine.SearchStats {
	var st engine.SearchStats
	h.items = slices.Grow(h.items[:0], min(k, hi-lo))
	var ids [4]int
	n := 0
	if allow == nil {
		// The common case: the slab kernel scores a block of rows in one
		// call (bit-identical to dist4), then one pass over the block's
		// distances pushes only those under the k-th best, kept in a
		// register, so the heap is touched a few dozen times per search.
		st.DistComps = hi - lo
		worst := float32(math.Inf(1))
		var buf [scanBlock]float32
		i := lo
		for i+4 <= hi {
			nb := min(scanBlock, (hi-i)&^3)
			d := buf[:nb]
			x.distRows(q, i, d)
			for j, dj := range d {
				if dj < worst || len(h.items) < k {
					x.offer(h, k, i+j, dj)
					if len(h.items) == k {
						worst = h.items[0].Dist
					}
				}
			}
			i += nb
		}
		for ; i < hi; i++ {
			x.offer(h, k, i, x.dist(q, i))
		}
		return st
	}
	for i := lo; i < hi; i++ {
		if allow != nil && !allow.Allowed(engine.ID(i)) {
			continue
		}
		ids[n] = i
		n++
		st.DistComps++
		if n == 4 {
			var d [4]float32
			d[0], d[1], d[2], d[3] = x.dist4(q, ids)
			for j := range 4 {
				x.offer(h, k, ids[j], d[j])
			}
			n = 0
		}
	}
	for j := 0; j < n; j++ {
		x.offer(h, k, ids[j], x.dist(q, ids[j]))
	}
	return st
}

// offer pushes row i at distance d. Rows arrive in increasing id order, so
// a row that ties the current worst is worse than it: strict < is the id
// tie-break.
func (x *Index) offer(h *heap, k, i int, d float32) {
	if len(h.items) < k || d < h.items[0].Dist {
		h.pushBounded(engine.Result{ID: engine.ID(i), Dist: d}, k)
	}
}

// scanBlock is the number of rows the serial scan scores per slab-kernel
// call: 1 KB of distances, on the stack.
const scanBlock = 256

// distRows sets d[j] to the distance of row i+j (len(d) a multiple of
// four), bit-identical to dist4 of the same rows.
func (x *Index) distRows(q []float32, i int, d []float32) {
	s := x.m.Stride
	data := x.m.Data[i*s : (i+len(d)-1)*s+x.m.Dim]
	if x.cfg.Metric == engine.L2 {
		f32.L2SqRows(q, data, s, d)
	} else {
		f32.DotRows(q, data, s, d)
	}
	x.finish(i, d)
}

// distRows3 is distRows for three queries, packed at q[j*Dim:], into
// d[j*len(d)/3:]: one slab-kernel call that loads each row once for the
// three (f32.DotRowsQ3 / L2SqRowsQ3), bit-identical to distRows.
func (x *Index) distRows3(q []float32, i int, d []float32) {
	s, dim, n := x.m.Stride, x.m.Dim, len(d)/3
	data := x.m.Data[i*s : (i+n-1)*s+dim]
	if x.cfg.Metric == engine.L2 {
		f32.L2SqRowsQ3(q, dim, dim, data, s, n, d, n)
	} else {
		f32.DotRowsQ3(q, dim, dim, data, s, n, d, n)
	}
	for j := range 3 {
		x.finish(i, d[j*n:(j+1)*n])
	}
}

// finish turns the kernel's values for rows i… into distances: −⟨q, x⟩
// under Dot, 1 − ⟨q, x⟩/‖x‖ under Cosine (the expressions of dist4).
func (x *Index) finish(i int, d []float32) {
	switch x.cfg.Metric {
	case engine.Dot:
		for j := range d {
			d[j] = -d[j]
		}
	case engine.Cosine:
		inv := x.invNorm[i : i+len(d)]
		for j := range d {
			d[j] = 1 - d[j]*inv[j]
		}
	}
}

// dist4 scores four rows against the prepared query.
func (x *Index) dist4(q []float32, ids [4]int) (float32, float32, float32, float32) {
	r := func(i int) []float32 { return x.m.Data[i*x.m.Stride : i*x.m.Stride+x.m.Dim] }
	a, b, c, d := r(ids[0]), r(ids[1]), r(ids[2]), r(ids[3])
	switch x.cfg.Metric {
	case engine.Dot:
		p, s, t, u := f32.Dot4(q, a, b, c, d)
		return -p, -s, -t, -u
	case engine.L2:
		return f32.L2Sq4(q, a, b, c, d)
	default:
		p, s, t, u := f32.Dot4(q, a, b, c, d)
		inv := x.invNorm
		return 1 - p*inv[ids[0]], 1 - s*inv[ids[1]], 1 - t*inv[ids[2]], 1 - u*inv[ids[3]]
	}
}

// SearchIDs is exact search restricted to an explicit id list (the matching
// set of a filter, as the article's filtered truth is computed). Ids may come
// in any order; an id out of range is an error naming it; duplicates count
// once.
func (x *Index) SearchIDs(q []float32, k int, ids []engine.ID) ([]engine.Result, engine.SearchStats, error) {
	q, err := x.prepare(q, k)
	if err != nil {
		return nil, engine.SearchStats{}, err
	}
	for j, id := range ids {
		if int(id) >= x.m.N {
			return nil, engine.SearchStats{}, fmt.Errorf("flat: ids[%d] = %d, index has %d rows: %w", j, id, x.m.N, engine.ErrNotFound)
		}
	}
	var h heap
	var st engine.SearchStats
	var seen map[engine.ID]struct{}
	if !slices.IsSorted(ids) {
		seen = make(map[engine.ID]struct{}, len(ids))
	}
	var blk [4]int
	n := 0
	flush := func() {
		var d [4]float32
		d[0], d[1], d[2], d[3] = x.dist4(q, blk)
		for j := 0; j < n; j++ {
			h.pushBounded(engine.Result{ID: engine.ID(blk[j]), Dist: d[j]}, k)
		}
		n = 0
	}
	for j, id := range ids {
		if seen != nil {
			if _, dup := seen[id]; dup {
				continue
			}
			seen[id] = struct{}{}
		} else if j > 0 && ids[j-1] == id {
			continue
		}
		st.DistComps++
		blk[n] = int(id)
		n++
		if n == 4 {
			flush()
		}
	}
	if n > 0 {
		for j := n; j < 4; j++ {
			blk[j] = blk[0]
		}
		flush()
	}
	return h.sorted(), st, nil
}

// SearchBatch runs Search for every row of queries on Workers goroutines
// and returns one result list per query, in the order of the rows, each
// exactly what Search returns for that row. Without a filter, queries go
// in blocks of up to batchBlock per goroutine and each block streams the
// slab once: every chunk of batchRows rows is scored against all the
// block's queries, three at a time, while it sits in L1, so memory traffic
// per query falls by the block size. The first bad query stops the batch
// with an error naming it. It consults engine.Context(), as
// SearchBatchContext does its ctx.
func (x *Index) SearchBatch(queries *vec.Matrix, k int, allow engine.Filter) ([][]engine.Result, error) {
	return x.SearchBatchContext(engine.Context(), queries, k, allow)
}

// batchBlock is the number of queries that share one pass over the slab
// in SearchBatch, and batchRows the rows of a chunk: a 16-row chunk of 384
// dims (24 KB) stays in L1 while every query of the block is scored on it.
// Measured on the 30000 × 384 slab (thread CPU time per query, one
// goroutine, Zen-class AVX-512): one query alone 1.18 ms; blocks of 16 / 32
// / 64 queries with 16-row chunks 0.26 / 0.24 / 0.23 ms; with 64-row chunks
// (L2) 0.52 / 0.50 ms, 256-row chunks 0.54 / 0.52 ms. 32 queries gets
// most of the gain while a batch of 64 still feeds two workers.
const (
	batchBlock = 32
	batchRows  = 16
)

// SearchBatchContext is SearchBatch that stops handing out blocks of
// queries once ctx is done: the blocks already running finish and the
// error wraps ctx.Err(), naming how many queries were answered.
func (x *Index) SearchBatchContext(ctx context.Context, queries *vec.Matrix, k int, allow engine.Filter) ([][]engine.Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if queries == nil {
		return nil, fmt.Errorf("flat: nil query matrix: %w", engine.ErrInvalidArgument)
	}
	if queries.Dim != x.m.Dim {
		return nil, fmt.Errorf("flat: queries have %d dims, index has %d: %w", queries.Dim, x.m.Dim, engine.ErrDimension)
	}
	out := make([][]engine.Result, queries.N)
	workers := max(1, x.cfg.Workers)
	block := 1
	if allow == nil {
		block = max(1, min(batchBlock, (queries.N+workers-1)/workers))
	}
	done, err := batch.Run(ctx, queries.N, workers, block, func(_, lo, hi int) error {
		qs := make([][]float32, hi-lo)
		for i := lo; i < hi; i++ {
			q, err := x.prepare(queries.Row(i), k)
			if err != nil {
				return fmt.Errorf("query %d: %w", i, err)
			}
			qs[i-lo] = q
		}
		if allow != nil || len(qs) == 1 {
			for j, q := range qs {
				out[lo+j], _, _ = x.search(q, k, allow, 1)
			}
			return nil
		}
		for j, h := range x.scanBlock(qs, k) {
			out[lo+j] = h.sorted()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if done < queries.N {
		return nil, fmt.Errorf("flat: %w", engine.Stopped(ctx, "exact search of a batch", done, queries.N))
	}
	return out, nil
}

// scanBlock is scanRange over all rows, without a filter, for several
// queries at once: each chunk of batchRows rows is scored against every
// query before the next chunk is read. Each query sees the same distances
// in the same row order as its own serial scan, so its heap ends the same.
func (x *Index) scanBlock(qs [][]float32, k int) []heap {
	n, dim := x.m.N, x.m.Dim
	hs := make([]heap, len(qs))
	worst := make([]float32, len(qs))
	packed := make([]float32, len(qs)*dim) // the queries, contiguous for distRows3
	for j := range hs {
		hs[j].items = make([]engine.Result, 0, min(k, n))
		worst[j] = float32(math.Inf(1))
		copy(packed[j*dim:], qs[j])
	}
	offer := func(j, i int, d []float32) {
		h, w := &hs[j], worst[j]
		for u, du := range d {
			if du < w || len(h.items) < k {
				x.offer(h, k, i+u, du)
				if len(h.items) == k {
					w = h.items[0].Dist
				}
			}
		}
		worst[j] = w
	}
	var buf [3 * batchRows]float32
	i := 0
	for i+4 <= n {
		nb := min(batchRows, (n-i)&^3)
		j := 0
		for ; j+3 <= len(qs); j += 3 {
			d := buf[:3*nb]
			x.distRows3(packed[j*dim:(j+3)*dim], i, d)
			for u := range 3 {
				offer(j+u, i, d[u*nb:(u+1)*nb])
			}
		}
		for ; j < len(qs); j++ {
			d := buf[:nb]
			x.distRows(qs[j], i, d)
			offer(j, i, d)
		}
		i += nb
	}
	for ; i < n; i++ {
		for j, q := range qs {
			x.offer(&hs[j], k, i, x.dist(q, i))
		}
	}
	return hs
}

// AllCores returns engine.Cores(), the Workers value that uses every core.
func AllCores() int { return engine.Cores() }

// Stream reads every byte of m's slab once with the widest loads this CPU
// has (the f32 dot-product kernel over 16 KB chunks, each chunk against
// itself, so the second operand is an L1 hit). Its time is the
// memory-bandwidth floor of one exact search over m: an exact search must
// read every row once. The returned checksum only keeps the compiler from
// removing the loop.
func Stream(m *vec.Matrix) uint64 {
	if m == nil || len(m.Data) == 0 {
		return 0
	}
	n := min(m.N*m.Stride, len(m.Data))
	const chunk = 4096 // floats
	var s float32
	for i := 0; i < n; i += chunk {
		c := m.Data[i:min(i+chunk, n)]
		s += f32.Dot(c, c)
	}
	return uint64(math.Float32bits(s))
}

// streamSink keeps Stream's checksum alive across timed passes.
var streamSink uint64

// StreamTime returns the fastest of reps timed [Stream] passes over m (reps
// < 1 counts as 1): the time to read the slab from memory once.
func StreamTime(m *vec.Matrix, reps int) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range max(reps, 1) {
		t0 := time.Now()
		streamSink += Stream(m)
		best = min(best, time.Since(t0))
	}
	return best
}
