// Package e13 is experiment E13 of the articles: disk I/O budget of rescoring: computed from parameters, beside the lab's measured reads per query.
//
// Source: Elastic's reply: 100 candidates × one 8 KB page per query; 10 / 100 / 1,000 / 10,000 QPS → 333 / 3,333 / 33,333 / 333,333 IOPS and 3 / 27 / 273 / 2,731 MB/s per node (3 nodes); a gp3 baseline of 3,000 IOPS caps ≈ 90 QPS; stored originals in bfloat16, 3,072 → 1,536 bytes each.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e13
