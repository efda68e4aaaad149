// Package e25 is experiment E25 of the articles: passages of one document (nested vectors): the k nearest documents by joining to the parent during the graph walk, vs k passages then dedupe.
//
// Source: Elastic's reply, \.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e25
