// Package e06 is experiment E06 of the articles: Redis EF_RUNTIME: the library default (10) against 50 and 200.
//
// Source: Spring AI VectorStore article, 06-redis-ef-runtime.txt: index rebuilt and reloaded per setting.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e06
