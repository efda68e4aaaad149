// Package e18 is experiment E18 of the articles: ingest speed vs query speed: parallel writers (many small segments) vs one writer (few large segments), HNSW and IVF, then queries at the same breadth.
//
// Source: Elastic's reply to Qdrant: parallel ingest is fast and makes many segments; single-threaded ingest is slow and makes few; .
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e18
