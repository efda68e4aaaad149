// Package e19 is experiment E19 of the articles: base64 vectors in bulk ingest: parse throughput of float-array JSON vs base64 vs msgpack, and end-to-end ingest into IVF (DiskBBQ-like) and HNSW.
//
// Source: Elastic's reply, base64-encoded dense_vector in Elasticsearch 9.x: parsing 1,000 JSON documents more than 10× faster with base64 than with float arrays; .
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e19
