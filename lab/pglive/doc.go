// Package pglive runs the Spring AI VectorStore article's pgvector store on a real
// PostgreSQL server, beside its emulation in lab/profile: the same table, the
// same index, the same per-query settings and the same SQL as Spring AI's
// PgVectorStore, so that recall, hits and query plans can be compared with
// the lab's model on the same data and queries.
//
// # The store
//
// [DB.Load] creates Spring AI's table (PgVectorStore.afterPropertiesSet
// with initializeSchema):
//
//	CREATE TABLE veclab_vector_store (id uuid PRIMARY KEY, content text, metadata json, embedding vector(dim))
//	CREATE INDEX … USING hnsw (embedding vector_cosine_ops)   -- m 16, ef_construction 64
//
// (LoadOptions.M and EfConstruction add WITH (m = …, ef_construction = …),
// for a pgvector profile built with other values)
//
// before any row, as Spring AI does, then inserts the documents in batches
// (1,000 by default, the article's batch) as multi-row INSERTs, so every row
// enters the HNSW graph one by one as in the article's run and the lab's
// emulation. metadata is json, not jsonb, because that is the column type
// Spring AI creates; its filter casts it (metadata::jsonb).
//
// [Table.Search] sets hnsw.ef_search, hnsw.iterative_scan,
// hnsw.max_scan_tuples and enable_seqscan for the session and runs Spring
// AI's cosine query (PgDistanceType.COSINE_DISTANCE):
//
//	SELECT id, embedding <=> $1 AS distance FROM veclab_vector_store
//	 WHERE embedding <=> $1 < $2 AND metadata::jsonb @@ '<jsonpath>'::jsonpath
//	 ORDER BY distance LIMIT $3
//
// with $2 = 1 − similarityThreshold = 1 (SearchRequest's default threshold
// accepts all) and the filter converted as PgVectorFilterExpressionConverter
// does ([JSONPath]). Spring AI selects *; the lab reads id and distance only,
// which changes no plan. Each search also runs EXPLAIN (FORMAT JSON) of the
// same statement, so its answer says which plan PostgreSQL chose: the HNSW
// index scan or a sequential scan with a top-N sort (exact).
//
// # Servers
//
// [Start] serves an embedded PostgreSQL 18.6 with pgvector 0.8.7: PGlite
// 0.5.15 (PostgreSQL compiled to WebAssembly) with the extension from
// @electric-sql/pglite-pgvector 0.0.16 and the wire protocol from
// @electric-sql/pglite-socket 0.2.18 (whose peer dependencies name exactly
// those two), run by node from server/, whose npm packages are pinned by
// server/package-lock.json (install them with `npm ci` there; pglite-socket
// names every PGlite extension package as a peer dependency, so npm puts
// the other six in the tree too, unused). pgvector is
// the article's version; PostgreSQL is not: the article ran 16.15, PGlite
// 0.5 is built from 18.6. What E02, E03 and E07 compare (pgvector's HNSW
// scan, its cost estimate, the plan's choice) is pgvector's code; the
// planner's default costs are the same in both versions. [Connect] reaches it, or any other PostgreSQL with the
// vector extension, by URL. The embedded server is single-threaded
// WebAssembly: its latencies are not comparable with native PostgreSQL's;
// its recall, hits and plans are — the planner and pgvector are the real C
// code. One difference from a stock server: PGlite starts its backend with
// enable_seqscan=off on its command line; server.mjs sets it back on, and
// [Table.Search] sets all four settings for every query anyway. Every
// socket client of the embedded server shares its one backend session.
//
// # Concurrency
//
// A [DB] is one connection: its methods must not be called concurrently
// (PGlite serves one connection at a time anyway). A [Server] may be closed
// from any goroutine.
package pglive
