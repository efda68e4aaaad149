// Package e01 is experiment E01 of the articles: ingest in batches: docs/s per store, and ingest finished ≠ searchable.
//
// Source: Spring AI VectorStore article, 01-ingest.txt: 30,000 documents × 384 dims in batches of 1,000, embeddings looked up.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e01
