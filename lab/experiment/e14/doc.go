// Package e14 is experiment E14 of the articles: RAM budget of a disk-backed HNSW index: resident bytes per vector by component, and the projection at 21 M vectors on 3 nodes, with each store's shard copies placed on them.
//
// Source: Elastic's reply: 4-bit codes 384 B + HNSW m=16 links 136 B = 520 B per vector; 21 M vectors / 3 nodes → 3.64 GB per node; measured 3.4–3.9 GB; replicas: 1 (Elasticsearch) and RF=2 (Qdrant) are the same two copies, three shards with two copies each (the DiskBBQ post); a 2 GB JVM heap on an 8 GB node is a label, not the bytes in use.
//
// Its steps are exported for a notebook's cells, under the names every
// experiment package uses (Default for the article's parameters, Measure,
// Table, Chart where it draws one, Verdicts, which returns the verdicts);
// init registers the experiment with lab/experiment, so `veclab
// reproduce` runs it through lab/experiment/all.
package e14
