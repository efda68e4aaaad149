// Package e11 is experiment E11 of the articles: What each store costs to keep running: bytes per document by component (raw vectors, codes, graph links, stored fields, payload indexes), RAM vs disk.
//
// Source: Spring AI VectorStore article, 'What each one costs to keep running' (11-ops-footprint.txt): the size of the loaded 30,000 × 384 documents as each store reports it, after loading and querying.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e11
