package e04

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e04 is the article's "defaults that matter" (04-defaults-that-matter.txt).
var e04 = experiment.Experiment{
	ID:      "E04",
	Claims:  claims,
	Title:   "the defaults that matter, as each store describes its index",
	Article: "Spring AI VectorStore article, 04-defaults-that-matter.txt and the HNSW section",
	Figures: []experiment.Figure{
		{Row: "pgvector", Measure: "m", Value: 16}, {Row: "pgvector", Measure: "ef_construction", Value: 64}, {Row: "pgvector", Measure: "query breadth", Value: 40},
		{Row: "redis", Measure: "query breadth", Value: 10},
		{Row: "qdrant", Measure: "m", Value: 16}, {Row: "qdrant", Measure: "ef_construction", Value: 100},
		{Row: "elasticsearch", Measure: "m", Value: 16}, {Row: "elasticsearch", Measure: "ef_construction", Value: 100},
		{Row: "elasticsearch", Measure: "query breadth", Value: 15}, {Row: "elasticsearch", Measure: "oversample", Value: 3},
	},
}

func init() {
	e04.Run, e04.Notebook = runE04, "01-four-stores-on-defaults.ipynb"
	experiment.Register(e04)
}

// breadthName is what each store calls its query-time breadth.
var breadthName = map[profile.Kind]string{
	profile.PGVector: "hnsw.ef_search", profile.Redis: "EF_RUNTIME",
	profile.Qdrant: "hnsw_ef", profile.Elasticsearch: "num_candidates",
}

// Table lists each default profile's effective settings for the
// environment's dimension and topK beside the article's.
func Table(env *experiment.Env) *table.Table {
	dim, k := env.Scale.Dim, env.Scale.K
	t := table.New(fmt.Sprintf("E04 effective defaults for %d-dim vectors, topK=%d", dim, k),
		table.Col("store", ""), table.Col("setting", ""))
	t.AddColumns(table.Pair("value", "", -1)...)
	t.AddColumns(table.Column{Header: "lab reading", Source: table.Lab})
	real, realErr := e04Live(env)
	if real != nil {
		t.AddColumns(experiment.LiveColumns(env, table.Column{Header: "value"})...)
	}
	for _, p := range profile.Defaults() {
		row := p.Kind.String()
		pl := p.Plan(k, dim)
		add := func(setting, measure string, v any, reading string) {
			vals := []any{row, setting, e04.ArticleValue(row, measure), v, reading}
			if real != nil {
				r := ""
				if p.Kind == profile.PGVector {
					r = real[setting]
				}
				vals = append(vals, r)
			}
			_ = t.AddValues(vals...)
		}
		add("m", "m", p.M, fmt.Sprintf("layer-0 cap m0 = %d; a new node gets %d layer-0 links", p.M0, p.Degree0))
		add("ef_construction", "ef_construction", p.EfConstruction, "")
		reading := fmt.Sprintf("effective ef = %d", pl.Ef)
		switch p.Kind {
		case profile.PGVector:
			reading += fmt.Sprintf("; LIMIT not passed to the index: ≤ %d rows per scan", p.Ef)
		case profile.Redis:
			reading += " = max(EF_RUNTIME, k)"
		case profile.Qdrant:
			reading += " (hnsw_ef unset → ef_construct)"
		case profile.Elasticsearch:
			reading = fmt.Sprintf("num_candidates = min(⌈1.5·k⌉, 10000) = %d, raised to k' = %d by rescoring", min(k+(k+1)/2, profile.NumCandidatesLimit), pl.NumCandidates)
		}
		breadth := p.Ef
		if p.Kind == profile.Qdrant && breadth == 0 {
			breadth = p.EfConstruction
		}
		if p.Kind == profile.Elasticsearch && breadth == 0 {
			breadth = min(k+(k+1)/2, profile.NumCandidatesLimit)
		}
		add(breadthName[p.Kind], "query breadth", breadth, reading)
		if p.Kind == profile.Elasticsearch {
			add("index_options.type", "", p.EffectiveType(dim).String(), fmt.Sprintf("bbq_hnsw for dims ≥ %d, else int8_hnsw (9.1+)", profile.BBQDimsThreshold))
			add("rescore oversample", "oversample", p.EffectiveOversample(dim), fmt.Sprintf("k' = ⌈k·oversample⌉ = %d candidates rescored with float32", pl.Rescore))
		}
		if p.Kind == profile.Qdrant {
			add("full_scan_threshold", "", fmt.Sprintf("%d KB", p.FullScanThresholdKB), fmt.Sprintf("= %d vectors of %d dims per segment", p.FullScanThreshold(dim), dim))
			add("indexing_threshold", "", fmt.Sprintf("%d KB", p.IndexingThresholdKB), "per segment, in KB of vectors")
		}
	}
	t.Note("article column: the values the article read from the live services; lab column: the profile's effective value")
	if real != nil {
		t.Note("real pgvector: the server's defaults (pg_settings.reset_val, not the session's SETs) on %v, and the index's reloptions (none: Spring AI's CREATE INDEX has no WITH, so pgvector's defaults HNSW_DEFAULT_M 16 and HNSW_DEFAULT_EF_CONSTRUCTION 64 hold); the other defaults: %s (PGlite, the embedded server, starts with enable_seqscan off; lab/pglive sets it on for every query, as stock PostgreSQL has it)", env.PG, real["other"])
	} else if realErr != nil {
		t.Note("real pgvector: %v", realErr)
	}
	return t
}

