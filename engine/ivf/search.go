package ivf

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/topk"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
)

// SearchOptions describe one query.
type SearchOptions struct {
	K int // results wanted; 1 ≤ K ≤ Len()
	// Nprobe is the number of lists scanned, nearest centroids first
	// (FAISS nprobe, default 1). Ignored when VisitPercentage > 0.
	Nprobe int
	// VisitPercentage (0–100] scans lists in centroid order until that
	// share of the indexed vectors has been visited (Elasticsearch's
	// visit_percentage for bbq_disk); at least one list is scanned.
	VisitPercentage float64
	// Oversample gathers ⌈K·Oversample⌉ candidates before rescoring
	// (Elasticsearch rescore_vector.oversample); values < 1 mean 1.
	Oversample float64
	// Rescorer, when set, re-ranks the candidates with full-precision
	// vectors (RAM or disk). Without it results carry the list distances:
	// exact for float32 lists, estimates for codes.
	Rescorer *rescore.Rescorer
	// Filter, when set, keeps only allowed documents (applied while
	// scanning, before the candidate bound).
	Filter engine.Filter
	// Iterative keeps probing lists, nearest centroids first, past Nprobe
	// until ⌈K·Oversample⌉ candidates have been gathered or every list has
	// been scanned, as pgvector 0.8's ivfflat.iterative_scan (with
	// ivfflat.max_probes left at all lists) does: a selective filter, or
	// lists shorter than K, then still give min(K, allowed) results
	// instead of silently fewer. Ignored when VisitPercentage > 0.
	Iterative bool
}

// String prints the options.
func (o SearchOptions) String() string {
	by := fmt.Sprintf("nprobe=%d", o.Nprobe)
	if o.VisitPercentage > 0 {
		by = fmt.Sprintf("visit=%g%%", o.VisitPercentage)
	}
	rs := "none"
	if o.Rescorer != nil {
		rs = o.Rescorer.Options().String()
	}
	if o.Iterative && o.VisitPercentage <= 0 {
		by += " iterative"
	}
	return fmt.Sprintf("search{k=%d %s oversample=%g rescore=%s}", o.K, by, o.Oversample, rs)
}

// Stats are one query's counters.
type Stats struct {
	ListsProbed  int // posting lists scanned
	Scanned      int // list entries scanned (vectors or codes)
	Scored       int // list entries whose distance was computed
	Filtered     int // entries skipped because the filter refused them
	Duplicates   int // spilled entries skipped because already scored
	Candidates   int // candidates handed to the rescorer (or returned)
	Rescore      rescore.Stats
	CentroidComp int           // centroid distance computations
	ListIO       store.IOStats // reads of posting lists (lists on disk only)
}

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.ListsProbed += o.ListsProbed
	s.Scanned += o.Scanned
	s.Scored += o.Scored
	s.Filtered += o.Filtered
	s.Duplicates += o.Duplicates
	s.Candidates += o.Candidates
	s.Rescore.Add(o.Rescore)
	s.CentroidComp += o.CentroidComp
	s.ListIO.Add(o.ListIO)
}

type searcher struct {
	q       []float32
	order   []engine.Result // centroids by distance
	heap    topk.MaxHeap    // float lists' candidates
	res     reservoir       // quantized lists' candidates
	visited *topk.Visited
	qcode   []byte
	qowner  *quant.OSQ // quantizer qcode was encoded for
	qenc    *quant.QueryEncoder
	dists   []float32 // a block of code distances
	cands   []engine.Result
	// buffers for lists read from disk
	listBuf []byte
	ids     []engine.ID
	fvec    []float32
	view    list
}

func (ix *Index) getSearcher() *searcher {
	if s, ok := ix.pool.Get().(*searcher); ok {
		return s
	}
	s := &searcher{q: make([]float32, ix.dim), order: make([]engine.Result, ix.cents.N)}
	if ix.cfg.Spill {
		s.visited = topk.NewVisited(ix.n)
	}
	if ix.cfg.Bits > 0 {
		s.qcode = make([]byte, ix.qcodeSz)
		s.dists = make([]float32, 256)
		var err error
		if s.qenc, err = quant.NewQueryEncoder(ix.dim, ix.cfg.QueryIters); err != nil { // config validated: cannot happen
			panic("ivf: " + err.Error())
		}
	}
	return s
}

