// Package segment is the engine's storage lifecycle: a segmented,
// crash-safe vector collection in the manner of Lucene. Writers buffer
// documents (vector, key, stored fields) and seal them into immutable
// segments, each with its own index (an HNSW graph, IVF lists or an exact
// scan), its id column and its compressed stored fields; deletions and
// updates mark
// documents dead in per-segment live bitsets; a tiered merge policy and
// force-merge rewrite several segments into one with a freshly built
// index; a commit point names the segments that survive a crash.
//
// The four stores the lab emulates differ in when an acknowledged document
// becomes searchable; [Visibility] makes that a policy of this one
// mechanism: Elasticsearch's refresh seals a RAM buffer into a segment
// ([OnRefresh]); pgvector inserts into one growing graph in the inserting
// transaction ([OnAdd]); Redis indexes from a background queue
// ([Queued]); Qdrant searches its appendable plain segment exactly and
// builds its graph past indexing_threshold ([Plain]; with
// Config.IdleMerge its merge optimizer then merges down to
// default_segment_number in the background). The last three
// write into an appendable head segment that grows in place and is sealed
// (written) at FlushDocs, the threshold or a commit.
// [Collection.Acknowledged] and [Collection.Searchable] tell the two
// states apart; [Collection.WaitIndexed] waits for the second to catch up.
//
// # Search across segments
//
// Every segment is searched for the top K at breadth ef and the lists are
// merged. [Sequential] visits them in turn, [Concurrent] spreads them over
// a worker pool. Two collections across segments follow Lucene:
// [Options.SharedBound] shares one top-ef bound across them ([engine.Bound],
// after MultiLeafKnnCollector, Lucene 9.10 to 10.2), so a segment's graph
// search stops early once it cannot beat what the other segments have
// found; [Options.Optimistic] is Lucene 10.3's default and Elasticsearch
// 9.2's on: each segment is searched for a share of k proportional to its
// size plus a margin, the lists are merged, and a segment whose worst hit
// still makes the merged top k is searched again from its hits at full k.
// It shares nothing between segments, so concurrency does not change its
// result. The two are exclusive. Stats count distance computations, segments and
// stored-field bytes decompressed.
//
// # Quantized segments
//
// With Config.Encoding (Int8, Int4, BBQ, Int8OSQ, Int4OSQ: Elasticsearch's
// int8_hnsw and int4_hnsw up to 9.3, bbq_hnsw, and int8_hnsw and
// int4_hnsw since 9.4)
// every sealed HNSW segment trains its own
// quantizer on its vectors and keeps their codes beside the float32
// vectors. A flush builds the graph over the float32 vectors and attaches
// the codes; a merge retrains the quantizer on the merged vectors (BBQ,
// Int8OSQ, Int4OSQ: weights its sources' centroids by size when none has
// deletions) and builds the graph over the codes, as Lucene's
// Lucene99HnswScalarQuantizedVectorsFormat and its OSQ successors
// (Lucene102 binary, Lucene104 scalar) do. A
// search walks every graph over the codes for k' = Options.Rescore
// candidates, rescores the best k' of all segments with float32 vectors
// and returns the K nearest ([Stats].Rescored counts them). The caller
// resolves k' and the beam (Elasticsearch's rules live in lab/profile's
// Plan); the engine holds no store's default.
//
// # Stored fields and ids
//
// A hit's key comes from the id column (doc values, 8 bytes a hit) or from
// its stored fields, which are compressed in blocks with S2
// (github.com/klauspost/compress), so reading one key decompresses the
// hit's whole block — the cost Elasticsearch pays to return _id (E17).
//
// # Concurrency
//
// All methods are safe for concurrent use. A search reads an immutable
// snapshot of the segment list; flushes, merges and deletes build their
// new segments outside every lock and swap the list, so searches never
// wait for them. Up to Config.Writers Adds proceed at once.
//
// # Durability
//
// Every file is written through engine/vfs (so the disk watermark and
// crash tests apply) in the checksummed framing of
// engine/internal/blockfile (magic, version, CRC-32C per section,
// temporary file, fsync, rename, directory fsync). Files of a collection
// directory:
//
//	_<id>.seg        META (id u64, docs u32, dim u32, metric u8, index u8,
//	                       encoding u8)
//	                 KEYS (docs × u64, the id column)
//	                 VECS (flat and IVF segments: docs × dim × f32; IVF
//	                       lists are re-clustered from them at open)
//	                 QUNT (quantized HNSW segments: codebook length u32,
//	                       the codebook as engine/quant writes it, then
//	                       docs × code size bytes in local id order)
//	                 SIDX (stored-field block index: docs u32, blocks u32,
//	                       then per block first id u32, offset u64)
//	                 SDAT (the S2 blocks; records uvarint key,
//	                       uvarint length, source)
//	_<id>.hnsw       the segment's graph and vectors (engine/hnsw's format)
//	_<id>_<gen>.liv  LIVE (id u64, docs u32, deleted u32, bit words u64)
//	segments_<gen>   META (gen u64, next id u64, dim u32, metric u8)
//	                 SEGS (count u32, then per segment id u64, docs u32,
//	                       live generation u32; 0 = no deletions)
//
// A segment's graph is written before its .seg file and a commit point
// after every file it names, so a commit point on disk always names
// complete files. [Open] reads the highest commit generation and removes
// every file it does not name: segments flushed or merged after the last
// commit, and temporary files of interrupted writes. A crash therefore
// loses what was not committed and never shows half of it. Files a commit
// names are never rewritten (live bitsets get a new generation).
package segment
