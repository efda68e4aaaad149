package engine

// QueryScorer scores stored documents against one query it was bound to.
// It is used by one goroutine at a time.
type QueryScorer interface {
	// Distance returns the (approximate) distance of document id to the
	// bound query, on the same smaller-is-closer scale as the index metric.
	Distance(id ID) float32
}

// CodeStore holds a compressed code for every document, in id order, so an
// index can traverse with approximate distances and rescore the best
// candidates with full-precision vectors afterwards (Elasticsearch's
// int8_hnsw and bbq_hnsw build and search their graphs this way).
//
// Implementations live in engine/quant. Set may be called concurrently for
// distinct ids after Reserve; the scorers are read-only.
type CodeStore interface {
	// Reserve makes room for ids 0…n-1.
	Reserve(n int)
	// Set encodes v as the code of document id. v has passed CheckVector
	// and, under Cosine, is already unit-normalised.
	Set(id ID, v []float32) error
	// Len returns the number of ids with a code.
	Len() int
	// NewQueryScorer binds q (checked; normalised under Cosine).
	NewQueryScorer(q []float32) (QueryScorer, error)
	// Pair returns the approximate distance between two stored documents,
	// used while building a graph with quantized scores.
	Pair(a, b ID) float32
	// BytesPerVector returns the resident bytes one document's code and
	// its corrective terms take.
	BytesPerVector() float64
}
