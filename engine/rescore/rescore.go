package rescore

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

// Options choose how candidates are fetched.
type Options struct {
	// Concurrency is the number of goroutines issuing reads at once;
	// 0 or 1 reads sequentially.
	Concurrency int
}

// String prints the options.
func (o Options) String() string {
	if o.Concurrency <= 1 {
		return "rescore{reads:sequential}"
	}
	return fmt.Sprintf("rescore{reads:concurrent(%d)}", o.Concurrency)
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Concurrency < 0 || o.Concurrency > 4096 {
		return fmt.Errorf("rescore: concurrency %d out of range 0…4096: %w", o.Concurrency, engine.ErrInvalidArgument)
	}
	return nil
}

// Stats describe one Rescore call.
type Stats struct {
	Candidates int           // candidates scored (after removing duplicate ids)
	IO         store.IOStats // reads of full vectors; cache counters only for files
	Duration   time.Duration // wall time of the call
}

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.Candidates += o.Candidates
	s.IO.Add(o.IO)
	s.Duration += o.Duration
}

// counted is a source that attributes reads to a caller's counters
// (engine/store.File).
type counted interface {
	ReadVector(dst []float32, id engine.ID, st *store.IOStats) ([]float32, error)
}

// batched is a source that reads many vectors in one call
// (engine/store.File.ReadVectors: rows copied from its mapping, one
// page-cache probe per cluster of rows).
type batched interface {
	ReadVectors(dst []float32, ids []engine.ID, st *store.IOStats) error
}

// batchLen is the number of candidates read per ReadVectors call.
const batchLen = 64

// Rescorer re-ranks candidates against one source under one metric.
type Rescorer struct {
	src     engine.VectorSource
	slab    *Slab // non-nil: score rows in place, no copy
	cnt     counted
	batch   batched
	metric  engine.Metric
	dist4   vec.Dist4Func
	opt     Options
	bufs    sync.Pool // *[]float32 of Dim
	blocks  sync.Pool // *block, for batched sources
	scratch sync.Pool // *scratch
}

// block is the scratch of one batched read.
type block struct {
	ids  []engine.ID
	vecs []float32
}

