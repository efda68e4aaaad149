// Package e21 is experiment E21 of the articles: SIMD distance kernels: ns per distance by dimension (scalar Go loop vs the engine's kernels) and build throughput.
//
// Source: the Lucene post on the Panama vector API cited by Elastic's reply: large speed-ups on dot product; indexing throughput rose from about 900 to about 1,300 docs/s.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e21
