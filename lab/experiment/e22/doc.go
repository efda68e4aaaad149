// Package e22 is experiment E22 of the articles: int8 scalar quantization: memory, recall@10, and recovery by oversampling (quantized@15).
//
// Source: Elastic's reply and the Lucene quantization posts it cites: int8 slashes memory by ~75 %; recall@10 a little below raw, recovered by gathering 5 more candidates and rescoring (quantized@15).
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e22
