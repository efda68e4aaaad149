// Package e27 is experiment E27 of the articles: IVF with its posting lists on disk vs HNSW, warm, cold cache and a simulated network device: where the designs diverge.
//
// Source: none: Elastic's reply to Qdrant and Elastic's DiskBBQ article (\.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e27
