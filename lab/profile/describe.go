package profile

import (
	"fmt"
	"strings"
)

// Describe prints the profile's effective settings for vectors of dim
// dimensions the way the live service shows its index (E04): pgvector's
// index definition and GUCs, Redis's FT.INFO vector attributes, Qdrant's
// collection config and Elasticsearch's mapping, each followed by the
// query-time breadth a top-k query gets and the lab's reading of it.
func (p Profile) Describe(dim, k int) string {
	p = p.WithDefaults()
	var b strings.Builder
	pl := p.Plan(k, dim)
	switch p.Kind {
	case PGVector:
		ops := map[string]string{"cosine": "vector_cosine_ops", "dot": "vector_ip_ops", "l2": "vector_l2_ops"}[p.Metric.String()]
		fmt.Fprintf(&b, "pgvector %s\n", p.Version)
		fmt.Fprintf(&b, "  CREATE INDEX ON items USING hnsw (embedding %s) WITH (m = %d, ef_construction = %d);\n", ops, p.M, p.EfConstruction)
		fmt.Fprintf(&b, "  SHOW hnsw.ef_search;            %d\n", p.Ef)
		fmt.Fprintf(&b, "  SHOW hnsw.iterative_scan;       off\n")
		fmt.Fprintf(&b, "  SHOW hnsw.max_scan_tuples;      20000\n")
		fmt.Fprintf(&b, "  -- layer 0: %d links per new element (2·m), keep pruned connections: %t\n", p.Degree0, p.KeepPruned)
		fmt.Fprintf(&b, "  -- ORDER BY embedding <=> $1 LIMIT %d: one scan of ef_search = %d, LIMIT not passed to the index → at most %d rows\n", k, p.Ef, pl.Limit)
	case Redis:
		metric := map[string]string{"cosine": "COSINE", "dot": "IP", "l2": "L2"}[p.Metric.String()]
		fmt.Fprintf(&b, "redis %s\n", p.Version)
		fmt.Fprintf(&b, "  FT.INFO idx → attributes: identifier embedding type VECTOR algorithm HNSW data_type FLOAT32 dim %d distance_metric %s M %d ef_construction %d ef_runtime %d epsilon 0.01\n",
			dim, metric, p.M, p.EfConstruction, p.Ef)
		fmt.Fprintf(&b, "  -- KNN %d: ef = max(EF_RUNTIME, k) = %d; insertion as hnswlib (%d links per new node, no keep-pruned)\n", k, pl.Ef, p.Degree0)
	case Qdrant:
		metric := map[string]string{"cosine": "Cosine", "dot": "Dot", "l2": "Euclid"}[p.Metric.String()]
		vecBytes := 4 * dim
		full := p.FullScanThreshold(dim)
		fmt.Fprintf(&b, "qdrant %s\n", p.Version)
		fmt.Fprintf(&b, "  GET /collections/items → config: {\"params\":{\"vectors\":{\"size\":%d,\"distance\":\"%s\"}},"+
			"\"hnsw_config\":{\"m\":%d,\"ef_construct\":%d,\"full_scan_threshold\":%d,\"max_indexing_threads\":0,\"on_disk\":false},"+
			"\"optimizer_config\":{\"default_segment_number\":0,\"indexing_threshold\":%d}}\n",
			dim, metric, p.M, p.EfConstruction, p.FullScanThresholdKB, p.IndexingThresholdKB)
		efSrc := "hnsw_ef unset → ef_construct"
		if p.Ef > 0 {
			efSrc = fmt.Sprintf("hnsw_ef %d", p.Ef)
		}
		fmt.Fprintf(&b, "  -- search: %s, ef = max(ef, k) = %d; %d segment(s)\n", efSrc, pl.Ef, p.Segments)
		fmt.Fprintf(&b, "  -- full_scan_threshold %d KB = %d vectors of %d B: a segment with fewer is searched exactly\n", p.FullScanThresholdKB, full, vecBytes)
		fmt.Fprintf(&b, "  -- indexing_threshold %d KB per segment: a smaller segment gets no HNSW graph\n", p.IndexingThresholdKB)
	case Elasticsearch:
		sim := map[string]string{"cosine": "cosine", "dot": "dot_product", "l2": "l2_norm"}[p.Metric.String()]
		typ := p.EffectiveType(dim)
		os := p.EffectiveOversample(dim)
		rescore := ""
		if os > 0 {
			rescore = fmt.Sprintf(",\"rescore_vector\":{\"oversample\":%.1f}", os)
		}
		fmt.Fprintf(&b, "elasticsearch %s\n", p.Version)
		fmt.Fprintf(&b, "  GET /items/_mapping → \"embedding\":{\"type\":\"dense_vector\",\"dims\":%d,\"index\":true,\"similarity\":\"%s\",\"index_options\":{\"type\":\"%s\",\"m\":%d,\"ef_construction\":%d%s}}\n",
			dim, sim, typ, p.M, p.EfConstruction, rescore)
		if p.Type == AutoType {
			fmt.Fprintf(&b, "  -- index_options.type not given: %s because dims %d %s %d\n", typ, dim, map[bool]string{true: "≥", false: "<"}[dim >= BBQDimsThreshold], BBQDimsThreshold)
		}
		nc := "num_candidates = min(⌈1.5·k⌉, 10000)"
		if p.Ef > 0 {
			nc = fmt.Sprintf("num_candidates = %d", p.Ef)
		}
		fmt.Fprintf(&b, "  -- knn k=%d: %s; ", k, nc)
		if pl.Rescore > 0 {
			fmt.Fprintf(&b, "k' = ⌈k·%.1f⌉ = %d; num_candidates = max(nc, k') = %d; gather %d by quantized score, rescore with float32, return %d\n", os, pl.Rescore, pl.NumCandidates, pl.Candidates, k)
		} else {
			fmt.Fprintf(&b, "num_candidates = %d; no rescoring\n", pl.NumCandidates)
		}
		fmt.Fprintf(&b, "  -- refresh_interval %s: documents become searchable at the next refresh\n", p.RefreshInterval)
		if p.optimistic() {
			fmt.Fprintf(&b, "  -- refreshed into segments, at most %d kept (more are merged): each walked for its share of num_candidates, the competitive ones again for num_candidates (Lucene 10.3+); their candidates merged by score before rescoring\n", p.Segments)
		} else {
			fmt.Fprintf(&b, "  -- refreshed into segments, at most %d kept (more are merged): every segment walked for the whole num_candidates, the lists merged by score (Lucene 9, before Elasticsearch 9.2)\n", p.Segments)
		}
		if p.FilterHeuristic == "acorn" {
			fmt.Fprintf(&b, "  -- index.dense_vector.hnsw_filter_heuristic acorn: with a filter, a segment where under 60 %% match walks only the matches (Lucene's FilteredHnswGraphSearcher); few matches (≤ ln(segment size)·k) are scored exhaustively\n")
		} else {
			fmt.Fprintf(&b, "  -- index.dense_vector.hnsw_filter_heuristic fanout: with a filter, the walk scores every neighbour and keeps the matches; few matches (≤ ln(segment size)·k) are scored exhaustively\n")
		}
		if p.Patience() {
			fmt.Fprintf(&b, "  -- index.dense_vector.hnsw_enable_early_termination true (9.3+): each segment's walk stops once candidates stop entering its top num_candidates (adaptive patience)\n")
		} else {
			fmt.Fprintf(&b, "  -- index.dense_vector.hnsw_enable_early_termination false: each segment's walk runs until no candidate can improve its top num_candidates\n")
		}
		if typ != HNSWType {
			fmt.Fprintf(&b, "  -- each segment trains its quantizer on its vectors; a refresh builds its graph with float32 scores (codes only for search), a merge with the codes' scores\n")
		}
	default:
		fmt.Fprintf(&b, "%v\n", p)
	}
	return b.String()
}
