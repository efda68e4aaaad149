package experiment

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// The small-scale environment is shared by the tests of this file (its
// stores take a few seconds to build on a busy machine).
var (
	smallOnce sync.Once
	smallEnv  *Env
	smallErr  error
)

func small(t *testing.T) *Env {
	t.Helper()
	smallOnce.Do(func() { smallEnv, smallErr = NewEnv(Small, 1) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallEnv
}

func TestRegistry(t *testing.T) {
	for _, id := range []string{"E01", "E02", "E04", "E05", "E06"} {
		e, ok := Lookup(strings.ToLower(id))
		if !ok || e.Run == nil || e.Title == "" || e.Article == "" {
			t.Errorf("%s not registered properly: %+v", id, e)
		}
	}
	got, err := Select(" e06, E02,e06 ")
	if err != nil || len(got) != 2 || got[0].ID != "E02" || got[1].ID != "E06" {
		t.Errorf("Select = %v, %v; want E02, E06 in order", ids(got), err)
	}
	if all, _ := Select(""); len(all) != len(registered()) {
		t.Error("empty selection is not all")
	}
	_, err = Select("E02,E99,X")
	if !errors.Is(err, errUnknown) || !strings.Contains(err.Error(), "E99, X") || !strings.Contains(err.Error(), "registered: ") {
		t.Errorf("Select unknown: %v", err)
	}
	panics := func(name string, e Experiment) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			register(e)
		})
	}
	run := func(*Env) (*Report, error) { return nil, nil }
	panics("duplicate", Experiment{ID: "E02", Run: run})
	panics("bad id", Experiment{ID: "X1", Run: run})
	panics("no run", Experiment{ID: "E98"})
}

func ids(es []Experiment) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return s
}

