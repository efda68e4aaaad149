package experiment

import (
	"fmt"
	"strings"
)

// articleClaim is one numbered claim of a seed article, in the article's
// order: what it states, with its figure, the experiment that reproduces
// it, and the registered claims ([Experiment.Claims]) whose verdicts
// judge it, each named by its experiment and a part of its text that
// names it alone ("E02: redis answers fastest": the claim it is, else
// the one claim it begins, else the one it is inside). A claim no verdict
// judges says why in Open.
type articleClaim struct {
	Text     string
	ID       string   // the experiment, "" when none reproduces it
	Verdicts []string // "E02: part of a registered claim", one or more
	Open     string   // why no verdict judges it (Verdicts empty)
}

// seedArticle is one seed article and its numbered claims.
type seedArticle struct {
	Seed, Title string
	Claims      []articleClaim
}

// articles are the three seed articles claim by claim (read from
// shared/seeds): the catalogue `veclab reproduce -list` prints, so a claim
// without a verdict is in plain view. TestArticleClaimsResolve fails when
// a verdict named here is not registered.
var articles = []seedArticle{
	{Seed: "000", Title: "Spring AI VectorStore: four stores on their defaults", Claims: []articleClaim{
		{Text: "ingest of 30,000 documents: qdrant 17,382 > redis 3,158 > elasticsearch 3,039 > pgvector 645 docs/s", ID: "E01", Verdicts: []string{"E01: the stores ingest in the article's order"}},
		{Text: "qdrant ingests 5.5× as fast as redis (17,382 against 3,158 docs/s)", ID: "E01", Verdicts: []string{"E01: qdrant acknowledges documents faster", "E01: qdrant ingests about 5.5×"}},
		{Text: "\"ingest finished\" is not \"searchable\": a refresh, an optimizer pass, an indexing queue", ID: "E01", Verdicts: []string{"E01: pgvector: everything visible", "E01: redis: at the last ack", "E01: qdrant: all points searchable", "E01: elasticsearch: acknowledged documents"}},
		{Text: "unfiltered recall@10 on defaults: pgvector 0.951, redis 0.616, qdrant 0.999, elasticsearch 0.491", ID: "E02", Verdicts: []string{"E02: pgvector on its defaults", "E02: redis on its defaults", "E02: qdrant on its defaults", "E02: elasticsearch on its defaults"}},
		{Text: "two of four stores miss half by default: elasticsearch lowest, then redis", ID: "E02", Verdicts: []string{"E02: the two outliers"}},
		{Text: "unfiltered p50 / p95: pgvector 9.5 / 16.4, redis 0.7 / 1.1, qdrant 2.8 / 6.8, elasticsearch 5.4 / 20.5 ms", ID: "E02", Verdicts: []string{"E02: redis answers fastest", "E02: pgvector's p50", "E02: pgvector's p95", "E02: qdrant's p50", "E02: qdrant's p95", "E02: elasticsearch's p50", "E02: elasticsearch's p95"}},
		{Text: "mean hits 10 for every store, unfiltered", ID: "E02", Verdicts: []string{"E02: every store returns 10 hits"}},
		{Text: "the defaults: pgvector m=16, ef_construction=64, ef_search=40; Redis EF_RUNTIME=10; Qdrant m=16, ef_construct=100; Elasticsearch bbq_hnsw, m=16, ef_construction=100, oversample 3, num_candidates 1.5·k", ID: "E04", Verdicts: []string{"E04: every default"}},
		{Text: "Redis EF_RUNTIME default / 50 / 200: recall@10 0.616 / 0.962 / 1.000", ID: "E06", Verdicts: []string{"E06: 10 (Redis EF_RUNTIME): recall@10", "E06: 50 (Redis EF_RUNTIME): recall@10", "E06: 200 (Redis EF_RUNTIME): recall@10"}},
		{Text: "Redis EF_RUNTIME: filtered recall 1.000 and p50 0.6–0.8 ms at every setting", ID: "E06", Verdicts: []string{"E06: 10 (Redis EF_RUNTIME): filtered recall@10", "E06: 50 (Redis EF_RUNTIME): filtered recall@10", "E06: 200 (Redis EF_RUNTIME): filtered recall@10", "E06: 50 (Redis EF_RUNTIME): p50", "E06: 200 (Redis EF_RUNTIME): p50", "E06: 50 (Redis EF_RUNTIME): filtered p50", "E06: 200 (Redis EF_RUNTIME): filtered p50"}},
		{Text: "Elasticsearch num_candidates 15 / 50 / 100 / 500: recall@10 0.491 / 0.489 / 0.490 / 0.490, flat: the candidate count is not the cause", ID: "E05", Verdicts: []string{"E05: 15 (num_candidates)", "E05: 50 (num_candidates)", "E05: 100 (num_candidates)", "E05: 500 (num_candidates)", "E05: recall is flat"}},
		{Text: "index types: recall@10 bbq_hnsw 0.491, int8_hnsw 0.952, hnsw 0.995; the index type is the cause", ID: "E10", Verdicts: []string{"E10: bbq_hnsw (index type): recall", "E10: int8_hnsw (index type): recall", "E10: hnsw (index type): recall", "E10: bbq_hnsw has the lowest"}},
		{Text: "index types: filtered recall 0.544 / 0.974 / 1.000", ID: "E10", Verdicts: []string{"E10: bbq_hnsw (index type): filtered", "E10: int8_hnsw (index type): filtered", "E10: hnsw (index type): filtered"}},
		{Text: "index types: store 54.4 / 64.1 / 52.6 MB (quantization keeps the full vectors)", ID: "E10", Verdicts: []string{"E10: bbq_hnsw's store", "E10: int8_hnsw's store"}},
		{Text: "the default row moved between 0.47 and 0.50 over the runs; the gap to the others is far larger", ID: "E10", Verdicts: []string{"E10: bbq_hnsw's recall@10 moves", "E10: the gap from bbq_hnsw"}},
		{Text: "filter category == 'c3' && year >= 2022 (4.4 %): recall@10 0.167 / 1.000 / 1.000 / 0.544, mean hits 1.8 / 10 / 10 / 10", ID: "E03", Verdicts: []string{"E03: pgvector: filtered recall", "E03: pgvector: a filtered query", "E03: redis: filtered recall", "E03: redis: a filtered query", "E03: qdrant: filtered recall", "E03: qdrant: a filtered query", "E03: elasticsearch: filtered recall", "E03: elasticsearch: a filtered query"}},
		{Text: "filtered p50 / p95: pgvector 10.0 / 15.7, redis 1.6 / 2.4, qdrant 27.6 / 38.9, elasticsearch 3.1 / 7.7 ms", ID: "E03", Verdicts: []string{"E03: redis answers the filtered query fastest", "E03: pgvector's filtered p50", "E03: pgvector's filtered p95", "E03: qdrant's filtered p50", "E03: qdrant's filtered p95", "E03: elasticsearch's filtered p50", "E03: elasticsearch's filtered p95"}},
		{Text: "pgvector ef_search / iterative scan: hits, p50, recall for (40, off) … (40, strict_order); strict_order below relaxed_order", ID: "E07", Verdicts: []string{"E07: 40 off: filtered", "E07: 40 off: a filtered", "E07: 200 off: filtered", "E07: 200 off: a filtered", "E07: 1000 off: filtered", "E07: 1000 off: a filtered", "E07: 40 relaxed_order: filtered", "E07: 40 relaxed_order: a filtered", "E07: 40 strict_order: filtered", "E07: 40 strict_order: a filtered", "E07: strict_order's recall"}},
		{Text: "pgvector ef_search / iterative scan p50: 1.2 / 1.7 / 28.2 / 7.7 / 9.7 ms", ID: "E07", Verdicts: []string{"E07: 200 off: p50", "E07: 1000 off: p50", "E07: 40 relaxed_order: p50", "E07: 40 strict_order: p50"}},
		{Text: "Qdrant filtered, no payload index: recall 1.000, p50 26.2, p95 37.2 ms; with keyword + integer index: 1.000, 1.5, 3.2 ms", ID: "E08", Verdicts: []string{"E08: no payload index: filtered", "E08: keyword+integer index", "E08: the payload index makes", "E08: without a payload index the filter reads"}},
		{Text: "Qdrant indexing threshold: 10,000 documents in 2 segments stay unindexed (indexed_vectors_count 0); 30,000 all indexed", ID: "E08", Verdicts: []string{"E08: a third of the documents", "E08: every vector of the full collection"}},
		{Text: "Redis refuses a filter on an undeclared field: \"Not allowed filter identifier name: category\"", ID: "E09", Verdicts: []string{"E09: the filter on an undeclared field", "E09: with category and year declared"}},
		{Text: "sizes: raw 46 MB; pgvector table 59 + index 59 MB; redis used_memory 434 MB, 10.6 KB per document, vector index 55.4 MB; qdrant 144 MB; elasticsearch 54.3 MB", ID: "E11", Verdicts: []string{"E11: raw vectors", "E11: pgvector's table (heap", "E11: pgvector's HNSW index", "E11: pgvector's table and index", "E11: Redis's one document", "E11: Redis's vector index", "E11: Redis holds the most", "E11: Redis's used_memory per document", "E11: Redis's used_memory beyond", "E11: Qdrant's storage directory", "E11: Elasticsearch's store"}},
		{Text: "process memory (PSS): pgvector 153, redis 422, qdrant 172, elasticsearch 1,550 MB", ID: "E11", Verdicts: []string{"E11: pgvector's process memory", "E11: redis's process memory", "E11: qdrant's process memory", "E11: elasticsearch's process memory"}},
		{Text: "Elasticsearch on a nearly full disk: shards unassigned above the 90 % high watermark, a bulk timeout, one WARN line", ID: "E12", Verdicts: []string{"E12: a save on a disk below", "E12: a save that starts above", "E12: a save whose own bytes", "E12: a disk flooded", "E12: the refusal names", "E12: nothing is lost", "E12: no temporary file"}},
	}},
	{Seed: "003", Title: "Elastic's reply to Qdrant, with the Lucene posts it cites", Claims: []articleClaim{
		{Text: "memory is compared like for like: a 2 GB JVM heap (25 % of an 8 GB node) is a label, not the bytes in use", ID: "E14", Verdicts: []string{"E14: Elasticsearch's 2 GB JVM heap", "E14: on an 8 GB node both engines"}},
		{Text: "rescoring 100 candidates × one 8 KB page: 333 / 3,333 / 33,333 / 333,333 IOPS and 3 / 27 / 273 / 2,731 MB/s per node at 10 … 10,000 QPS; an IOPS problem, not bandwidth", ID: "E13", Verdicts: []string{"E13: bandwidth per node", "E13: rescoring 100 candidates", "E13: IOPS per node"}},
		{Text: "the working set: 100 × 10,000 × 8 KB = 8 GB per cluster, 2.7 GB per node, fits the page cache", ID: "E13", Verdicts: []string{"E13: rescore working set"}},
		{Text: "gp3 at baseline (3,000 IOPS per node) caps cold queries at about 90 QPS", ID: "E13", Verdicts: []string{"E13: the cap a 3 × 3,000"}},
		{Text: "provisioned gp3 or local NVMe push that to roughly 480 or 3,000 QPS", ID: "E13", Verdicts: []string{"E13: the cap 3 nodes of provisioned gp3", "E13: the cap 3 nodes of local NVMe"}},
		{Text: "RAM budget: 4-bit codes 384 B + HNSW m=16 links 136 B = 520 B per vector; 3.64 GB per node at 21 M on 3 nodes; measured 3.4–3.9 GB", ID: "E14", Verdicts: []string{"E14: 4-bit codes per vector", "E14: resident per vector", "E14: the resident index of 21 M"}},
		{Text: "the disk served 0 IOPS during the run: the page cache was warm", ID: "E15", Verdicts: []string{"E13: warm cache: no read", "E15: warm page cache: no device read"}},
		{Text: "async (io_uring) scorer off / on: 31.6 / 35.8 QPS at ef = 50, a 13 % move within run-to-run noise", ID: "E15", Verdicts: []string{"E15: warm page cache: concurrent reads are faster", "E15: warm page cache: concurrent reads change QPS little"}},
		{Text: "io_uring is excellent when the working set overflows RAM (the cold regime)", ID: "E15", Verdicts: []string{"E13: cold cache: the reads reach", "E15: cold page cache", "E15: simulated device"}},
		{Text: "segments 128 → 66 (merged) → 67 (Qdrant): recall@100 0.9745 / 0.9531 / 0.9596, 35.8 / 53.3 / 67.2 QPS: fewer segments, lower recall, higher QPS at the same ef", ID: "E16", Verdicts: []string{"E16: fewer segments: lower recall", "E16: fewer segments: recall falls", "E16: fewer segments: higher QPS", "E16: fewer segments: QPS rises"}},
		{Text: "twice the segments is close to twice the per-query work", ID: "E16", Verdicts: []string{"E16: fewer segments: fewer distance"}},
		{Text: "parallel ingest is fast and makes many segments; single-threaded ingest is slow and makes few", ID: "E18", Verdicts: []string{"E18: parallel ingest leaves", "E18: parallel ingest is faster", "E18: fewer segments answer faster"}},
		{Text: "building the graph at ef_construct = 256 took about 1.6 h on the 2-vCPU nodes", ID: "E14", Verdicts: []string{"E14: building the HNSW graph"}},
		{Text: "IVF (bbq_disk) is cheap to build and far less sensitive to segment count", ID: "E18", Verdicts: []string{"E18: IVF builds faster", "E18: IVF's query work moves less"}},
		{Text: "document retrieval: visit 1 / 2 / 3 / 5 % → recall@100 0.894 / 0.939 / 0.956 / 0.970; QPS with stored-field ids 44 / 39 / 35 / 31, ids isolated 89 / 73 / 56 / 40", ID: "E17", Verdicts: []string{"E17: reading the ids from a column", "E17: the QPS gain is larger", "E17: ids from the stored fields", "E17: both ways return"}},
		{Text: "matched to Qdrant's setup the two are on par: id-isolated Elasticsearch about 56 QPS against Qdrant's 53 to 67 at the same recall", ID: "E18", Verdicts: []string{"E18: one writer's few segments"}},
		{Text: "float32 → bfloat16 stored originals: 3,072 → 1,536 bytes each", ID: "E13", Verdicts: []string{"E13: bfloat16 stores a 768-dim original", "E13: rescoring with bfloat16 originals"}},
		{Text: "replicas: 1 in Elasticsearch and RF=2 in Qdrant are the same two copies", ID: "E14", Verdicts: []string{"E14: replicas: 1 in Elasticsearch and RF=2", "E14: in the reply's round, replicas: 0"}},
		{Text: "round 1: Qdrant at 2-bit, oversample 1, reached 0.97 recall only at a very large ef (4.5 QPS), before disk enters", ID: "E26", Verdicts: []string{"E26: oversample 1: widening the HNSW beam", "E26: at oversample 1, a design reaches"}},
		{Text: "base64 vectors: parsing 1,000 JSON documents more than 10× faster; indexing +100 % (DiskBBQ), +20 % (HNSW)", ID: "E19", Verdicts: []string{"E19: base64 parses faster", "E19: base64 raises HNSW ingest throughput", "E19: base64 raises HNSW ingest throughput by", "E19: base64 raises DiskBBQ (IVF) ingest throughput", "E19: base64 raises DiskBBQ (IVF) ingest throughput by", "E19: the ingest gain is larger"}},
		{Text: "searching segments concurrently: 104 → 219 QPS", ID: "E20", Verdicts: []string{"E20: concurrent segment search", "E20: concurrent search answers"}},
		{Text: "sharing the best-so-far bound across segments: up to 60 % less latency at comparable recall", ID: "E20", Verdicts: []string{"E20: the shared bound computes fewer distances at the same", "E20: the shared bound computes fewer distances at equal", "E20: the shared bound cuts"}},
		{Text: "Panama vector API: large dot-product speed-ups; indexing about 900 → 1,300 docs/s", ID: "E21", Verdicts: []string{"E21: SIMD kernels compute", "E21: SIMD kernels speed indexing"}},
		{Text: "int8: ~75 % less memory; recall@10 a little below raw, recovered by quantized@15", ID: "E22", Verdicts: []string{"E22: int8 cuts", "E22: int8 recall@10", "E22: quantized@15"}},
		{Text: "int4 with error correction: 8× compression without worse results", ID: "E23", Verdicts: []string{"E23: int4 compresses", "E23: the error-correction term", "E23: with rescoring ×3", "E23: int4 rescored ×3"}},
		{Text: "binary quantization: 32× compression", ID: "E24", Verdicts: []string{"E24: 1 bit per dimension", "E24: rescoring an oversampled set", "E24: a 4-bit query"}},
		{Text: "nested vectors: pre-joining to the parent during the graph walk returns the k nearest documents", ID: "E25", Verdicts: []string{"E25: joining during the walk", "E25: k passages then dedupe", "E25: at equal beam", "E25: the workaround"}},
	}},
	{Seed: "004", Title: "Elastic: DiskBBQ 7× faster than Qdrant on network-attached storage", Claims: []articleClaim{
		{Text: "up to 7× higher throughput than Qdrant at comparable recall (0.93–0.97) on network-attached storage", ID: "E26", Verdicts: []string{"E26: oversample 1 on gp3 (simulated): IVF up to 7×"}},
		{Text: "the gap widens as recall increases", ID: "E26", Verdicts: []string{"E26: on gp3 (simulated), the speed-up at matched recall widens"}},
		{Text: "DiskBBQ keeps latency nearly flat as breadth grows; Qdrant's p95 rises sharply with hnsw_ef", ID: "E26", Verdicts: []string{"E26: on gp3 (simulated), HNSW's p95 latency rises"}},
		{Text: "oversampling fixed at 1, recall tuned by breadth, in the 0.93–0.97 range", ID: "E26", Verdicts: []string{"E26: at oversample 1, a design reaches", "E26: oversample 1: IVF reaches a higher"}},
		{Text: "Qdrant often performs better on local NVMe", ID: "E26", Verdicts: []string{"E26: Qdrant's HNSW answers faster on the local file"}},
		{Text: "21 M × 768 float32 vectors: about 60.1 GiB raw", ID: "E26", Verdicts: []string{"E26: 21 M × 768 float32"}},
		{Text: "2-bit quantization: 3,072 → 192 bytes per vector, 16×, a quantized corpus of around 4 GB (3.8–4.0 GB)", ID: "E26", Verdicts: []string{"E26: 2-bit codes: 192 B", "E26: 2-bit codes shrink", "E26: the 2-bit corpus"}},
		{Text: "2 bits because Qdrant could not reach the target recall range with 1-bit binary quantization", ID: "E26", Verdicts: []string{"E26: Qdrant's 1-bit binary"}},
		{Text: "Qdrant's rescore reads original float32 vectors from disk with random access on each query", ID: "E27", Verdicts: []string{"E27: a disk-resident HNSW (modelled)"}},
		{Text: "three shards with two copies each in both engines", ID: "E14", Verdicts: []string{"E14: three shards with two copies each"}},
	}},
}

