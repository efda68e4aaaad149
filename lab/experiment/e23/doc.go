// Package e23 is experiment E23 of the articles: int4 scalar quantization with and without the error-correction term.
//
// Source: the Lucene int4 post Elastic's reply cites: 4 bits per dimension compress the vectors 8× \.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e23