func TestParseScale(t *testing.T) {
	tests := []struct {
		in   string
		want Scale
		err  string
	}{
		{"article", Article, ""},
		{"", Article, ""},
		{"SMALL", Small, ""},
		{"n=5000,queries=50", func() Scale { s := Article; s.Name, s.N, s.Queries = "custom", 5000, 50; return s }(), ""},
		{"n=5000 k=20", func() Scale { s := Article; s.Name, s.N, s.K = "custom", 5000, 20; return s }(), ""},
		{"huge", Scale{}, "neither a scale name"},
		{"n=abc", Scale{}, "invalid syntax"},
		{"colour=3", Scale{}, "unknown key"},
		{"n=0", Scale{}, "n must be ≥ 1"},
		{"n=5,k=10", Scale{}, "exceeds n"},
	}
	for _, tt := range tests {
		got, err := ParseScale(tt.in)
		if tt.err != "" {
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseScale(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseScale(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := NewEnv(Scale{}, 0); err == nil {
		t.Error("NewEnv accepted an empty scale")
	}
}

// lab returns the lab's float in row/column of t.
func lab(t *testing.T, tb *table.Table, row, col string) float64 {
	t.Helper()
	c, ok := tb.Lookup(row, col)
	if !ok || c.Kind != table.FloatKind {
		t.Fatalf("table %q has no float at (%s, %s): %v", tb.Title, row, col, c)
	}
	return c.Float
}

func TestE02Small(t *testing.T) {
	env := small(t)
	r := Run(env, e02)
	if r.Status != OK {
		t.Fatalf("E02: %s: %s", r.Status, r.Err)
	}
	tb := r.Tables[0]
	if len(tb.Rows) != 4 {
		t.Fatalf("E02 table has %d rows, want 4 stores", len(tb.Rows))
	}
	for _, store := range []string{"pgvector", "redis", "qdrant", "elasticsearch"} {
		rec := lab(t, tb, store, "recall@10 (lab)")
		if rec <= 0 || rec > 1 {
			t.Errorf("%s recall %v out of (0, 1]", store, rec)
		}
		if h := lab(t, tb, store, "mean hits (lab)"); h != 10 {
			t.Errorf("%s mean hits %v, want 10", store, h)
		}
		// The article's column holds the article's figure, not ours.
		f, _ := e02.Figure(store, "recall@10")
		if a := lab(t, tb, store, "recall@10 (article)"); a != f.Value {
			t.Errorf("%s article column %v, want the article's %v", store, a, f.Value)
		}
	}
	// Qdrant's small segments are below full_scan_threshold: exact.
	if rec := lab(t, tb, "qdrant", "recall@10 (lab)"); rec != 1 {
		t.Errorf("qdrant recall %v at small scale, want 1 (exact search under full_scan_threshold)", rec)
	}
	if len(r.Charts) != 1 || !strings.Contains(r.Charts[0].SVG(), "<svg") {
		t.Error("E02 report lacks its chart")
	}
	if len(r.Tables) != 2 || len(r.Tables[1].Rows) != 4 {
		t.Fatalf("E02 lacks its segments finding (%d tables)", len(r.Tables))
	}
	seg := r.Tables[1]
	if one, ten := lab(t, seg, "hnsw, 1 segment(s)", "recall@10 (lab)"), lab(t, seg, "hnsw, 10 segment(s)", "recall@10 (lab)"); ten < one {
		t.Errorf("hnsw recall fell from %.3f (1 segment) to %.3f (10 segments)", one, ten)
	}
}

func TestE06Small(t *testing.T) {
	env := small(t)
	ms, err := E06Measure(env, []int{10, 50, 200})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Recall+1e-9 < ms[i-1].Recall {
			t.Errorf("recall fell from %.3f (ef %s) to %.3f (ef %s)", ms[i-1].Recall, ms[i-1].Label, ms[i].Recall, ms[i].Label)
		}
		if ms[i].DistComps <= ms[i-1].DistComps {
			t.Errorf("a wider EF_RUNTIME did not compute more distances: %v then %v", ms[i-1].DistComps, ms[i].DistComps)
		}
	}
	if ms[0].Plan.Ef != 10 || ms[2].Plan.Ef != 200 {
		t.Errorf("plans %v / %v", ms[0].Plan, ms[2].Plan)
	}
	if _, err := e06Sweep(env, nil); !errors.Is(err, errBadArgument) {
		t.Errorf("empty sweep: %v", err)
	}
	if _, err := e06Sweep(env, []int{0}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("EF_RUNTIME 0: %v", err)
	}
	// One policy for a bad EF_RUNTIME: the store's view refuses it, in
	// the store's terms, whichever verb asked.
	var ke *profile.KnobError
	if _, err := E06Measure(env, []int{10, -3}); !errors.As(err, &ke) || ke.Call != "WithEf(-3)" || ke.Setting != "EF_RUNTIME" {
		t.Errorf("E06Measure with EF_RUNTIME -3: %v, want the view's KnobError", err)
	}
	tb, err := e06Sweep(env, []int{10, 20})
	if err != nil || len(tb.Rows) != 2 || tb.Cell(0, 0).String() != "10 (default)" {
		t.Fatalf("e06Sweep table %v, %v", tb, err)
	}
	// 2,000 documents: RediSearch's tree picks ADHOC_BF (index ≤ 5,500), exact.
	if fr := lab(t, tb, "10 (default)", "filtered recall@10 (lab)"); fr != 1 {
		t.Errorf("filtered recall through the Redis hybrid policy = %v, want 1 (ad-hoc brute force)", fr)
	}
}

func TestMeasureFilteredPGVector(t *testing.T) {
	env := small(t)
	// On 2,000 rows PostgreSQL's planner prefers filtering every row to
	// the HNSW index: exact answers, k hits.
	s, err := env.Store(profile.Default(profile.PGVector))
	if err != nil {
		t.Fatal(err)
	}
	m, err := measureFiltered(env, s, ArticleFilter, "pgvector")
	if err != nil {
		t.Fatal(err)
	}
	if m.Recall != 1 || m.MeanHits != float64(env.Scale.K) {
		t.Errorf("pgvector on %d rows: recall %.3f, %.1f hits, want the sequential scan's exact answer", env.Scale.N, m.Recall, m.MeanHits)
	}
	// With enable_seqscan = off the index scan post-filters its 40 rows:
	// about 40 × 4.4 % of them are left.
	off := profile.Default(profile.PGVector)
	off.SeqScanOff = true
	if s, err = env.Store(off); err != nil {
		t.Fatal(err)
	}
	if m, err = measureFiltered(env, s, ArticleFilter, "pgvector enable_seqscan=off"); err != nil {
		t.Fatal(err)
	}
	if m.MeanHits >= float64(env.Scale.K) {
		t.Errorf("pgvector post-filter mean hits %.1f, want fewer than k=%d", m.MeanHits, env.Scale.K)
	}
	if _, err := measureFiltered(env, s, "colour == 'red'", "bad"); err == nil {
		t.Error("a filter on an undeclared field was accepted")
	}
}

func TestE05(t *testing.T) {
	env := small(t)
	ms, err := E05Measure(env, []int{15, 100})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Plan.Ef != 30 || ms[1].Plan.Ef != 100 || ms[0].Plan.Rescore != 30 || ms[1].Plan.Rescore != 30 {
		t.Errorf("plans %v / %v: want beams 30 and 100, 30 rescored each", ms[0].Plan, ms[1].Plan)
	}
	// Both rescore the same 30 candidates: the sweep is flat.
	if vs := E05Verdicts(env, ms); len(vs) != 3 || !vs[2].Agrees || !strings.Contains(vs[2].Claim, "flat") {
		t.Errorf("E05Verdicts: %v", vs)
	}
	// Below 384 dims Elasticsearch does not pick bbq_hnsw: not runnable.
	sc := Small
	sc.Dim = 128
	env2, err := NewEnv(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := Run(env2, e05)
	if r.Status != NotRunnable || !strings.Contains(r.Err, "dims ≥ 384") {
		t.Errorf("E05 at 128 dims: %s: %s", r.Status, r.Err)
	}
}

func TestE04(t *testing.T) {
	env := small(t)
	tb := E04Table(env)
	if vs := E04Verdicts(env, tb); len(vs) != 1 || !vs[0].Agrees || vs[0].Lab == "0 of 0 the same" {
		t.Errorf("E04Verdicts: %v", vs)
	}
	// A profile that differs from the article's default makes it differ.
	bad := E04Table(env)
	bad.Rows[0][3] = table.Int(99)
	if vs := E04Verdicts(env, bad); vs[0].Agrees || !strings.Contains(vs[0].Reason, "99") {
		t.Errorf("E04Verdicts on an altered table: %v", vs)
	}
	for _, tt := range []struct {
		store, setting string
		want           float64
	}{
		{"pgvector", "hnsw.ef_search", 40}, {"redis", "EF_RUNTIME", 10}, {"qdrant", "hnsw_ef", 100},
		{"elasticsearch", "num_candidates", 15}, {"elasticsearch", "rescore oversample", 3},
	} {
		found := false
		for r := range tb.Rows {
			if tb.Cell(r, 0).String() == tt.store && tb.Cell(r, 1).String() == tt.setting {
				found = true
				c := tb.Cell(r, 3)
				v := c.Float
				if c.Kind == table.IntKind {
					v = float64(c.Int)
				}
				if v != tt.want {
					t.Errorf("%s %s = %v, want %v", tt.store, tt.setting, c, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("E04 lacks %s %s", tt.store, tt.setting)
		}
	}
	if d := E04Describe(env); !strings.Contains(d, "bbq_hnsw") || !strings.Contains(d, "ef_search") {
		t.Errorf("E04Describe:\n%s", d)
	}
}

func TestE01Small(t *testing.T) {
	env, err := NewEnv(Small, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var steps int
	env.Progress = func(done, total int, what string) { steps++ }
	r := Run(env, e01)
	if r.Status != OK {
		t.Fatalf("E01: %s: %s", r.Status, r.Err)
	}
	if steps == 0 {
		t.Error("Progress was never called")
	}
	tb := r.Tables[0]
	for _, store := range []string{"pgvector", "redis", "qdrant", "elasticsearch"} {
		if v := lab(t, tb, store, "docs/s (lab)"); v <= 0 {
			t.Errorf("%s docs/s %v", store, v)
		}
		if acked, searchable := lab(t, tb, store, "ingest s (lab)"), lab(t, tb, store, "searchable after s (lab)"); searchable < acked {
			t.Errorf("%s searchable after %.3fs, before the last ack at %.3fs", store, searchable, acked)
		}
	}
	// E01 states its verdicts: the order, and one visibility step per store.
	// pgvector's and Qdrant's hold by construction (commit; exact scan of
	// plain segments), so they must agree on any machine.
	if len(r.Verdicts) != 5 {
		t.Errorf("E01 stated %d verdicts, want 5: %v", len(r.Verdicts), r.Verdicts)
	}
	for _, v := range r.Verdicts {
		if v.ID != "E01" || v.Article == "" || v.Lab == "" {
			t.Errorf("E01 verdict without figures: %+v", v)
		}
		if (strings.HasPrefix(v.Claim, "pgvector") || strings.HasPrefix(v.Claim, "qdrant")) && !v.Agrees {
			t.Errorf("E01: %s", v)
		}
	}
	// E01's stores are kept: E02 measures the same indexes without rebuilding.
	before := map[profile.Kind]*profile.Store{}
	for _, p := range profile.Defaults() {
		before[p.Kind], _ = env.Store(p)
	}
	if len(env.stores) != 4 {
		t.Errorf("E01 kept %d stores, want its 4", len(env.stores))
	}
	if r := Run(env, e02); r.Status != OK {
		t.Fatalf("E02 after E01: %s %s", r.Status, r.Err)
	}
	for _, p := range profile.Defaults() {
		if s, _ := env.Store(p); s != before[p.Kind] {
			t.Errorf("E02 rebuilt the %s store E01 had built", p.Kind)
		}
	}
}

func TestRunRecoversAndReports(t *testing.T) {
	env := small(t)
	boom := Experiment{ID: "E97", Title: "panics", Run: func(*Env) (*Report, error) { panic("boom") }}
	r := Run(env, boom)
	if r.Status != Failed || !strings.Contains(r.Err, "boom") {
		t.Errorf("panicking experiment: %s %q", r.Status, r.Err)
	}
	missing := Experiment{ID: "E96", Title: "needs a missing part", Run: func(*Env) (*Report, error) {
		return nil, errors.Join(ErrNotRunnable, errors.New("engine/nothing has not landed"))
	}}
	r2 := Run(env, missing)
	if r2.Status != NotRunnable || !strings.Contains(r2.String(), "not runnable") {
		t.Errorf("not-runnable experiment: %s\n%s", r2.Status, r2)
	}
	sum := Summary([]*Report{r, r2})
	if !strings.Contains(sum, "E97  failed") || !strings.Contains(sum, "E96  not runnable") {
		t.Errorf("Summary:\n%s", sum)
	}
}

func TestReportRendering(t *testing.T) {
	env := small(t)
	r := Run(env, e06)
	if r.Status != OK {
		t.Fatal(r.Err)
	}
	md, h, txt := r.Markdown(), r.HTML(), r.String()
	for _, tt := range []struct{ name, s, want string }{
		{"markdown table", md, "| recall@10 (article) | recall@10 (lab) |"},
		{"markdown chart", md, "data:image/svg+xml;base64,"},
		{"html table", h, `<table class="veclab-table"`},
		{"html chart", h, "<svg"},
		{"text table", txt, "recall@10 (article)"},
		{"text conditions", txt, "scale small"},
	} {
		if !strings.Contains(tt.s, tt.want) {
			t.Errorf("%s lacks %q", tt.name, tt.want)
		}
	}
	if strings.Contains(h, "<?xml") {
		t.Error("inline SVG keeps its XML declaration")
	}
}

func TestReportJSONAndVerbatimNotes(t *testing.T) {
	env := small(t)
	r := Run(env, e04)
	if r.Status != OK {
		t.Fatal(r.Err)
	}
	b, err := json.Marshal(r.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["id"] != "E04" || back["status"] != "ok" || back["seed"] != float64(1) {
		t.Errorf("JSON round trip: %v", back)
	}
	if tables, _ := back["tables"].([]any); len(tables) != 1 {
		t.Errorf("JSON tables: %v", back["tables"])
	}
	if md := r.Markdown(); !strings.Contains(md, "```text\npgvector 0.8.7\n  CREATE INDEX") {
		t.Errorf("a store's description is not kept verbatim in Markdown:\n%s", md)
	}
	if h := r.HTML(); !strings.Contains(h, "<pre") {
		t.Error("a store's description is not a <pre> block in HTML")
	}
}

// TestE01LagSmall checks the visibility timeline notebook 01 draws: each
// store's samples end when it reports itself searchable, and
// Elasticsearch's first sample, taken before the scheduled refresh,
// sees fewer documents than were acknowledged (the refreshes count
// documents, so the last batch waits for the next one).
func TestE01LagSmall(t *testing.T) {
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	tb, _, err := E01Lag(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	store, acked, searchable := tb.Column("store"), tb.Column("acknowledged"), tb.Column("searchable")
	first, last := map[string]int{}, map[string]int{}
	for r := range tb.Rows {
		s := tb.Cell(r, store).Text
		if _, ok := first[s]; !ok {
			first[s] = r
		}
		last[s] = r
	}
	if len(first) != 3 {
		t.Fatalf("stores sampled: %v, want redis, qdrant and elasticsearch", first)
	}
	es := "elasticsearch"
	if a, v := tb.Cell(first[es], acked).Int, tb.Cell(first[es], searchable).Int; v >= a {
		t.Errorf("elasticsearch's first sample: %d searchable of %d acknowledged, want fewer before the refresh", v, a)
	}
	indexed, reports := tb.Column("in a graph"), tb.Column("the store reports")
	for s, r := range last {
		if a, v := tb.Cell(r, acked).Int, tb.Cell(r, searchable).Int; v != a {
			t.Errorf("%s's last sample: %d searchable of %d acknowledged, want all", s, v, a)
		}
		// The last sample is the store reporting itself searchable, not
		// the sampling cap: Redis with every document in its graph,
		// Qdrant green (after the merge optimizer).
		if a, g := tb.Cell(r, acked).Int, tb.Cell(r, indexed).Int; s == "redis" && g != a {
			t.Errorf("redis's last sample: %d of %d documents in a graph, want all", g, a)
		}
		if rep := tb.Cell(r, reports).Text; s == "qdrant" && !strings.Contains(rep, "status=green") {
			t.Errorf("qdrant's last sample reports %q, want status=green (the timeline must end searchable)", rep)
		}
	}
}
