// Package e17 is experiment E17 of the articles: document retrieval inside a vector benchmark: ids read from compressed stored fields vs from an id column.
//
// Source: Elastic's reply to Qdrant: visit % 1 / 2 / 3 / 5 → recall@100 0.894 / 0.939 / 0.956 / 0.970; QPS with ids from stored fields 44 / 39 / 35 / 31; .
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e17
