package hnsw

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// Trace is what one search did, layer by layer, recorded by the search
// code itself ([Searcher.SearchTrace] runs the same greedyDescend and
// layer-0 loop as [Searcher.Search], with a recorder switched on), so a
// picture drawn from it shows the real walk, not a re-enactment.
//
// The counts agree with the search's statistics: Σ len(Expanded) over the
// layers is Stats.Hops, len(Layers[last].Visited) is Stats.Visited, and
// Σ len(Visited) over all layers is Stats.DistComps (the entry point is
// scored once, before the top layer, and counted in layer 0's Visited).
type Trace struct {
	Entry     engine.ID // the entry point, on the top layer
	EntryDist float32   // its distance to the query
	// Layers from the top layer down to layer 0 (one entry when the graph
	// has a single layer).
	Layers  []LayerTrace
	Results []engine.Result // what Search returns, nearest first
	Stats   engine.SearchStats
}

// LayerTrace is one layer of a [Trace].
type LayerTrace struct {
	Level int
	// Expanded lists the nodes whose neighbour lists were read, in order.
	// On a layer ≥ 1 it is the greedy path (ef = 1, Malkov & Yashunin
	// Alg. 5 lines 1–4): each node is a neighbour of the one before and
	// closer to the query, and the last is where the next layer starts.
	// On layer 0 it is the candidates popped by the beam search (Alg. 2),
	// nearest unexpanded candidate first.
	Expanded []engine.ID
	// Visited lists the nodes scored on this layer, in order. On layers
	// ≥ 1 a node may repeat (the greedy descent keeps no visited set, as
	// hnswlib's searchBaseLayer does not above layer 0); on layer 0 each
	// node appears once, starting with the layer's entry.
	Visited []engine.ID
}

// Path returns the greedy path of the layers ≥ 1 followed by layer 0's
// first expanded node: the hops from the entry point to where the beam
// search starts, top layer first.
func (t *Trace) Path() []engine.ID {
	var p []engine.ID
	for _, l := range t.Layers {
		if l.Level == 0 {
			if len(l.Expanded) > 0 && (len(p) == 0 || p[len(p)-1] != l.Expanded[0]) {
				p = append(p, l.Expanded[0])
			}
			continue
		}
		for _, id := range l.Expanded {
			if len(p) == 0 || p[len(p)-1] != id {
				p = append(p, id)
			}
		}
	}
	return p
}

// Layer returns the trace of level, or false if the search did not pass it.
func (t *Trace) Layer(level int) (LayerTrace, bool) {
	for _, l := range t.Layers {
		if l.Level == level {
			return l, true
		}
	}
	return LayerTrace{}, false
}

// SearchTrace is [Searcher.Search] with a recorder: it returns the
// results together with the hops and scored nodes of every layer. It
// allocates (the trace), so it is for teaching and debugging, not for
// measuring. It records the plain walk: a request with Seeds, Bound or
// Params is refused.
func (s *Searcher) SearchTrace(q []float32, r engine.Request) (*Trace, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("hnsw: %w", err)
	}
	if len(r.Seeds) > 0 || r.Bound != nil || r.Params != nil {
		return nil, fmt.Errorf("hnsw: search trace records the plain walk; Seeds, Bound and Params must be unset: %w", engine.ErrInvalidArgument)
	}
	tr := &Trace{}
	s.tr = tr
	res, err := s.search(q, r.K, r.Breadth, r.Filter, nil, nil, r.Patience)
	s.tr = nil
	if err != nil {
		return nil, err
	}
	tr.Results = append([]engine.Result(nil), res...)
	tr.Stats = s.stats
	return tr, nil
}
