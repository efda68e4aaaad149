// Package hnsw is the Hierarchical Navigable Small World graph of Malkov &
// Yashunin (arXiv:1603.09320, TPAMI 2018) over float32 vectors, built the
// way hnswlib builds it (nmslib/hnswlib hnswalg.h) with the knobs that make
// pgvector's and Lucene's variants (pgvector src/hnswutils.c), and searched
// with a pluggable allow-list.
//
// # Using it
//
//	ix, err := hnsw.New(hnsw.Config{Dim: 384, M: 16, EfConstruction: 64})
//	err = ix.AddBatch(keys, vectors)             // all cores; Workers: 1 is deterministic
//	s := ix.NewSearcher()                        // one per goroutine
//	res, err := s.Search(q, engine.Request{K: 10, Breadth: 64}) // dense ids, nearest first
//	key := ix.Key(res[0].ID)                     // back to the caller's key
//	st := s.Stats()                              // distance computations, hops, visited
//	err = ix.Save(vfs.Default, "x.hnsw")         // atomic, checksummed
//	ix, err = hnsw.Load(vfs.Default, "x.hnsw")
//
// [HnswlibConfig] reproduces hnswlib's insertion policy exactly (a new node
// gets M links on every layer, lists capped at 2·M on layer 0, heuristic
// without keepPruned, ef_construction raised to M, and hnswlib's own level
// generator and seed, so a single-threaded build draws the same levels);
// [PgvectorConfig] gives
// pgvector's (2·M links for a new node on layer 0, keepPruned).
//
// # Invariants
//
//   - Caller keys (uint64) map once, at the edge, to dense ids 0…Len()-1
//     in insertion order; row id of the vector slab is the vector of id.
//   - Under Cosine, vectors are normalised once at insert and the query
//     once per search; every distance is smaller-is-closer (see package
//     engine).
//   - Layer 0 is one []engine.ID block: node id owns
//     links0[id·(M0+1) : (id+1)·(M0+1)], the first word the count and then
//     up to M0 neighbour ids. Layers ≥ 1 live in a second block, M+1 words
//     per node per layer. No maps or per-node allocations in the hot path.
//   - A list never holds its own node, a duplicate, or a node whose top
//     level is below the list's layer (Load checks this).
//   - Every bad input is rejected before anything changes: AddBatch
//     validates the whole batch first.
//
// # Search
//
// One call searches, as faiss::Index::search does with its
// SearchParameters: [Searcher.Search] (per goroutine, allocation-free)
// and [Index.Query] (the engine.Index seam, pooling Searchers) take an
// [engine.Request] whose fields carry every variant — k, ef (Breadth),
// the allow-list, layer-0 seeds, patience, a bound shared across
// segments — and whose Params select Lucene's reader search ([Lucene])
// or rescoring ([Rescore]). [Searcher.SearchTrace] is the same search
// with a recorder. [engine.QueryBatch] answers many queries on all cores.
//
// [Searcher.Search] descends greedily (ef = 1) from the entry point to
// layer 1, then runs hnswlib's base-layer loop (searchBaseLayerST) with
// beam max(ef, k). An [engine.Filter] is an allow-list with hnswlib's
// isIdAllowed semantics: disallowed nodes are traversed but never enter the
// result set and never tighten its bound, and the loop stops on distance
// only once the result set holds ef allowed nodes. On the float32 path a
// search allocates nothing once its Searcher is warm (a code store's query
// scorer may allocate once per query).
//
// Scoring is batched: the unvisited neighbours of an expanded node are
// gathered, their rows prefetched, and scored four at a time
// (engine/internal/f32.Dot4 / L2Sq4) before hnswlib's per-neighbour rule is
// applied in list order — the outcome is that of scoring them one by one.
// The loop itself is the engine's shared layer-0 loop (engine/internal/beam:
// the candidate heap, visited set, gathering, prefetch and kernels), which
// engine/filtered's strategies and engine/nested run too; this package
// supplies hnswlib's rule for W (and the shared bound's) once per expanded
// node. Stats count distances actually computed (hnswlib's metric_distance_
// computations counts every listed neighbour of an expanded node, visited
// or not).
//
// # The low-level graph API
//
// Strategies in other packages (pgvector's iterative scan, Qdrant's
// filtered traversal, ACORN's two-hop expansion) walk the graph through
// these pieces, all safe while no Add/AddBatch runs:
//
//	ix.MaxLevel() int                       // top layer, -1 when empty
//	ix.EntryPoint() engine.ID               // where every search starts
//	ix.Level(id) int                        // a node's top layer
//	ix.Neighbors(level, id) []engine.ID     // read-only view of a list
//	ix.M(), ix.M0()                         // list capacities
//	ix.Vector(id) []float32                 // read-only view of a vector
//	ix.PrepareQuery(dst, q) ([]float32, error)  // check + normalise
//	ix.QueryDistance(q, id) float32         // prepared query to node
//	ix.PairDistance(a, b) float32           // node to node (codes if attached)
//	ix.NewQueryScorer(q) (engine.QueryScorer, error)
//	s.Scorer(q) (engine.QueryScorer, error) // same, no allocation (float path)
//	ix.GreedyDescend(sc, *stats) (engine.ID, float32)   // Alg. 5 lines 1–4
//	s.SearchTrace(q, r) (*Trace, error)     // Search, recording each layer's hops and scored nodes
//
// engine/internal/topk provides the heaps and the epoch visited set.
//
// # Quantized traversal
//
// With Config.Codes (or [Index.AttachCodes]) the graph is built with
// CodeStore.Pair and searched with CodeStore.NewQueryScorer; the float32
// slab is kept so callers can rescore. Result distances are then the
// codes' distances. A request with a [Rescore] gathers
// k′ = engine.RescoreDepth(k, oversample) candidates by code distance and re-ranks them with full vectors from an
// engine/rescore.Rescorer (a RAM slab or the on-disk vector file, with
// counted reads), Elasticsearch's rescore_vector.
//
// # Concurrency
//
// An Index may be searched from many goroutines at once (one Searcher
// each, or Index.Query which pools them); engine.QueryBatch answers many
// queries on engine.Cores() goroutines through Query, in row order. Add, AddBatch and AttachCodes
// take the index's write lock, so searches wait for them. Inside AddBatch,
// Workers goroutines insert concurrently with striped per-node locks: a
// reader copies a neighbour list under its node's lock and computes
// distances after releasing it; a writer holds one node lock at a time
// (shrinking a full list under its lock, as hnswlib does); an insert that
// raises the top layer holds the entry-point lock for its whole duration.
// With Workers = 1 no locks are taken and the same seed and input give the
// same graph, byte for byte in the saved file.
//
// # File format
//
// Framed by engine/internal/blockfile (magic "VLHNSW\x00\x00", version 1,
// CRC-32C per section, end marker); all integers little-endian; sections in
// this order:
//
//	CONF  Config.String() as UTF-8 (Codes excluded)
//	META  n uint64 | entry uint32 | maxLevel int32 | PCG state (20 bytes) | minstd state uint32
//	KEYS  n × uint64, caller key of id 0…n-1
//	LEVL  n × uint8, top layer of each node
//	VECS  n × Dim × float32 (IEEE-754 bits), normalised under Cosine
//	LNK0  n × (M0+1) × uint32: count, then M0 slots (unused slots zero)
//	LNKU  for each node with level > 0, in id order: level × (M+1) × uint32
//
// Load checks every length before allocating, then the graph's semantics
// (counts within capacity, neighbours in range and on the layer, the entry
// at the top level, finite vectors, unique keys), and reports any problem
// as engine.ErrCorrupt naming the file, section and offset.
package hnsw