// New binds a source and a metric. Under Cosine the source's vectors must
// be unit-normalised (engine/store writes them so).
func New(src engine.VectorSource, metric engine.Metric, opt Options) (*Rescorer, error) {
	if src == nil {
		return nil, fmt.Errorf("rescore: nil vector source: %w", engine.ErrInvalidArgument)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("rescore: unknown metric %d: %w", metric, engine.ErrInvalidArgument)
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	r := &Rescorer{src: src, metric: metric, dist4: vec.Distance4(metric), opt: opt}
	r.slab, _ = src.(*Slab)
	r.cnt, _ = src.(counted)
	r.batch, _ = src.(batched)
	dim := src.Dim()
	r.bufs.New = func() any { b := make([]float32, dim); return &b }
	r.scratch.New = func() any { return new(scratch) }
	r.blocks.New = func() any { return &block{ids: make([]engine.ID, batchLen), vecs: make([]float32, batchLen*dim)} }
	return r, nil
}

// Source returns the bound source.
func (r *Rescorer) Source() engine.VectorSource { return r.src }

// Options returns the bound options.
func (r *Rescorer) Options() Options { return r.opt }

// Rescore computes the exact distance of every candidate to q and returns
// the k nearest in increasing (distance, id) order, appended to dst[:0].
// Duplicate candidate ids are scored once.
func (r *Rescorer) Rescore(dst []engine.Result, q []float32, cands []engine.Result, k int) ([]engine.Result, Stats, error) {
	start := time.Now()
	var st Stats
	if err := engine.CheckK(k); err != nil {
		return dst[:0], st, err
	}
	if len(q) != r.src.Dim() {
		return dst[:0], st, fmt.Errorf("rescore: query has %d components, vectors have %d: %w", len(q), r.src.Dim(), engine.ErrDimension)
	}
	// Drop duplicate ids (spilled IVF assignments) before reading, and
	// read in ascending id order (file offsets): the ids alone are sorted
	// (an ordered sort of uint32, several times faster than sorting the
	// results with a comparison function).
	sc := r.scratch.Get().(*scratch)
	defer r.scratch.Put(sc)
	ids := sc.ids[:0]
	for _, c := range cands {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	sc.ids = ids
	out := sc.out[:0]
	for _, id := range ids {
		out = append(out, engine.Result{ID: id})
	}
	sc.out = out
	n := len(out)
	st.Candidates = n
	for _, c := range out {
		if int(c.ID) >= r.src.Len() {
			return dst[:0], st, fmt.Errorf("rescore: candidate id %d beyond the %d vectors of the source: %w", c.ID, r.src.Len(), engine.ErrNotFound)
		}
	}
	var err error
	switch {
	case r.slab != nil:
		m := r.slab.M
		r.scoreRows(q, out, func(i int) []float32 { return m.Row(int(out[i].ID)) })
		st.IO.Reads = int64(n)
		st.IO.Bytes = int64(n) * int64(4*m.Dim)
	case r.batch != nil && (r.opt.Concurrency <= 1 || n <= 1):
		err = r.scoreBatched(q, out, &st.IO)
	case r.opt.Concurrency <= 1 || n <= 1:
		err = r.scoreRange(q, out, &st.IO)
	default:
		err = r.scoreConcurrent(q, out, &st.IO)
	}
	if err != nil {
		return dst[:0], st, err
	}
	dst = nearest(dst[:0], out, k)
	st.Duration = time.Since(start)
	return dst, st, nil
}

// scratch is one Rescore call's working storage.
type scratch struct {
	ids []engine.ID
	out []engine.Result
}

func byDistID(a, b engine.Result) int {
	if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// nearest appends to dst the k first of scored in increasing (distance,
// id) order. With k small against len(scored) (rescoring ⌈k·oversample⌉
// candidates) it keeps a sorted array of the k best seen, which most
// candidates leave after one comparison with its last entry, instead of
// sorting every candidate.
func nearest(dst, scored []engine.Result, k int) []engine.Result {
	if 4*k >= len(scored) {
		slices.SortFunc(scored, byDistID)
		return append(dst, scored[:min(k, len(scored))]...)
	}
	best := append(dst, scored[:k]...)
	top := best[len(best)-k:]
	slices.SortFunc(top, byDistID)
	for _, c := range scored[k:] {
		last := top[k-1]
		if c.Dist > last.Dist || (c.Dist == last.Dist && c.ID > last.ID) {
			continue
		}
		i := k - 1
		for i > 0 && byDistID(c, top[i-1]) < 0 {
			top[i] = top[i-1]
			i--
		}
		top[i] = c
	}
	return best
}

func (r *Rescorer) read(buf []float32, id engine.ID, io *store.IOStats) ([]float32, error) {
	var v []float32
	var err error
	if r.cnt != nil {
		v, err = r.cnt.ReadVector(buf, id, io)
	} else if v, err = r.src.Vector(buf, id); err == nil {
		io.Reads++
		io.Bytes += int64(4 * len(buf))
	}
	if err == nil && len(v) != len(buf) {
		// A misbehaving source must not reach the unchecked kernels.
		return nil, fmt.Errorf("rescore: source returned %d components for vector %d, want %d: %w", len(v), id, len(buf), engine.ErrDimension)
	}
	return v, err
}

func (r *Rescorer) scoreRange(q []float32, out []engine.Result, io *store.IOStats) error {
	bp := r.bufs.Get().(*[]float32)
	defer r.bufs.Put(bp)
	for i := range out {
		v, err := r.read(*bp, out[i].ID, io)
		if err != nil {
			return fmt.Errorf("rescore: candidate %d: %w", out[i].ID, err)
		}
		out[i].Dist = r.one(q, v)
	}
	return nil
}

// scoreRows sets out[i].Dist to the distance of q to row(i), four rows per
// kernel call (vec.Distance4): four rows scattered through RAM are then
// fetched together rather than one after the other.
func (r *Rescorer) scoreRows(q []float32, out []engine.Result, row func(i int) []float32) {
	i := 0
	for ; i+4 <= len(out); i += 4 {
		out[i].Dist, out[i+1].Dist, out[i+2].Dist, out[i+3].Dist = r.dist4(q, row(i), row(i+1), row(i+2), row(i+3))
	}
	for ; i < len(out); i++ {
		out[i].Dist = r.one(q, row(i))
	}
}

// one is the distance of q to v as the four-row kernel computes it. The
// four-row and one-row kernels may round the last bit differently; scoring
// every candidate with the four-row kernel gives a candidate the same
// distance whatever its place in the list and whichever path read it (RAM,
// batched or concurrent file reads), so the results do not depend on
// either.
func (r *Rescorer) one(q, v []float32) float32 {
	d, _, _, _ := r.dist4(q, v, v, v, v)
	return d
}

// scoreBatched reads the candidates (in ascending id order) batchLen at a
// time with one ReadVectors call each, and scores them.
func (r *Rescorer) scoreBatched(q []float32, out []engine.Result, io *store.IOStats) error {
	b := r.blocks.Get().(*block)
	defer r.blocks.Put(b)
	dim := len(q)
	for lo := 0; lo < len(out); lo += batchLen {
		part := out[lo:min(lo+batchLen, len(out))]
		ids := b.ids[:len(part)]
		for i := range part {
			ids[i] = part[i].ID
		}
		vs := b.vecs[:len(part)*dim]
		if err := r.batch.ReadVectors(vs, ids, io); err != nil {
			return fmt.Errorf("rescore: candidates %d…%d: %w", ids[0], ids[len(ids)-1], err)
		}
		r.scoreRows(q, part, func(i int) []float32 { return vs[i*dim : (i+1)*dim : (i+1)*dim] })
	}
	return nil
}

// scoreConcurrent has up to Concurrency goroutines take candidates one at a
// time, so that many reads are in flight together.
func (r *Rescorer) scoreConcurrent(q []float32, out []engine.Result, io *store.IOStats) error {
	workers := min(r.opt.Concurrency, len(out))
	var next atomic.Int64
	var wg sync.WaitGroup
	ios := make([]store.IOStats, workers)
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			bp := r.bufs.Get().(*[]float32)
			defer r.bufs.Put(bp)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(out) || errs[w] != nil {
					return
				}
				v, err := r.read(*bp, out[i].ID, &ios[w])
				if err != nil {
					errs[w] = fmt.Errorf("rescore: candidate %d: %w", out[i].ID, err)
					return
				}
				out[i].Dist = r.one(q, v)
			}
		}(w)
	}
	wg.Wait()
	for w := range ios {
		io.Add(ios[w])
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// DefaultConcurrency is a reasonable in-flight read count for concurrent
// rescoring: enough to cover device latency, bounded by the machine.
func DefaultConcurrency() int { return max(16, 4*engine.Cores()) }

// Slab serves vectors from a matrix in RAM. Rescoring from a Slab reads
// rows in place; its IO counters count vectors and bytes touched.
type Slab struct{ M *vec.Matrix }

// NewSlab wraps m.
func NewSlab(m *vec.Matrix) *Slab { return &Slab{M: m} }

// Dim returns the vectors' dimension.
func (s *Slab) Dim() int { return s.M.Dim }

// Len returns the number of vectors.
func (s *Slab) Len() int { return s.M.N }

// Vector copies row id into dst.
func (s *Slab) Vector(dst []float32, id engine.ID) ([]float32, error) {
	if len(dst) != s.M.Dim {
		return nil, fmt.Errorf("rescore: destination has %d components, slab has %d: %w", len(dst), s.M.Dim, engine.ErrDimension)
	}
	if int(id) >= s.M.N {
		return nil, fmt.Errorf("rescore: vector %d, slab holds %d: %w", id, s.M.N, engine.ErrNotFound)
	}
	copy(dst, s.M.Row(int(id)))
	return dst, nil
}
