// Package filter stores document metadata and turns filter expressions into
// allow-lists: the portable filter language of Spring AI's VectorStore API
// (`category == 'c3' && year >= 2022`), a Go builder for the same
// expressions, a type checker, payload indexes and cardinality estimates.
//
// A [Store] holds one metadata record per dense [engine.ID]. Records are kept
// as msgpack-encoded stored fields; fields may also have a payload index
// (keyword and bool → roaring bitmaps, integer and float → a sorted column
// answering ranges). A [Compiled] filter answers Allowed(id) from the indexes
// when it can and otherwise by decoding the stored payload of the document,
// which is slow and therefore counted ([Compiled.PayloadChecks]): Qdrant
// without a payload index pays exactly this.
//
// # Schema modes
//
// [Declared] (Redis-like): only declared fields can be filtered on; a filter
// naming any other field is refused with an error naming it (RediSearch
// says "Not allowed filter identifier name: category"). Every declared field
// is indexed. [Schemaless] (Qdrant-like): any field may be stored and
// filtered; indexes are created on demand with [Store.CreateIndex]. The lab
// fixes a field's kind the first time it sees the field, so that filters can
// be type-checked and wrong-typed values refused at insert.
//
// # Semantics
//
// A comparison on a document that lacks the field is false (so are in and
// nin); NOT inverts the whole sub-expression, so `!(year == 2020)` matches a
// document without a year. Ordering operators apply to integer and float
// fields only; integer and float literals compare numerically with either.
//
// # Cardinality
//
// [Store.Estimate] follows Qdrant's query_estimator.rs: an indexed leaf has an
// exact count, an unindexed one is "unknown" {0, N/2, N}; AND combines with
// min = max(0, Σmin − (n−1)·N), exp = N·Π(exp/N), max = min(max); OR with
// min = max(min), exp = N·(1 − Π(1 − exp/N)), max = min(Σmax, N); NOT inverts.
//
// # Concurrency
//
// A Store is safe for concurrent readers after its last write; writes
// (Add, CreateIndex) must not run concurrently with anything else. A
// Compiled filter counts payload checks and is used by one goroutine at a
// time.
package filter
