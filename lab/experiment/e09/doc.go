// Package e09 is experiment E09 of the articles: Redis: filtering on a metadata field that was not declared.
//
// Source: Spring AI VectorStore article, 09-redis-undeclared-metadata.txt: IllegalArgumentException \.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e09
