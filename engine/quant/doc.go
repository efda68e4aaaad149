// Package quant compresses vectors into fixed-size codes and scores
// queries against them: Lucene's scalar quantization (int7 "int8", int4,
// 8-bit) and optimized scalar quantization (OSQ, 1–8 bits per dimension
// with per-vector corrective factors; 1-bit documents against a 4-bit query
// is what Elasticsearch calls BBQ), Qdrant's binary quantization
// ([Binary]: one, one and a half or two bits per dimension, scored by
// differing bits, without corrective factors), TurboQuant ([Turbo]: as
// published and as Qdrant 1.18 ships it; see below), and product
// quantization ([PQ]: Jégou, Douze & Schmid, TPAMI 2011 — one byte per
// sub-space, the index of its nearest centroid in a k-means codebook,
// scored through a per-query distance table).
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
// # TurboQuant
//
// [TrainTurbo] builds one of three forms ([TurboKind]):
//
//   - [TurboMSE] is TurboQuant_mse of Zandieh, Daliri, Hadian and
//     Mirrokni, "TurboQuant: Online Vector Quantization with Near-optimal
//     Distortion Rate", arXiv 2504.19874 (2025), Section 3.1, Algorithm 1:
//     a random rotation Π (the Q factor of a Gaussian d×d matrix), then
//     each coordinate of Π·x to the nearest of 2^b centroids that solve the
//     continuous 1-D k-means (Lloyd-Max, Eq. 4) for the coordinate's
//     distribution on the unit sphere, (1 − x²)^((d−3)/2) on [−1, 1]
//     (Lemma 1; ≈ N(0, 1/d) in high d). The codebook is computed here
//     numerically for the vectors' own d. The paper quantizes unit
//     vectors; the length is kept as a float32 beside the code (Section
//     1.3). Data-oblivious: the sample gives only the dimension.
//   - [TurboProd] is TurboQuant_prod (Section 3.2, Algorithm 2): TurboMSE
//     at b−1 bits, then the residual r = x − x̃_mse as the 1-bit QJL
//     sign(S·r) with S i.i.d. N(0, 1), and γ = ‖r‖; ⟨y, x⟩ is estimated by
//     ⟨y, x̃_mse⟩ + √(π/2)/d · γ · ⟨S·y, sign(S·r)⟩, which is unbiased.
//   - [TurboQdrant] follows qdrant/qdrant v1.18.0 (tag commit
//     db3fca327851e360c521065649e0f65a57fe7d3c; the articles ran
//     "es-9.4-vs-qd-1.18"), lib/quantization/src/turboquant/: mod.rs
//     (EncodedVectorsTQ::encode, TQBits, TQ+), quantization.rs
//     (preprocess_into, quantize, precompute_query, score_precomputed,
//     score_symmetric), rotation.rs and permutation.rs (HadamardRotation),
//     lloyd_max.rs (the codebooks), encoding.rs (padded_dim, extras), and
//     lib/segment/src/vector_storage/quantized/quantized_vectors.rs, which
//     builds every TurboQuant storage with TQMode::Plus. The default bits
//     are 4 (lib/segment/src/types.rs TurboQuantBitSize).
//
// Where Qdrant differs from the paper (and the Qdrant form follows Qdrant):
//
//   - Rotation: not a dense random orthogonal matrix but a structured one
//     fixed for every collection: the (padded) dimension cut into
//     power-of-two chunks, a normalised Walsh–Hadamard transform per
//     chunk, three times over after fixed LCG permutations (seeds are
//     constants of rotation.rs), with no random sign flips. O(d log d)
//     and nothing to store, but the coordinates of one chunk mix only
//     within it until a permutation moves them.
//   - Codebook: Lloyd-Max for N(0, 1) (the paper's high-d limit), not the
//     d-dependent Beta; each rotated vector is rescaled to length √d so
//     its coordinates have variance ≈ 1. 4-bit codes pad the dimension to
//     even, 2-bit to a multiple of 4, 1-bit to 8.
//   - TQ+: a per-coordinate shift and scale fitted on a sample (8,192
//     vectors at 4 bits) maps each coordinate's [1 − Φ(c), Φ(c)] quantile
//     interval (c the outermost centroid) onto [−c, c] before quantizing:
//     data-dependent, where the paper is oblivious. Qdrant estimates the
//     quantiles with streaming P-square estimators; the lab takes the
//     sample's exact ones (the quantity P-square estimates).
//   - Scale: each code keeps l2/cn (cn the length of its chosen
//     centroids, TQ+ undone), so the estimate is renormalised by the
//     code's own length rather than the paper's expectation; and ⟨X, M⟩
//     for code-to-code scores.
//   - No QJL stage: Qdrant's b bits all go to the scalar stage (an
//     MSE-type quantizer, biased for inner products, with renormalisation).
//   - Query: Qdrant's SIMD kernels hold the rotated query in ~14-bit
//     integers (x86-64) and the 4-bit codebook in 8 bits
//     (simd/query4bit/mod.rs); the lab keeps both in float32. Code-to-code
//     scores use D'² in float32 where Qdrant quantizes it to i16.
//     bits1_5 (1-bit codes over 1.5·d padded coordinates) is not modelled.
//
// Qdrant's search rescores with the original vectors by default
// (QuantizationSearchParams rescore, oversampling 1.0 unless set); the
// codes alone give the unrescored figure.
//
// # File format
//
// MarshalBinary output, every quantizer, is an engine/internal/blockfile
// frame (part of the file format; never change): magic "VLQSCAL\x00"
// (scalar), "VLQOSQ\x00\x00" (OSQ), "VLQBINQ\x00" (binary),
// "VLQPQ\x00\x00\x00" (product) or "VLQTURB\x00" (TurboQuant), format
// version 2 (checked before anything else; version 1, a framing of its
// own, was never committed to any file and is not read), one section
// "SCAL", "OSQP", "BINQ", "PQCB" or "TURB" holding the parameters (see
// scalar.go, osq.go, binary.go, pq.go, turbo.go; for binary: dim u32,
// metric u8, encoding u8, query encoding u8, a zero byte, then for
// one_and_half_bits and two_bits each dimension's mean and standard
// deviation as float32 pairs; for PQ: dim u32, metric u8, M u32, bits u8,
// iterations u32, seed u64, then the 2^bits·dim codebook float32,
// sub-space 0's centroid 0 first; for TurboQuant: dim u32, metric u8,
// kind u8, bits u8, a zero byte, seed u64 as two u32 (low first), sample
// size u32, the 2^b centroids as float32 and, for the Qdrant form, each
// padded coordinate's TQ+ shift and scale as float32 pairs; the paper's Π
// and S are drawn again from the seed), the end marker. [WriteFile] and
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
