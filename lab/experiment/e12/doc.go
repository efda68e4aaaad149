// Package e12 is experiment E12 of the articles: a nearly full disk: the lab's store refuses writes above a disk watermark, says which, and loses nothing already written.
//
// Source: Spring AI VectorStore article (\.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e12
