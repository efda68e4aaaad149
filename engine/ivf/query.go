package ivf

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// DefaultNprobe is the number of lists a Query probes when the request
// leaves Breadth at 0: FAISS's IndexIVF default (nprobe = 1).
const DefaultNprobe = 1

var _ engine.Index = (*Index)(nil)

// Query implements [engine.Index]: r.Breadth is nprobe (0: DefaultNprobe)
// and r.Filter is applied while the lists are scanned. The scan is
// iterative ([SearchOptions.Iterative]): lists keep being probed past
// nprobe until r.K allowed candidates are found, so a selective filter
// never silently returns fewer results than exist. r.K above Len is
// clamped (up to r.K results, as the contract says). Without a rescorer,
// results carry the list distances: exact for float32 lists, estimates
// for codes. Float32 lists offer their (exact) distances to r.Bound, as
// an exactly searched segment does; code estimates are not offered, since
// a bound built from estimates could prune a true neighbour elsewhere.
func (ix *Index) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("ivf: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("ivf: query: Params of type %T (an IVF index takes none): %w", r.Params, engine.ErrInvalidArgument)
	}
	if ix.lists == nil || ix.n == 0 {
		return nil, engine.SearchStats{}, fmt.Errorf("ivf: query: %w", engine.ErrEmpty)
	}
	// The vector is checked here so its error reads "ivf: query: …" once
	// (SearchWith checks it again, for its own callers).
	if err := engine.CheckVector(q, ix.dim, ix.cfg.Metric); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("ivf: query: %w", err)
	}
	np := r.Breadth
	if np == 0 {
		np = DefaultNprobe
	}
	res, st, err := ix.SearchWith(q, SearchOptions{K: min(r.K, ix.n), Nprobe: np, Filter: r.Filter, Iterative: true})
	ss := st.SearchStats()
	if err != nil {
		return nil, ss, fmt.Errorf("ivf: query: %w", err)
	}
	if r.Bound != nil && ix.cfg.Bits == 0 && len(res) > 0 {
		ds := make([]float32, len(res))
		for i, h := range res {
			ds[i] = h.Dist
		}
		r.Bound.Offer(ds...)
	}
	return res, ss, nil
}

// SearchStats maps the query's counters onto the engine's: distance
// computations are the centroids ranked, the list entries scored and the
// candidates rescored; Hops the lists probed; Visited the list entries
// scanned.
func (s Stats) SearchStats() engine.SearchStats {
	return engine.SearchStats{
		DistComps: s.CentroidComp + s.Scored + s.Rescore.Candidates,
		Hops:      s.ListsProbed,
		Visited:   s.Scanned,
	}
}