// Search returns the k nearest vectors found in the nprobe nearest lists.
func (ix *Index) Search(q []float32, k, nprobe int) ([]engine.Result, Stats, error) {
	return ix.SearchWith(q, SearchOptions{K: k, Nprobe: nprobe})
}

// SearchVisit returns the k nearest vectors found visiting visitPercentage
// percent of the indexed vectors, nearest lists first.
func (ix *Index) SearchVisit(q []float32, k int, visitPercentage float64) ([]engine.Result, Stats, error) {
	return ix.SearchWith(q, SearchOptions{K: k, VisitPercentage: visitPercentage})
}

// SearchWith runs one query with full options.
func (ix *Index) SearchWith(q []float32, o SearchOptions) ([]engine.Result, Stats, error) {
	var st Stats
	if ix.lists == nil {
		return nil, st, fmt.Errorf("ivf: index trained but not filled (call Add): %w", engine.ErrEmpty)
	}
	if err := engine.CheckK(o.K); err != nil {
		return nil, st, err
	}
	if o.K > ix.n {
		return nil, st, fmt.Errorf("ivf: k = %d exceeds the %d indexed vectors: %w", o.K, ix.n, engine.ErrInvalidArgument)
	}
	if err := engine.CheckVector(q, ix.dim, ix.cfg.Metric); err != nil {
		return nil, st, fmt.Errorf("ivf: query: %w", err)
	}
	if o.VisitPercentage < 0 || o.VisitPercentage > 100 || math.IsNaN(o.VisitPercentage) {
		return nil, st, fmt.Errorf("ivf: visit percentage %g outside (0, 100]: %w", o.VisitPercentage, engine.ErrInvalidArgument)
	}
	if o.Nprobe < 0 {
		return nil, st, fmt.Errorf("ivf: nprobe %d < 0: %w", o.Nprobe, engine.ErrInvalidArgument)
	}
	if math.IsNaN(o.Oversample) || math.IsInf(o.Oversample, 0) {
		return nil, st, fmt.Errorf("ivf: oversample %g: %w", o.Oversample, engine.ErrInvalidArgument)
	}
	if o.Rescorer != nil {
		if src := o.Rescorer.Source(); src.Dim() != ix.dim || src.Len() < ix.n {
			return nil, st, fmt.Errorf("ivf: rescoring source has %d vectors of %d dims, index has %d of %d: %w", src.Len(), src.Dim(), ix.n, ix.dim, engine.ErrDimension)
		}
	}
	s := ix.getSearcher()
	defer ix.pool.Put(s)
	copy(s.q, q)
	if ix.cfg.Metric == engine.Cosine {
		_ = vec.Normalize(s.q)
	}
	qv := s.q

	nl := ix.cents.N
	ix.rankLists(s.order, qv)
	st.CentroidComp = nl
	var probe []engine.Result
	budget := 0
	np := max(1, min(o.Nprobe, nl))
	iterative := o.Iterative && o.VisitPercentage <= 0
	if o.VisitPercentage > 0 || iterative {
		slices.SortFunc(s.order, byDist)
		probe = s.order
		if o.VisitPercentage > 0 {
			budget = max(1, int(math.Ceil(o.VisitPercentage/100*float64(ix.n))))
		}
	} else {
		// Select the np nearest with a bounded max-heap, then sort them.
		s.heap.Reset()
		for _, r := range s.order {
			s.heap.PushBounded(r, np)
		}
		probe = s.heap.Sorted(s.order[:0])
	}

	kk := o.K
	if o.Rescorer != nil && o.Oversample > 1 {
		kk = min(ix.n, engine.RescoreDepth(o.K, o.Oversample))
	}
	if s.visited != nil {
		s.visited.Reset(ix.n)
	}
	s.heap.Reset()
	s.res.reset(kk)
	s.qowner = nil
	if s.qenc != nil {
		if err := s.qenc.Reset(qv); err != nil {
			return nil, st, fmt.Errorf("ivf: query: %w", err)
		}
	}
	for _, pr := range probe {
		if budget > 0 && st.Scanned >= budget {
			break
		}
		if iterative && st.ListsProbed >= np && s.heap.Len()+s.res.len() >= kk {
			break
		}
		j := int(pr.ID)
		l := &ix.lists[j]
		if ix.disk != nil {
			var err error
			if l, err = ix.readList(s, j, &st); err != nil {
				return nil, st, err
			}
		}
		st.ListsProbed++
		st.Scanned += len(l.ids)
		if ix.cfg.Bits == 0 {
			ix.scanFloat(s, l, qv, kk, o.Filter, &st)
		} else if err := ix.scanCodes(s, j, l, qv, kk, o.Filter, &st); err != nil {
			return nil, st, err
		}
	}
	cands := s.heap.Items()
	if ix.cfg.Bits > 0 {
		cands = s.res.results()
	}
	st.Candidates = len(cands)
	if o.Rescorer == nil {
		slices.SortFunc(cands, byDist)
		out := slices.Clone(cands[:min(o.K, len(cands))])
		return out, st, nil
	}
	// The rescorer reads the candidates in id order and ranks them
	// itself: hand them over unsorted.
	out, rst, err := o.Rescorer.Rescore(nil, qv, cands, o.K)
	st.Rescore = rst
	if err != nil {
		return nil, st, fmt.Errorf("ivf: rescore: %w", err)
	}
	return out, st, nil
}