// e04Live reads the real pgvector's settings by E04's setting names (nil
// without Env.PG).
func e04Live(env *experiment.Env) (map[string]string, error) {
	live, err := env.LiveLoad()
	if live == nil || err != nil {
		return nil, err
	}
	ctx := engine.Context()
	out := map[string]string{}
	opts, err := live.Tab.IndexOptions(ctx)
	if err != nil {
		return nil, err
	}
	for _, kv := range []struct{ key, def string }{{"m", "16"}, {"ef_construction", "64"}} {
		out[kv.key] = kv.def + " (default: no reloptions)"
		for _, o := range strings.Split(opts, ",") {
			if v, ok := strings.CutPrefix(o, kv.key+"="); ok {
				out[kv.key] = v
			}
		}
	}
	var other []string
	for _, name := range []string{"hnsw.ef_search", "hnsw.iterative_scan", "hnsw.max_scan_tuples", "hnsw.scan_mem_multiplier", "work_mem", "enable_seqscan"} {
		v, err := env.PG.Default(ctx, name)
		if err != nil {
			return nil, err
		}
		if name == "hnsw.ef_search" {
			out[name] = v
			continue
		}
		other = append(other, name+" = "+v)
	}
	out["other"] = strings.Join(other, ", ")
	return out, nil
}

// Describe prints every default profile the way its live service shows
// its index.
func Describe(env *experiment.Env) string {
	var s string
	for _, p := range profile.Defaults() {
		s += p.Describe(env.Scale.Dim, env.Scale.K) + "\n"
	}
	return s
}

func runE04(env *experiment.Env) (*experiment.Report, error) {
	r := experiment.NewReport(e04, env)
	r.AddTable(Table(env))
	for _, p := range profile.Defaults() {
		r.Note("%s", p.Describe(env.Scale.Dim, env.Scale.K))
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, r.Tables[0])...)
	return r, nil
}

// Verdicts compares Table's article column with the profiles'
// effective values: every default the article read from the live
// services (§ "HNSW in two minutes, and the three numbers that matter": pgvector m 16, ef_construction
// 64, ef_search 40; Redis EF_RUNTIME 10; Qdrant m 16, ef_construct 100;
// Elasticsearch bbq_hnsw, oversample 3) must be the profile's, exactly
// (settings, so no tolerance).
func Verdicts(env *experiment.Env, t *table.Table) experiment.Verdicts {
	art, lab := t.Column("value (article)"), t.Column("value (lab)")
	agree, given := 0, 0
	var first string
	for r := range t.Rows {
		a, l := t.Cell(r, art), t.Cell(r, lab)
		if a.Kind == table.Missing {
			continue
		}
		given++
		if a.String() == l.String() {
			agree++
		} else if first == "" {
			first = fmt.Sprintf("%s %s: article %s, lab %s", t.Cell(r, 0), t.Cell(r, 1), a, l)
		}
	}
	reason := "every setting the article names is the profile's effective value"
	if first != "" {
		reason = "first difference: " + first
	}
	return experiment.Verdicts{experiment.Holds("E04", "every default the article read from the services is the profile's (§ HNSW in two minutes)",
		fmt.Sprintf("%d settings", given), fmt.Sprintf("%d of %d the same", agree, given), given > 0 && agree == given, reason)}
}
