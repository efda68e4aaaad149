// Package e16 is experiment E16 of the articles: segment count vs recall and speed: the same collection searched at the same ef as 64, 16, 4 and 1 segments (force-merged).
//
// Source: Elastic's reply: 128 segments recall@100 0.9745, 35.8 QPS, 112 ms; force-merged to 66: 0.9531, 53.3 QPS, 75 ms; .
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e16
