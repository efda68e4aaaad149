// Package e02 is experiment E02 of the articles: unfiltered recall@10 of four stores on their defaults.
//
// Source: Spring AI VectorStore article, 02-unfiltered.txt: 100 queries after 20 warm-up, topK=10, cosine.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e02
