package profile_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// Each store's default query plan for topK = 10 on 384-dim vectors.
func ExampleProfile_Plan() {
	for _, p := range profile.Defaults() {
		fmt.Printf("%-13s %v\n", p.Kind, p.Plan(10, 384))
	}
	// Output:
	// pgvector      k=10 ef=40 candidates=10 limit=10
	// redis         k=10 ef=10 candidates=10 limit=10
	// qdrant        k=10 ef=100 candidates=10 limit=10
	// elasticsearch k=10 ef=30 candidates=30 limit=10 rescore=30 num_candidates=30
}

// A profile prints as a config line and parses back.
func ExampleParse() {
	p, err := profile.Parse("redis ef_runtime=50")
	fmt.Println(p, err)
	// Output: redis metric=cosine m=16 m0=32 ef_construction=200 degree0=16 keep_pruned=false ef=50 segments=1 seed=0 workers=1 <nil>
}

// Build a store on its defaults, search it, then override one setting.
func ExampleProfile_Build() {
	ds, err := dataset.Generate(dataset.Config{N: 500, Queries: 1, Dim: 384, Clusters: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{Batch: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	res, err := s.Search(ds.Queries.Row(0), 10)
	fmt.Println(len(res), err, s.Profile().Ef)
	wide := s.WithEf(200) // EF_RUNTIME 200, same index
	res, err = wide.Search(ds.Queries.Row(0), 10)
	fmt.Println(len(res), err, wide.Profile().Ef)
	// Output:
	// 10 <nil> 10
	// 10 <nil> 200
}

// pgvector's hnsw.iterative_scan is a session setting: a view sets it
// without rebuilding, and a mode PostgreSQL would refuse is refused.
func ExampleStore_WithIterativeScan() {
	ds, err := dataset.Generate(dataset.Config{N: 300, Queries: 1, Dim: 8, Clusters: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	pg, err := profile.Default(profile.PGVector).Build(ds.Base, profile.BuildOptions{Batch: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pg.Close()
	relaxed := pg.WithIterativeScan("relaxed_order")
	fmt.Println(relaxed.Profile().FilterStrategy())
	fmt.Println(pg.WithIterativeScan("on").Err())
	// Output:
	// iterative-relaxed
	// WithIterativeScan("on") on pgvector: hnsw.iterative_scan "on" is out of range, allowed off, relaxed_order, strict_order: PostgreSQL refuses it: "invalid value for parameter "hnsw.iterative_scan"" (Available values: off, relaxed_order, strict_order) (pgvector/pgvector v0.8.0 src/hnsw.c DefineCustomEnumVariable("hnsw.iterative_scan", …, hnsw_iterative_scan_options))
}

// Qdrant's payload indexes are part of the collection: the profile names
// the indexed fields, and Payload gives the metadata as Qdrant holds it.
func ExampleProfile_Payload() {
	ds, err := dataset.Generate(dataset.Config{N: 300, Queries: 1, Dim: 8, Clusters: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	meta, err := ds.Metadata()
	if err != nil {
		fmt.Println(err)
		return
	}
	q := profile.Default(profile.Qdrant)
	q.PayloadIndex = "category,year" // the article's keyword index on category, integer index on year
	payload, err := q.Payload(meta)
	fmt.Println(payload.Indexed("category"), payload.Indexed("year"), payload.Indexed("region"), err)
	q.PayloadIndex = "colour"
	_, err = q.Payload(meta)
	fmt.Println(err)
	// Output:
	// true true false <nil>
	// payload_index=colour on qdrant: payload_index colour is out of range, allowed field names of the payload, comma-separated: the points' payload has no field "colour" (it has category, year, region): each PUT /collections/{name}/index names one field_name of the points' payload (qdrant/qdrant v1.19 lib/collection/src/operations/types.rs CreateFieldIndex)
}

// Elasticsearch reads each hit's _id from the stored fields it keeps
// beside _source, compressed in blocks; a doc-values column holds the id
// alone. A view chooses where the ids come from (E17): the same hits,
// blocks decompressed or none.
func ExampleStore_WithFetch() {
	ds, err := dataset.Generate(dataset.Config{N: 2000, Queries: 1, Dim: 16, Clusters: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := profile.Default(profile.Elasticsearch)
	p.Type = profile.HNSWType // float32 graphs
	es, err := p.Build(ds.Base, profile.BuildOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer es.Close()
	for _, mode := range []string{"docvalue_fields", "stored_fields"} {
		res, st, err := es.WithFetch(mode).SearchStats(ds.Queries.Row(0), 100)
		fmt.Printf("%-15s %d hits, blocks decompressed: %t, %v\n", mode, len(res), st.Blocks > 0, err)
	}
	_, err = es.WithFetch("_source").Search(ds.Queries.Row(0), 100)
	fmt.Println(err != nil)
	// Output:
	// docvalue_fields 100 hits, blocks decompressed: false, <nil>
	// stored_fields   100 hits, blocks decompressed: true, <nil>
	// true
}

// Qdrant's quantization_config is a profile setting (the collection is
// built with it); its search params rescore and oversampling are views.
// Qdrant's defaults: int8 returns the quantized scores, binary rescores,
// oversampling 1.
func ExampleStore_WithRescore() {
	for _, s := range []string{"qdrant quantization=int8", "qdrant quantization=binary", "qdrant quantization=int8 rescore=true oversampling=3"} {
		p, err := profile.Parse(s)
		fmt.Printf("%-52s %v %v\n", s, p.Plan(10, 768), err)
	}
	ds, err := dataset.Generate(dataset.Config{N: 500, Queries: 1, Dim: 64, Clusters: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := profile.Parse("qdrant quantization=int8")
	s, err := p.Build(ds.Base, profile.BuildOptions{Batch: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	v := s.WithOversample(3).WithRescore(true)
	fmt.Println(v.Profile().Plan(10, 64), v.Err())
	fmt.Println(s.WithOversample(0.5).Err())
	// Output:
	// qdrant quantization=int8                             k=10 ef=100 candidates=10 limit=10 <nil>
	// qdrant quantization=binary                           k=10 ef=100 candidates=10 limit=10 rescore=10 <nil>
	// qdrant quantization=int8 rescore=true oversampling=3 k=10 ef=100 candidates=30 limit=10 rescore=30 <nil>
	// k=10 ef=100 candidates=30 limit=10 rescore=30 <nil>
	// WithOversample(0.5) on qdrant: params.quantization.oversampling 0.5 is out of range, allowed ≥ 1 (with quantization=int8 or binary): Qdrant validates "range(min = 1.0)", and oversampling acts on a quantized collection only (set quantization=int8 or binary on the profile) (qdrant/qdrant v1.19.0 lib/segment/src/types.rs QuantizationSearchParams; lib/segment/src/index/vector_index_search_common.rs get_oversampled_top)
}

// The same "1" means two copies in Elasticsearch and one in Qdrant:
// Elasticsearch counts replicas besides the primary, Qdrant copies in all.
func ExamplePlace() {
	for _, k := range []profile.Kind{profile.Elasticsearch, profile.Qdrant} {
		rep := profile.Replication{Shards: 3, Replicas: 1}
		l, _ := profile.Place(k, rep, 3)
		fmt.Printf("%s (%s): %v copies per shard; %s\n", k, rep.Describe(k), l.ShardCopies(), l)
	}
	// Output:
	// elasticsearch (number_of_shards 3, number_of_replicas 1): [2 2 2] copies per shard; node 0: s0* s2; node 1: s1* s0; node 2: s2* s1
	// qdrant (shard_number 3, replication_factor 1): [1 1 1] copies per shard; node 0: s0; node 1: s1; node 2: s2
}
