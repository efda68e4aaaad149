package measure_test

import (
	"errors"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/profile"
)

// check is a notebook's one error idiom (the kernel predeclares it: the
// cell stops with err's message and the cell line).
func check(err error) {
	if err != nil {
		panic(err)
	}
}

// The cells of the article's E06, Redis's EF_RUNTIME sweep, one step each:
// open Redis on its defaults and load the data, compute the exact answers,
// sweep EF_RUNTIME over the article's values, and put the article's
// recall@10 beside the lab's. The notebook runs it on the article's data
// set (dataset.Config{}: 30,000 × 384, 100 queries); this example on a
// tenth of it, whose graph is easier to walk.
func Example_e06() {
	// Cell 1: the data set, generated from its seed.
	ds, err := dataset.Generate(dataset.Config{N: 3000, Queries: 40, Seed: 1})
	check(err)

	// Cell 2: the exact top-10 of every query, the answers recall is scored against.
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)

	// Cell 3: Redis on its defaults (M 16, EF_CONSTRUCTION 200, EF_RUNTIME 10), loaded in batches of 1,000.
	redis, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{})
	check(err)
	defer redis.Close()

	// Cell 4: EF_RUNTIME is a query-time knob: one index, three settings.
	sweep, err := measure.SweepEf(redis, []int{10, 50, 200}, queries)
	check(err)

	// Cell 5: the article's figures (06-redis-ef-runtime.txt) beside the lab's.
	article := []measure.Figure{
		{Row: "10", Measure: "recall@10", Value: 0.616},
		{Row: "50", Measure: "recall@10", Value: 0.962},
		{Row: "200", Measure: "recall@10", Value: 1.000},
	}
	t, err := measure.Beside("E06 Redis EF_RUNTIME", sweep, article)
	check(err)
	fmt.Print(t)
	// Output:
	// E06 Redis EF_RUNTIME
	// EF_RUNTIME  recall@10 (article)  recall@10 (lab)
	// ----------  -------------------  ---------------
	// 10                        0.616            0.925
	// 50                        0.962            1.000
	// 200                       1.000            1.000
	//   * recall@10 = |returned top 10 ∩ exact top 10| / 10, the mean over the queries (a filter matching fewer than 10 documents: over those)
	//   * lab: 40 queries after 20 warm-up, topK=10, one timed pass, single-threaded
}

// A knob the store refuses fails at the verb with the knob as written,
// the store's range and its rule.
func ExampleStore_knobError() {
	ds, err := dataset.Generate(dataset.Config{N: 500, Queries: 5, Dim: 32, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)
	es, err := profile.Default(profile.Elasticsearch).Build(ds.Base, profile.BuildOptions{})
	check(err)
	defer es.Close()
	_, err = measure.Store(es.WithOversample(0.5), queries)
	fmt.Println(err)
	fmt.Println(errors.Is(err, engine.ErrInvalidArgument))
	// Output:
	// WithOversample(0.5) on elasticsearch: oversample 0.5 is out of range, allowed 0 (none) or ≥ 1: Elasticsearch refuses "[oversample] must be >= 1.0"; 0 turns oversampling off (elastic/elasticsearch 9.1 server/src/main/java/org/elasticsearch/search/vectors/RescoreVectorBuilder.java)
	// true
}

// Filtered queries: the same queries restricted to the article's filter,
// scored against the exact top-10 of the matching documents; each store
// filters its own way (on 2,000 rows PostgreSQL's planner prefers a
// sequential scan to pgvector's index: exact; Elasticsearch filters inside
// its segments' graph walks).
func ExampleQueries_Where() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Dim: 64, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)
	filtered, err := queries.Where(dataset.ArticleWhere)
	check(err)
	fmt.Printf("%d of %d documents match %s\n", filtered.Matches(), ds.Base.N, filtered.Filter)
	for _, kind := range []profile.Kind{profile.PGVector, profile.Elasticsearch} {
		s, err := profile.Default(kind).Build(ds.Base, profile.BuildOptions{})
		check(err)
		r, err := measure.Store(s, filtered)
		check(err)
		fmt.Printf("%s, filtered: recall@10 %.3f, mean hits %.1f\n", r.Label, r.Recall, r.MeanHits)
		check(s.Close())
	}
	// Output:
	// 79 of 2000 documents match category == 'c3' && year >= 2022
	// pgvector, filtered: recall@10 1.000, mean hits 10.0
	// elasticsearch, filtered: recall@10 0.995, mean hits 10.0
}

