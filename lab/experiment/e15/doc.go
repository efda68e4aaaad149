// Package e15 is experiment E15 of the articles: rescoring reads: sequential vs concurrent, warm vs cold page cache, device reads counted.
//
// Source: Elastic's reply to Qdrant: Qdrant's async io_uring reads off/on gave 31.6 vs 35.8 QPS at ef = 50, and the disk served 0 IOPS during the run because the page cache was warm.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e15
