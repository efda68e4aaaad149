package filtered

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
)

var _ engine.Index = (*Collection)(nil)

// Dim returns the vectors' dimension.
func (c *Collection) Dim() int { return c.vectors.Dim }

// Query implements [engine.Index] by running the collection's [Plan]
// (Options.Plan; by default the in-graph strategy over a graph, exact
// search without one): r.K is the request's K, r.Breadth replaces the
// plan's Params.Ef when set, and r.Filter is the filter. A
// *filter.Compiled filter is used as Search uses it (cloned first, since
// a compiled filter counts its payload reads and Query must be safe for
// concurrent use; it must be compiled against this collection). Any other
// engine.Filter is an allow-list: an *engine.Bitset is a known matching
// set (exact cardinality, ids listed from its bits, as a filter over
// payload indexes), any other filter an opaque predicate asked per id
// (cardinality unknown, {0, N/2, N} as Qdrant estimates a filter without
// an index; the strategies that need the matching set ask it of every
// id). Results are sorted nearest first, which pgvector's relaxed_order
// alone does not promise. r.Bound is ignored. The stats are [Stats]'s
// engine counters.
func (c *Collection) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	if err := r.Validate(); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("filtered: query: %w", err)
	}
	if r.Params != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("filtered: query: Params of type %T (a filtered collection takes none): %w", r.Params, engine.ErrInvalidArgument)
	}
	if c.vectors.N == 0 {
		return nil, engine.SearchStats{}, fmt.Errorf("filtered: query: %w", engine.ErrEmpty)
	}
	// Checked here so that the error reads "filtered: query: …" once.
	if err := engine.CheckVector(q, c.vectors.Dim, c.metric); err != nil {
		return nil, engine.SearchStats{}, fmt.Errorf("filtered: query: %w", err)
	}
	p := c.plan.Params
	if r.Breadth > 0 {
		p.Ef = r.Breadth
	}
	res, st, err := c.run(q, r.K, c.matcher(r.Filter), c.plan.Strategy, p)
	if err != nil {
		return nil, st.SearchStats, fmt.Errorf("filtered: query: %w", err)
	}
	// The contract returns nearest first; pgvector's relaxed_order emits
	// rows only approximately sorted (a later batch can hold closer rows),
	// and pgvector's documentation sorts them again in a materialized CTE,
	// which this is. The rows are the same; only their order changes.
	return sortedByDistID(res), st.SearchStats, nil
}

// matcher is what the strategies ask of a filter; *filter.Compiled is
// one, allowList adapts any other engine.Filter.
type matcher interface {
	Allowed(id engine.ID) bool
	// Estimate is the matching set's cardinality, or bounds on it.
	Estimate() filter.Cardinality
	// IDs lists the matching ids in increasing order.
	IDs() []engine.ID
	// Indexed reports whether the matching set is known without asking
	// each id (so IDs is cheap).
	Indexed() bool
	PayloadChecks() int
	ResetCounters()
}

func (c *Collection) matcher(f engine.Filter) matcher {
	switch f := f.(type) {
	case nil:
		return nil
	case *filter.Compiled:
		if f == nil {
			return nil
		}
		return f.Clone()
	case *engine.Bitset:
		if f == nil {
			return nil
		}
		a := &allowList{f: f, n: c.vectors.N, indexed: true}
		f.ForEach(func(id engine.ID) {
			if int(id) < a.n {
				a.ids = append(a.ids, id)
			}
		})
		a.listed = true
		m := len(a.ids)
		a.est = filter.Cardinality{Min: m, Exp: m, Max: m}
		return a
	}
	return &allowList{f: f, n: c.vectors.N, est: filter.Cardinality{Min: 0, Exp: c.vectors.N / 2, Max: c.vectors.N}}
}

// allowList is a plain engine.Filter seen as a matcher. It reads no
// stored payloads (PayloadChecks stays 0).
type allowList struct {
	f       engine.Filter
	n       int // documents in the collection
	indexed bool
	listed  bool
	ids     []engine.ID
	est     filter.Cardinality
}

func (a *allowList) Allowed(id engine.ID) bool    { return int(id) < a.n && a.f.Allowed(id) }
func (a *allowList) Estimate() filter.Cardinality { return a.est }
func (a *allowList) Indexed() bool                { return a.indexed }
func (a *allowList) PayloadChecks() int           { return 0 }
func (a *allowList) ResetCounters()               {}

// IDs asks every id once and remembers the answer for the query.
func (a *allowList) IDs() []engine.ID {
	if !a.listed {
		for id := 0; id < a.n; id++ {
			if a.f.Allowed(engine.ID(id)) {
				a.ids = append(a.ids, engine.ID(id))
			}
		}
		a.listed = true
	}
	return a.ids
}
