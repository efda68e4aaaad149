// Package e24 is experiment E24 of the articles: binary quantization: 1-bit recall with and without rescoring, by oversample.
//
// Source: Elastic's BBQ posts cited by the reply: 1 bit per dimension, 32× compression, recall restored by rescoring an oversampled candidate set.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e24
