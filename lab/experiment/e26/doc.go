// Package e26 is experiment E26 of the articles: recall@100 vs QPS at matched recall: IVF (2-bit lists, visit % sweep) vs HNSW (2-bit codes in RAM, originals on disk, ef sweep), oversample 1.
//
// Source: Elastic: DiskBBQ 7× faster than Qdrant on network-attached storage: bbq_disk 2-bit, oversample 1, visit_percentage sweep vs Qdrant HNSW 2-bit in RAM, originals on disk, hnsw_ef sweep; up to 7× higher throughput for IVF at recall@100 0.93–0.97, widening with recall.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e26
