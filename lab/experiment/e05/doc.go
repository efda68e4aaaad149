// Package e05 is experiment E05 of the articles: Elasticsearch num_candidates 15 / 50 / 100 / 500 on the default (bbq_hnsw) index.
//
// Source: Spring AI VectorStore article, 05-elasticsearch-num-candidates.txt: same index, raw _search.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e05