func (ix *Index) scanFloat(s *searcher, l *list, q []float32, kk int, filter engine.Filter, st *Stats) {
	dim := ix.dim
	metric := ix.cfg.Metric
	row := func(i int) []float32 { return l.vecs[i*dim : i*dim+dim : i*dim+dim] }
	var d [4]float32
	n := len(l.ids)
	for i := 0; i < n; i += 4 {
		m := min(4, n-i)
		st.Scored += m // the kernel scores every row, allowed or not
		// Four rows per kernel call (f32.Dot4 / L2Sq4) when the list has them.
		if m == 4 {
			if metric == engine.L2 {
				d[0], d[1], d[2], d[3] = f32.L2Sq4(q, row(i), row(i+1), row(i+2), row(i+3))
			} else {
				d[0], d[1], d[2], d[3] = f32.Dot4(q, row(i), row(i+1), row(i+2), row(i+3))
			}
		} else {
			for t := 0; t < m; t++ {
				if metric == engine.L2 {
					d[t] = f32.L2Sq(q, row(i+t))
				} else {
					d[t] = f32.Dot(q, row(i+t))
				}
			}
		}
		for t := 0; t < m; t++ {
			id := l.ids[i+t]
			if filter != nil && !filter.Allowed(id) {
				st.Filtered++
				continue
			}
			if s.visited != nil && s.visited.Visit(id) {
				st.Duplicates++
				continue
			}
			dist := d[t]
			switch metric {
			case engine.Dot:
				dist = -dist
			case engine.Cosine:
				dist = 1 - dist
			}
			s.heap.PushBounded(engine.Result{ID: id, Dist: dist}, kk)
		}
	}
}

