// Package kmeans clusters float32 vectors with seeded k-means: k-means++
// initialisation (Arthur & Vassilvitskii, SODA 2007), Lloyd iterations with
// the assignment step spread over cores, empty-cluster repair by splitting
// the largest cluster, a training-sample cap as FAISS applies it, and the
// hierarchical variant Elasticsearch's DiskBBQ uses for large cluster
// counts.
//
// The Lloyd iterations are exact but bounded: triangle-inequality bounds
// (Elkan, ICML 2003, per-centroid lower bounds while N·K fits 128 MB;
// Hamerly, SDM 2010, one lower bound beyond) skip the distances that
// cannot change an assignment, and cluster sums are updated only for the
// points that moved. The centroids are Lloyd's (Config.NoBounds runs the
// plain iteration for comparison); at 20k × 384 with K = 78 about one
// distance in eight is computed over ten iterations.
//
// Sources followed:
//   - facebookresearch/faiss faiss/Clustering.cpp: niter = 25 default,
//     training set subsampled to k·max_points_per_centroid (256), empty
//     clusters repaired by splitting a large cluster with a small symmetric
//     perturbation, spherical k-means renormalises centroids.
//   - elastic/elasticsearch server/src/main/java/org/elasticsearch/index/codec/
//     vectors/cluster/HierarchicalKMeans.java: k = clamp(round(n/target), 2, 128)
//     per level, recursive split of clusters larger than 1.34·target, empty
//     clusters dropped, then a refinement pass over all centroids.
//
// # Invariants
//
// Every result has exactly Config.K centroids (Train) and every input vector
// an assignment in [0, K). The same data, Config and Seed give the same
// centroids bit for bit, whatever the number of workers: points are summed in
// fixed chunks whose partial sums are combined in chunk order.
//
// # Concurrency
//
// Train and Hierarchical use up to Config.Workers goroutines internally;
// the returned values are immutable and safe to share.
package kmeans
