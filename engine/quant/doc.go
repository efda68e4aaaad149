// Package quant compresses vectors into fixed-size codes and scores
// queries against them: Lucene's scalar quantization (int7 "int8", int4,
// 8-bit) and optimized scalar quantization (OSQ, 1–8 bits per dimension
// with per-vector corrective factors; 1-bit documents against a 4-bit query
// is what Elasticsearch calls BBQ), Qdrant's binary quantization
// ([Binary]: one, one and a half or two bits per dimension, scored by
// differing bits, without corrective factors), and product quantization
// ([PQ]: Jégou, Douze & Schmid, TPAMI 2011 — one byte per sub-space, the
// index of its nearest centroid in a k-means codebook, scored through a
// per-query distance table).
//
// PQ lives here rather than in a package of its own because it is a
// Quantizer like the others: the same byte-level contract (a code of
// CodeSize bytes, a query code — for PQ the query's distance table — of
// QueryCodeSize bytes), the same [Store] and flat scan, the same
// file framing read by [Restore], so every quantizer test of the package
// (round trips, corruption, fuzzing, the conformance suite) runs on it
// too. Its fast path, [PQTable], is the typed form of the query code, as
// [BoundQuery] is OSQ's. IVF with PQ residual codes (the paper's IVFADC)
// is engine/ivfpq.
//
// A quantizer is trained once on a sample ([TrainScalar], [TrainOSQ],
// [TrainBinary], [TrainPQ]) or
// built from a given centroid ([NewOSQ], for IVF posting lists), and then
// never changes; [Restore] reads one back from its [Quantizer.MarshalBinary]
// bytes. [Store] keeps one code per document in id order and implements
// [engine.CodeStore], so an HNSW graph can be built and searched with
// quantized scores (Elasticsearch's int8_hnsw and bbq_hnsw); [Store.Search]
// is the flat scan over codes that isolates a quantizer from any graph.
//
// # The byte-level API (for indexes that keep codes themselves)
//
// Every [Quantizer] encodes one vector into a caller-provided []byte of
// exactly [Quantizer.CodeSize] bytes — the code followed by its corrective
// factors, so a posting list is just a slab of fixed-size records — and
// scores a query code (built once per query with [Quantizer.EncodeQuery]
// into [Quantizer.QueryCodeSize] bytes) against a document code with
// [Quantizer.Distance]:
//
//	qc := make([]byte, q.QueryCodeSize())
//	if err := q.EncodeQuery(qc, query); err != nil { … }
//	for each record rec (len q.CodeSize()) { d := q.Distance(qc, rec) }
//
// Distances are on the metric's smaller-is-closer scale (squared L2,
// 1 − cos, −dot), as everywhere in engine. Vectors given to Encode and
// EncodeQuery must already be unit-normalised under Cosine (the engine
// normalises on insert); their length and finiteness are checked.
//
// For IVF, [NewOSQ] builds an OSQ around a cluster centroid; DiskBBQ
// quantizes each posting list relative to its own centroid, so a query is
// encoded once per visited cluster. [QueryEncoder] does that encoding
// cheaply (the query checked once, then a few passes per list with the
// minimum-MSE grid interval, or DiskBBQ's one refinement step, instead of
// EncodeQuery's five). [OSQ.Bind] decodes a query code's factors once for
// a scan over many codes, and [BoundQuery.Distances] scores a slab of them
// (a posting list) a block at a time.
//
// # Code layouts
//
// Scalar (Lucene ScalarQuantizer.java, Lucene99ScalarQuantizedVectorsFormat):
//
//	[dim bytes (7/8 bit) | ⌈dim/2⌉ bytes (4 bit, nibble-packed)] [correction float32]
//
// OSQ (Lucene OptimizedScalarQuantizer.java, Lucene102BinaryFlatVectorsScorer.java):
//
//	[code] [lower float32] [upper float32] [additional float32] [Σq uint16 | uint32]
//
// where code is B bit-planes of ⌈dim/64⌉ 64-bit words when B ≤ 4 and the
// query bits ≤ 4 (scored with AND+popcount), else one byte per component.
// Σq is 2 bytes when (2^B − 1)·dim fits in 16 bits (the 14 bytes of
// corrective terms BBQ stores), else 4. All numbers are little-endian.
//
// # File format
//
// MarshalBinary output, every quantizer, is an engine/internal/blockfile
// frame (part of the file format; never change): magic "VLQSCAL\x00"
// (scalar), "VLQOSQ\x00\x00" (OSQ), "VLQBINQ\x00" (binary) or
// "VLQPQ\x00\x00\x00" (product), format version 2 (checked before
// anything else; version 1, a framing of its own, was never committed to
// any file and is not read), one section "SCAL", "OSQP", "BINQ" or "PQCB"
// holding the parameters (see scalar.go, osq.go, binary.go, pq.go; for
// binary: dim u32, metric u8, encoding u8, query encoding u8, a zero byte,
// then for one_and_half_bits and two_bits each dimension's mean and
// standard deviation as float32 pairs; for PQ: dim u32, metric u8, M u32,
// bits u8, iterations u32, seed u64, then the 2^bits·dim codebook float32,
// sub-space 0's centroid 0 first), the end marker. [WriteFile] and
// [ReadFile] keep it in a file through engine/vfs, atomically.
//
// A short, corrupted or unknown file is an error wrapping
// [engine.ErrCorrupt] or [engine.ErrVersion] that names the file (when
// there is one) and the offset.
//
// # Concurrency
//
// A Quantizer is immutable after construction and safe for concurrent use.
// A Store accepts concurrent Set calls for distinct ids after Reserve;
// its query scorers are read-only and each is used by one goroutine.
package quant