// resolve returns the registered claim of exps that ref ("E02: part of
// its text") names, or an error when none or several do.
func resolve(exps []Experiment, ref string) (Experiment, Claim, error) {
	id, part, ok := strings.Cut(ref, ": ")
	if !ok {
		return Experiment{}, Claim{}, fmt.Errorf("experiment: article claim reference %q: want \"E02: part of the claim\"", ref)
	}
	for _, e := range exps {
		if e.ID != id {
			continue
		}
		// The claim the part is, else the claims it begins, else those
		// it is inside.
		var found []Claim
		for _, c := range e.Claims {
			if c.Claim == part {
				return e, c, nil
			}
		}
		for _, c := range e.Claims {
			if strings.HasPrefix(c.Claim, part) {
				found = append(found, c)
			}
		}
		if len(found) == 0 {
			for _, c := range e.Claims {
				if strings.Contains(c.Claim, part) {
					found = append(found, c)
				}
			}
		}
		switch len(found) {
		case 1:
			return e, found[0], nil
		case 0:
			return e, Claim{}, fmt.Errorf("experiment: article claim reference %q: %s registers no claim containing %q", ref, id, part)
		}
		return e, Claim{}, fmt.Errorf("experiment: article claim reference %q: %d of %s's claims contain %q", ref, len(found), id, part)
	}
	return Experiment{}, Claim{}, fmt.Errorf("experiment: article claim reference %q: no experiment %s is registered", ref, id)
}

