// Package e10 is experiment E10 of the articles: Elasticsearch index_options.type: bbq_hnsw, int8_hnsw, hnsw — recall, filtered recall, store size.
//
// Source: Spring AI VectorStore article, the Elasticsearch index-type table: same 30,000 documents re-indexed per type, num_candidates default.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e10
