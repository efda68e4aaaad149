package profile

import "fmt"

// Status is what a store reports about its documents at one moment.
type Status struct {
	Kind     Kind
	Docs     int // acknowledged documents
	Visible  int // documents a search sees
	Indexed  int // documents in a graph (Qdrant's indexed_vectors_count)
	Segments int
	// Ready is the store's own completion signal: pgvector always (the
	// transaction committed), Redis percent_indexed = 1, Qdrant status
	// green (no segment being indexed, and no more segments than
	// default_segment_number), Elasticsearch every
	// acknowledged document refreshed.
	Ready bool
}

// Status returns the store's counters now.
func (s *Store) Status() Status {
	st := Status{Kind: s.c.p.Kind, Docs: s.Len(), Visible: s.Visible(), Indexed: s.Indexed(), Segments: len(s.Segments())}
	switch st.Kind {
	case Redis:
		st.Ready = st.Indexed == st.Docs
	case Qdrant:
		// Green: the indexing optimizer idle and the merge optimizer done.
		st.Ready = !s.c.coll.Indexing() && st.Segments <= s.c.p.Segments
	case Elasticsearch:
		st.Ready = st.Visible == st.Docs
	default:
		st.Ready = true
	}
	return st
}

// String prints the status the way the live service reports it: pgvector
// a count, Redis FT.INFO, Qdrant the collection info, Elasticsearch
// _cat/indices.
func (st Status) String() string {
	switch st.Kind {
	case PGVector:
		return fmt.Sprintf("SELECT count(*) → %d", st.Visible)
	case Redis:
		pct := 1.0
		if st.Docs > 0 {
			pct = float64(st.Indexed) / float64(st.Docs)
		}
		return fmt.Sprintf("FT.INFO num_docs %d percent_indexed %.3g", st.Docs, pct)
	case Qdrant:
		status := "green"
		if !st.Ready {
			status = "yellow"
		}
		return fmt.Sprintf("status=%s points_count=%d segments_count=%d indexed_vectors_count=%d", status, st.Docs, st.Segments, st.Indexed)
	case Elasticsearch:
		return fmt.Sprintf("docs.count=%d (%d indexed, not yet refreshed: %d)", st.Visible, st.Docs, st.Docs-st.Visible)
	}
	return fmt.Sprintf("%v: %d documents", st.Kind, st.Docs)
}
