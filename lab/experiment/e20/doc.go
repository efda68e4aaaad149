// Package e20 is experiment E20 of the articles: multi-segment search: segments searched sequentially, concurrently, and with a top-k bound shared across segments.
//
// Source: Elastic's reply to Qdrant: searching segments concurrently raised throughput from 104 to 219 QPS; sharing the best-so-far bound across segments .
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e20