// checkArticles resolves every verdict the article catalogue names
// against the registry, and reports the first that does not resolve.
func checkArticles() error {
	exps, err := Select("")
	if err != nil {
		return err
	}
	for _, a := range articles {
		for i, c := range a.Claims {
			if len(c.Verdicts) == 0 && c.Open == "" {
				return fmt.Errorf("experiment: article %s claim %d (%q) has neither a verdict nor a reason it has none", a.Seed, i+1, c.Text)
			}
			for _, ref := range c.Verdicts {
				if _, _, err := resolve(exps, ref); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// articleCounts returns, per article, its numbered claims and how many of
// them a verdict judges.
func articleCounts() (seeds []string, claims, judged []int) {
	for _, a := range articles {
		n := 0
		for _, c := range a.Claims {
			if len(c.Verdicts) > 0 {
				n++
			}
		}
		seeds, claims, judged = append(seeds, a.Seed), append(claims, len(a.Claims)), append(judged, n)
	}
	return seeds, claims, judged
}

// ArticleList prints the catalogue for `veclab reproduce -list`: each
// article's numbered claims with the experiment and the verdicts that
// judge them (or why none does), and the count per article; markdown
// renders it as Markdown sections for docs/experiments.md.
func ArticleList(markdown bool) string {
	exps, _ := Select("")
	var b strings.Builder
	if markdown {
		b.WriteString("\n## Every numbered claim of the articles\n\n")
		b.WriteString("Each article's claims in its order, with the experiment that reproduces it and the registered claims whose verdicts judge it (`veclab reproduce` prints the verdicts); *open* says why a claim has no verdict.\n")
	}
	cell := strings.NewReplacer("|", "\\|", "\n", " ")
	for _, a := range articles {
		n, open := 0, []string{}
		for i, c := range a.Claims {
			if len(c.Verdicts) > 0 {
				n++
			} else {
				open = append(open, fmt.Sprint(i+1))
			}
		}
		summary := fmt.Sprintf("%d numbered claims, %d judged by verdicts", len(a.Claims), n)
		if len(open) > 0 {
			summary += ", open: " + strings.Join(open, ", ")
		}
		if markdown {
			fmt.Fprintf(&b, "\n### Article %s — %s\n\n%s.\n\n| # | claim | experiment | verdicts |\n|---|---|---|---|\n", a.Seed, a.Title, summary)
		} else {
			fmt.Fprintf(&b, "\narticle %s — %s: %s\n", a.Seed, a.Title, summary)
		}
		for i, c := range a.Claims {
			var vs []string
			for _, ref := range c.Verdicts {
				e, cl, err := resolve(exps, ref)
				if err != nil {
					vs = append(vs, "unresolved: "+ref)
					continue
				}
				vs = append(vs, e.ID+" "+cl.Claim)
			}
			judged := strings.Join(vs, "; ")
			if len(vs) == 0 {
				judged = "open: " + c.Open
			}
			id := c.ID
			if id == "" {
				id = "—"
			}
			if markdown {
				fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, cell.Replace(c.Text), id, cell.Replace(judged))
			} else {
				fmt.Fprintf(&b, "  %s.%-2d %-4s %s\n          → %s\n", a.Seed, i+1, id, c.Text, judged)
			}
		}
	}
	return b.String()
}
