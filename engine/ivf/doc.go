// Package ivf is an inverted-file index: vectors are clustered by k-means,
// each cluster keeps a posting list of its members, and a query scans only
// the lists of the centroids nearest to it — nprobe of them (FAISS
// IndexIVF: IndexIVFInterface.nprobe in facebookresearch/faiss
// faiss/IndexIVF.h, main branch as read in 2026) or as many as
// a visit budget allows (Elasticsearch 9.2's visit_percentage for
// bbq_disk, https://www.elastic.co/docs/reference/query-languages/query-dsl/query-dsl-knn-query).
//
// Posting lists hold either the float32 vectors themselves (IndexIVFFlat) or
// optimized-scalar-quantized codes of 1, 2, 4 or 8 bits per dimension built
// around the list's own centroid (DiskBBQ; engine/quant.NewOSQ), each with
// its document id. With codes, the best ⌈k·oversample⌉ candidates are
// re-ranked with full-precision vectors from RAM or from an on-disk vector
// file (engine/rescore, engine/store). Spilled assignment (SOAR, Sun et al.,
// NeurIPS 2023, as Elasticsearch's Soar.java uses it with λ = 1) puts each
// vector in a second list too; a search counts each document once.
//
// Build is Train (k-means on at most Nlist·256 sampled vectors, FAISS's
// cap) followed by Add (coarse assignment and list filling), as FAISS splits
// them; training can be timed alone. A query is encoded once per visited
// list, around that list's centroid, by quant.QueryEncoder: one pass for
// the residual's statistics, the minimum-MSE grid interval (or
// Config.QueryIters refinement steps; DiskBBQ takes one), one pass for the
// codes — a few passes over the query, where OSQ.EncodeQuery's five-step
// interval search cost more than the list scan. With GlobalCentroid all
// lists share one quantizer centred on the data mean, so a query is
// encoded once instead of once per visited list. A list's codes are scored
// a block at a time (quant.BoundQuery.Distances over one batch kernel call
// per block) when no filter or spill bookkeeping needs them one by one.
//
// Sources followed: facebookresearch/faiss faiss/IndexIVF.cpp (train,
// add with coarse assignment, search_preassigned), faiss/IndexIVFFlat.cpp;
// elastic/elasticsearch …/codec/vectors/diskbbq/ES920DiskBBQVectorsFormat.java,
// …/diskbbq/ES920DiskBBQVectorsReader.java (the per-list query encoding),
// …/cluster/HierarchicalKMeans.java, …/cluster/Soar.java.
//
// # Geometry
//
// Clustering and assignment use squared L2 to the centroids. List
// selection does too under L2 and Cosine, and under Dot ranks lists by
// ⟨q, c⟩, as FAISS's inner-product coarse quantizer (IndexFlatIP) does: a
// list's members have inner product ⟨q, c⟩ + ⟨q, x − c⟩ with the query, so
// ⟨q, c⟩ estimates them, where the L2 rank ‖c‖² − 2⟨q, c⟩ penalises the
// long centroids maximum inner product search is after. Under Cosine
// vectors and queries are unit-normalised and the centroids are
// renormalised after every k-means step (spherical k-means), so L2 and
// inner-product rankings coincide. Distances returned are on the metric's
// smaller-is-closer scale.
//
// # Invariants
//
// Every vector is in exactly one primary list, and in at most one other
// list when Spill is on. An Index is immutable after Build.
//
// # File format
//
// [Index.WriteListsFS] writes the posting lists as an
// engine/internal/blockfile file through engine/vfs (so a disk watermark
// and injected failures apply; the write is atomic), one page-aligned,
// checksummed section per list, read back one pread per probed list by
// [Index.UseDiskLists]; disk.go has the layout. Corrupt or truncated files
// give errors naming the file and offset.
//
// # Concurrency
//
// Search is safe for concurrent use; each call takes a searcher from a pool.
// UseDiskLists and CloseLists must not run concurrently with searches.
package ivf
