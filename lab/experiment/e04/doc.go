// Package e04 is experiment E04 of the articles: the defaults that matter, as each store describes its index.
//
// Source: Spring AI VectorStore article, 04-defaults-that-matter.txt and the HNSW section.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e04
