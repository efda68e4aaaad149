package measure

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/lab/profile"
)

// Sizes is what one built store holds, in bytes summed over its documents,
// measured from the lab's own structures (nothing here is modelled):
// the store's vector structures (profile.Store.Footprint) and the
// documents' metadata (engine/filter's stored fields and payload indexes).
// What a real store adds around them (pages, JSON documents, keys, a
// write-ahead log) is each experiment's model, not a measurement.
type Sizes struct {
	Store string       // the store's name
	Kind  profile.Kind // the store profile's kind
	Docs  int          // documents counted
	Dim   int          // vector dimensions
	M     int          // the graph's m (links per node above layer 0)

	Vectors int64 // float32 vectors: the graphs' slabs and the plain segments' rows
	Links   int64 // graph link lists at their fixed capacity, node levels, offsets
	Codes   int64 // quantized codes attached to the graphs (Elasticsearch's types)
	// StoredFields is the documents' msgpack payloads
	// (filter.Store.StoredBytes): what a store keeps as stored fields,
	// _source or a JSON document besides the vector.
	StoredFields int64
	// PayloadIndexes is the metadata's indexes: roaring bitmaps of the
	// keyword fields and sorted columns of the numeric ones
	// (filter.Store.FieldIndexBytes over the schema).
	PayloadIndexes int64
}

// Footprint measures what s holds (s built over the same documents as
// meta describes): its float32 vectors, graph links and codes, and meta's
// stored fields and payload indexes. A nil meta counts no metadata; a meta
// of another number of documents is an error.
func Footprint(s *profile.Store, meta *filter.Store) (Sizes, error) {
	if s == nil {
		return Sizes{}, fmt.Errorf("measure: Footprint: no store: %w", engine.ErrInvalidArgument)
	}
	if err := s.Err(); err != nil {
		return Sizes{}, err
	}
	p := s.Profile()
	fp := s.Footprint()
	z := Sizes{Store: p.Kind.String(), Kind: p.Kind, Docs: fp.Docs, Dim: s.Dim(), M: p.M,
		Vectors: fp.Vectors, Links: fp.Links, Codes: fp.Codes}
	if fp.Docs == 0 {
		return Sizes{}, fmt.Errorf("measure: Footprint: %s holds no documents yet (build it, or wait until they are searchable): %w", p.Kind, engine.ErrInvalidArgument)
	}
	if meta == nil {
		return z, nil
	}
	if meta.Len() != fp.Docs {
		return Sizes{}, fmt.Errorf("measure: Footprint: %s holds %d documents, the metadata describes %d: measure a store built over the same documents: %w",
			p.Kind, fp.Docs, meta.Len(), engine.ErrInvalidArgument)
	}
	z.StoredFields = int64(meta.StoredBytes())
	for _, fld := range meta.Schema().Fields {
		b, c := meta.FieldIndexBytes(fld.Name)
		z.PayloadIndexes += int64(b + c)
	}
	return z, nil
}

// PerDoc returns bytes (one of the totals) per document.
func (z Sizes) PerDoc(bytes int64) float64 {
	if z.Docs == 0 {
		return 0
	}
	return float64(bytes) / float64(z.Docs)
}

// BytesPerVector is the resident bytes per document of the vector
// structures, vectors + links + codes: profile.Store.BytesPerVector, and
// Result.BytesPerVector of a measurement of the same store.
func (z Sizes) BytesPerVector() float64 { return z.PerDoc(z.Vectors + z.Links + z.Codes) }

// String prints the sizes per document on one line, e.g. "redis: 30000
// documents × 384 dims; per document: vectors 1536 B, links 142 B, codes
// 0 B (1678 B/vector), stored fields 38 B, payload indexes 22 B".
func (z Sizes) String() string {
	return fmt.Sprintf("%s: %d documents × %d dims; per document: vectors %.0f B, links %.0f B, codes %.0f B (%.0f B/vector), stored fields %.0f B, payload indexes %.0f B",
		z.Store, z.Docs, z.Dim, z.PerDoc(z.Vectors), z.PerDoc(z.Links), z.PerDoc(z.Codes), z.BytesPerVector(), z.PerDoc(z.StoredFields), z.PerDoc(z.PayloadIndexes))
}
