// Package e03 is experiment E03 of the articles: the filter category == 'c3' && year >= 2022 on four stores' defaults.
//
// Source: Spring AI VectorStore article, 03-filtered.txt: 1,328 of 30,000 documents match (4.4 %); truth over the matching documents.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e03