// An index with explicit parameters, measured at two ef values.
func ExampleIndex() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Dim: 64, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)
	graph, err := hnsw.New(hnsw.Config{Dim: 64, M: 8, EfConstruction: 64, Seed: 1, Workers: 1}) // one builder: the same graph every run
	check(err)
	keys := make([]uint64, ds.Base.N) // row i under key i: the index's ids are the rows
	for i := range keys {
		keys[i] = uint64(i)
	}
	check(graph.AddBatch(keys, ds.Base))
	for _, ef := range []int{10, 100} {
		r, err := measure.Index(graph, ef, queries)
		check(err)
		fmt.Printf("ef %d: recall@10 %.3f\n", ef, r.Recall)
	}
	// Output:
	// ef 10: recall@10 0.950
	// ef 100: recall@10 1.000
}

// What a store holds, measured from the lab's structures: Redis on its
// defaults over 2,000 documents of 64 dimensions and their metadata.
func ExampleFootprint() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 5, Dim: 64, Seed: 1})
	check(err)
	meta, err := ds.Metadata() // the documents' stored fields and payload indexes
	check(err)
	redis, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{})
	check(err)
	defer redis.Close()
	sizes, err := measure.Footprint(redis, meta)
	check(err)
	fmt.Println(sizes)
	// Output:
	// redis: 2000 documents × 64 dims; per document: vectors 256 B, links 141 B, codes 0 B (397 B/vector), stored fields 38 B, payload indexes 22 B
}

// Rescoring from disk: an HNSW graph walked with 2-bit codes in RAM, the
// float32 originals in a vector file (here on engine/store's in-memory file
// system with its simulated page cache), ⌈3·k⌉ candidates rescored, warm
// and with the file evicted before every query.
func ExampleRescored() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 20, Dim: 64, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)
	codes, err := quant.TrainBinary(ds.Base, engine.Cosine, quant.BinaryConfig{Encoding: quant.TwoBits})
	check(err)
	graph, err := hnsw.New(hnsw.Config{Dim: 64, M: 16, EfConstruction: 100, Seed: 1, Workers: 1})
	check(err)
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	check(graph.AddBatch(keys, ds.Base))
	check(graph.AttachCodes(quant.NewStore(codes)))

	fsys := vfs.NewMem()
	check(store.WriteMatrixFS(fsys, "vectors.vec", ds.Base, engine.Cosine))
	file, err := store.OpenFS(fsys, "vectors.vec", store.Options{})
	check(err)
	defer file.Close()
	rs, err := rescore.New(file, engine.Cosine, rescore.Options{})
	check(err)

	_, err = file.Warm()
	check(err)
	warm, err := measure.Rescored(graph, 50, 3, rs, queries, nil)
	check(err)
	cold, err := measure.Rescored(graph, 50, 3, rs, queries, file)
	check(err)
	for _, r := range []measure.Rescoring{warm, cold} {
		fmt.Printf("cold %t: recall@10 %.3f, %.1f reads/q, %.1f device reads/q\n", r.Cold, r.Recall, r.Reads, r.DeviceReads)
	}
	// Output:
	// cold false: recall@10 0.900, 30.0 reads/q, 0.0 device reads/q
	// cold true: recall@10 0.900, 30.0 reads/q, 27.4 device reads/q
}

// The cells of the article's E01 for one store: Elasticsearch on its
// defaults, loaded in the article's batches and timed. At the last
// acknowledgement a search sees only what the refreshes have sealed (a
// refresh comes with the batch that completes a refresh_interval of ingest
// at the article's rate, 3,039 documents: here after 4,000); once Ingest
// returns, the store has refreshed and answers over every document.
func ExampleIngest() {
	ds, err := dataset.Generate(dataset.Config{N: 5000, Queries: 20, Dim: 32, Seed: 1})
	check(err)
	queries, err := measure.Exact(ds, 10, engine.Cosine)
	check(err)

	es, in, err := measure.Ingest(profile.Default(profile.Elasticsearch), ds.Base, profile.BuildOptions{Batch: 1000}, queries)
	check(err)
	defer es.Close()
	fmt.Printf("%s: %d of %d searchable at the last ack, %d once searchable\n", in.Label, in.Visible, in.Docs, es.Visible())
	fmt.Println(in.Acked > 0, in.Searchable >= in.Acked)

	// The article's figures beside the lab's (seconds and docs/s vary from run to run).
	t, err := measure.BesideIngest("E01", []measure.Ingested{in}, []measure.Figure{{Row: "elasticsearch", Measure: "docs/s", Value: 3039, Unit: "docs/s"}})
	check(err)
	fmt.Println(t.Columns[3].Label(), t.Columns[4].Label())
	// Output:
	// elasticsearch: 4000 of 5000 searchable at the last ack, 5000 once searchable
	// true true
	// docs/s (article) docs/s (lab)
}
