package profile

import (
	"fmt"

	"github.com/veclab/veclab/engine"
)

// ForceMerge merges an Elasticsearch store's segments down to at most
// maxSegments, as POST /<index>/_forcemerge?max_num_segments=N does: it
// refreshes first (the buffered documents become a segment too), then
// rewrites the segments into fewer, each with a new graph built over the
// merged documents (quantized types retrain their quantizer on them, see
// the package's notes on engine/segment). A store already at or under
// maxSegments is left as it is. The other stores have no force merge:
// their call is an error in their terms (Qdrant's merge optimizer runs on
// its own, see WaitSearchable).
//
// Source: elastic/elasticsearch 8.13 and 9.x, the force-merge API
// (https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-indices-forcemerge),
// which merges through Lucene's IndexWriter.forceMerge(maxNumSegments).
func (s *Store) ForceMerge(maxSegments int) error {
	c := s.c
	if s.err != nil {
		return s.err
	}
	if c.p.Kind != Elasticsearch {
		return fmt.Errorf("profile %s: ForceMerge(%d): only Elasticsearch has a force-merge API (_forcemerge): %w", c.p.Kind, maxSegments, engine.ErrInvalidArgument)
	}
	if maxSegments < 1 {
		return fmt.Errorf("profile %s: ForceMerge(%d): max_num_segments must be ≥ 1: %w", c.p.Kind, maxSegments, engine.ErrInvalidArgument)
	}
	if c.closed.Load() {
		return fmt.Errorf("profile %s: ForceMerge(%d): %w", c.p.Kind, maxSegments, engine.ErrClosed)
	}
	c.ingestMu.Lock()
	defer c.ingestMu.Unlock()
	if err := c.coll.ForceMerge(maxSegments); err != nil {
		return fmt.Errorf("profile %s: ForceMerge(%d): %w", c.p.Kind, maxSegments, err)
	}
	return nil
}

// optimistic reports whether the profile searches several segments as
// Lucene 10.3+ does by default (Elasticsearch 9.2+): each segment for
// its pro-rata share of the candidates, then the promising ones again
// (engine/segment Options.Optimistic). An older Elasticsearch (Lucene 9,
// e.g. the 8.13 of Elastic's reply to Qdrant) searches every segment for
// the whole num_candidates and merges the lists: the segment count then
// multiplies the work (E16).
func (p Profile) optimistic() bool {
	if p.Kind != Elasticsearch {
		return false
	}
	major, minor, err := esVersion(p.Version)
	return err != nil || major > 9 || major == 9 && minor >= 2
}