// scanCodes encodes the query against the list's own centroid (DiskBBQ
// quantizes the query per visited cluster, with quant.QueryEncoder's
// cheap interval) and scores every code. A spilled document keeps the
// estimate of the first list that scored it.
func (ix *Index) scanCodes(s *searcher, j int, l *list, q []float32, kk int, filter engine.Filter, st *Stats) error {
	qz := ix.quants[j]
	if s.qowner != qz { // with GlobalCentroid every list shares one encoding
		if err := s.qenc.Encode(s.qcode, qz); err != nil {
			return fmt.Errorf("ivf: encode query for list %d: %w", j, err)
		}
		s.qowner = qz
	}
	bq, err := qz.Bind(s.qcode)
	if err != nil {
		return fmt.Errorf("ivf: bind query for list %d: %w", j, err)
	}
	cs := ix.codeSize
	if filter == nil && s.visited == nil {
		// Every code is scored: a block at a time through the slab kernel.
		for lo := 0; lo < len(l.ids); lo += len(s.dists) {
			ids := l.ids[lo:min(lo+len(s.dists), len(l.ids))]
			ds := s.dists[:len(ids)]
			if err := bq.Distances(ds, l.codes[lo*cs:(lo+len(ids))*cs]); err != nil {
				return fmt.Errorf("ivf: list %d: %w", j, err)
			}
			st.Scored += len(ids)
			r := &s.res
			for t, id := range ids {
				// Most codes lose to the kk-th best: compare before calling.
				if ds[t] > r.thr {
					continue
				}
				r.offer(id, ds[t])
			}
		}
		return nil
	}
	for i, id := range l.ids {
		if filter != nil && !filter.Allowed(id) {
			st.Filtered++
			continue
		}
		if s.visited != nil && s.visited.Visit(id) {
			st.Duplicates++
			continue
		}
		st.Scored++
		d := bq.Distance(l.codes[i*cs : (i+1)*cs])
		s.res.offer(id, d)
	}
	return nil
}

// byDist orders results by distance, then id (the probe order's tie rule).
func byDist(a, b engine.Result) int {
	if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// rankLists scores every list for the (normalised) query qv into
// order[:Nlist]: ‖c‖² − 2⟨q, c⟩ (squared L2 minus ‖q‖²), or −⟨q, c⟩ under
// Dot (FAISS's IndexFlatIP coarse quantizer; see the package doc, Geometry).
func (ix *Index) rankLists(order []engine.Result, qv []float32) {
	for j := 0; j < ix.cents.N; j++ {
		ip := f32.Dot(qv, ix.cents.Data[j*ix.cents.Stride:j*ix.cents.Stride+ix.dim])
		d := ix.cnorms[j] - 2*ip
		if ix.cfg.Metric == engine.Dot {
			d = -ip
		}
		order[j] = engine.Result{ID: engine.ID(j), Dist: d}
	}
}

// ProbeOrder returns the first n lists a search of q probes, nearest
// centroid first: the lists SearchWith scans with Nprobe n (n is capped at
// Nlist). It is the search's own ranking, for pictures of which cells a
// query reads (lab/picture).
func (ix *Index) ProbeOrder(q []float32, n int) ([]int, error) {
	if err := engine.CheckVector(q, ix.dim, ix.cfg.Metric); err != nil {
		return nil, fmt.Errorf("ivf: query: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("ivf: probe order of %d lists: %w", n, engine.ErrInvalidArgument)
	}
	qv := slices.Clone(q)
	if ix.cfg.Metric == engine.Cosine {
		_ = vec.Normalize(qv)
	}
	order := make([]engine.Result, ix.cents.N)
	ix.rankLists(order, qv)
	slices.SortFunc(order, byDist)
	out := make([]int, min(n, len(order)))
	for i := range out {
		out[i] = int(order[i].ID)
	}
	return out, nil
}

// List returns a copy of the ids in posting list j (primary and spilled
// entries), for lists held in RAM.
func (ix *Index) List(j int) ([]engine.ID, error) {
	if j < 0 || j >= ix.cents.N {
		return nil, fmt.Errorf("ivf: list %d of %d: %w", j, ix.cents.N, engine.ErrInvalidArgument)
	}
	if ix.disk != nil {
		return nil, fmt.Errorf("ivf: list %d lives on disk (UseDiskLists): %w", j, engine.ErrInvalidArgument)
	}
	if ix.lists == nil {
		return nil, fmt.Errorf("ivf: index trained but not filled (call Add): %w", engine.ErrEmpty)
	}
	return slices.Clone(ix.lists[j].ids), nil
}
