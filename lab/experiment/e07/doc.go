// Package e07 is experiment E07 of the articles: pgvector: ef_search and the 0.8 iterative index scan under the article's filter.
//
// Source: Spring AI VectorStore article, 07-pgvector-ef-search.txt: pgvector 0.8.7, filter category == 'c3' && year >= 2022.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e07
