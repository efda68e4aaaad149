// Package e08 is experiment E08 of the articles: Qdrant: a filtered query without and with payload indexes.
//
// Source: Spring AI VectorStore article, 08-qdrant-payload-index-and-threshold.txt: keyword index on category, integer index on year.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e08
