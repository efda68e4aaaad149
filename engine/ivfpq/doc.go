// Package ivfpq is the inverted file with product-quantized residuals,
// IVFADC (Jégou, Douze & Schmid, "Product quantization for nearest
// neighbor search", IEEE TPAMI 33(1), 2011, §IV): a coarse k-means
// quantizer splits the space into Nlist cells; each vector is stored in
// its nearest cell's list as the product code ([quant.PQ]) of its residual
// x − c to the cell's centroid c; a query visits the Nprobe cells nearest
// to it and scores each list's codes through a distance table (ADC).
//
// This is FAISS's IndexIVFPQ (facebookresearch/faiss faiss/IndexIVFPQ.cpp,
// by_residual = true), and its distances:
//
//   - L2: ‖q − c − r̂‖², the table of the residual query q − c built per
//     visited list (the paper's Algorithm of §IV-B; FAISS reaches the same
//     sums through a precomputed ⟨c, r̂⟩ table, use_precomputed_table, which
//     is not done here);
//   - Dot: −⟨q, c⟩ − ⟨q, r̂⟩, one table for the whole query (an inner
//     product's table does not depend on the cell) plus the cell's term
//     (FAISS's IVFPQScanner for METRIC_INNER_PRODUCT);
//   - Cosine: 1 − ⟨q, c + r̂⟩ of the unit-normalised query and vectors.
//
// The coarse k-means is plain L2 k-means (FAISS's default, not spherical,
// for every metric); cells are ranked by ‖q − c‖² under L2 and by ⟨q, c⟩
// under Dot and Cosine, as FAISS's IndexFlatL2 / IndexFlatIP coarse
// quantizers do. The product quantizer is trained on the residuals of the
// training sample (L2 k-means per sub-space), as FAISS's train_residual.
//
// Build is Train then Add, as FAISS splits them. Everything is a function
// of the data, the Config and its Seed (the coarse k-means is seeded with
// Seed, the product quantizer with Seed + 1).
//
// # Invariants
//
// Every added vector is in exactly one list. An Index is not changed by
// searches; Add must not run concurrently with them.
//
// # Concurrency
//
// Search and Query are safe for concurrent use; each call takes its
// scratch (a distance table, a residual, a heap) from a pool.
package ivfpq
