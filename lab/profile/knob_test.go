package profile

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/dataset"
)

// internalWords are the engine's names that a learner who turned a store's
// knob must not meet in its error (they name the lab's machinery, not the
// store's setting): k' and kk for the candidates re-ranked, Breadth for
// the beam, rescore for Elasticsearch's oversample, and the packages the
// search passes through.
var internalWords = []string{"rescore", "kk", "k'", "breadth", "engine:", "segment:", "profile:"}

// TestKnobErrors covers every query-time knob of every store profile with
// values each store refuses: the view's verbs answer a *KnobError that
// names the knob as written, the value, the store's allowed range and its
// rule with the source, in the store's words and none of the engine's;
// the store the view came from is unaffected; a value the store accepts
// searches.
func TestKnobErrors(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 600, Dim: 16, Queries: 1, Clusters: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	q := ds.Queries.Row(0)
	const k = 10
	type knob struct {
		call    string
		view    func(*Store) *Store
		allowed string // "" when the store has no such knob
		setting string
		k       int // the search's k (0: k)
	}
	ef := func(v int) func(*Store) *Store { return func(s *Store) *Store { return s.WithEf(v) } }
	os := func(v float64) func(*Store) *Store { return func(s *Store) *Store { return s.WithOversample(v) } }
	noOversample := func(call string, v float64) knob { return knob{call, os(v), "", "", 0} }
	scan := func(m string) func(*Store) *Store { return func(s *Store) *Store { return s.WithIterativeScan(m) } }
	noScan := func(m string) knob { return knob{fmt.Sprintf("WithIterativeScan(%q)", m), scan(m), "", "", 0} }
	fetch := func(m string) func(*Store) *Store { return func(s *Store) *Store { return s.WithFetch(m) } }
	noFetch := func(m string) knob { return knob{fmt.Sprintf("WithFetch(%q)", m), fetch(m), "", "", 0} }
	same := func(s *Store) *Store { return s }
	rs := func(on bool) func(*Store) *Store { return func(s *Store) *Store { return s.WithRescore(on) } }
	const qos, qrs = "≥ 1 (with quantization=int8 or binary)", "true, false (with quantization=int8 or binary)"
	badK := func(kk int, allowed, setting string) knob {
		return knob{fmt.Sprintf("Search(q, %d)", kk), same, allowed, setting, kk}
	}
	tests := []struct {
		kind Kind
		bad  []knob
		good []func(*Store) *Store
	}{
		{PGVector, []knob{
			{"WithEf(-3)", ef(-3), "1…1000", "hnsw.ef_search", 0},
			{"WithEf(0)", ef(0), "1…1000", "hnsw.ef_search", 0},
			{"WithEf(1001)", ef(1001), "1…1000", "hnsw.ef_search", 0},
			noOversample("WithOversample(0.5)", 0.5),
			noOversample("WithOversample(3)", 3),
			noOversample("WithOversample(0)", 0),
			badK(0, "≥ 1", "LIMIT"), badK(-1, "≥ 1", "LIMIT"),
			{`WithIterativeScan("on")`, scan("on"), "off, relaxed_order, strict_order", "hnsw.iterative_scan", 0},
			{`WithIterativeScan("")`, scan(""), "off, relaxed_order, strict_order", "hnsw.iterative_scan", 0},
			noFetch("stored_fields"),
		}, []func(*Store) *Store{ef(1), ef(1000), scan("off"), scan("relaxed_order"), scan("strict_order")}},
		{Redis, []knob{
			{"WithEf(-3)", ef(-3), "≥ 1", "EF_RUNTIME", 0},
			{"WithEf(0)", ef(0), "≥ 1", "EF_RUNTIME", 0},
			noOversample("WithOversample(0.5)", 0.5),
			noOversample("WithOversample(2)", 2),
			badK(0, "≥ 1", "KNN k"),
			noScan("relaxed_order"),
			noFetch("docvalue_fields"),
		}, []func(*Store) *Store{ef(1), ef(50), ef(100000)}},
		{Qdrant, []knob{
			{"WithEf(-3)", ef(-3), "≥ 1", "hnsw_ef", 0},
			{"WithEf(0)", ef(0), "≥ 1", "hnsw_ef", 0},
			// Without quantization Qdrant's oversampling and rescore act
			// on nothing: the error says to set quantization.
			{"WithOversample(2)", os(2), qos, "params.quantization.oversampling", 0},
			{"WithOversample(0.5)", os(0.5), qos, "params.quantization.oversampling", 0},
			{"WithRescore(true)", rs(true), qrs, "params.quantization.rescore", 0},
			badK(0, "≥ 1", "limit"),
			noScan("off"),
			noFetch("stored_fields"),
		}, []func(*Store) *Store{ef(1), ef(64)}},
		{Qdrant, []knob{
			{"WithOversample(0.5)", os(0.5), qos, "params.quantization.oversampling", 0},
			{"WithOversample(0)", os(0), qos, "params.quantization.oversampling", 0},
			{"WithOversample(-1)", os(-1), qos, "params.quantization.oversampling", 0},
			{"WithOversample(+Inf)", os(inf), qos, "params.quantization.oversampling", 0},
			{"WithEf(0)", ef(0), "≥ 1", "hnsw_ef", 0},
		}, []func(*Store) *Store{ef(1), os(1), os(2.5), rs(true), rs(false), func(s *Store) *Store { return s.WithOversample(4).WithRescore(true) }}},
		{Elasticsearch, []knob{
			{"WithEf(-3)", ef(-3), "k…10000", "num_candidates", 0},
			{"WithEf(0)", ef(0), "k…10000", "num_candidates", 0},
			{"WithEf(10001)", ef(10001), "k…10000", "num_candidates", 0},
			{"WithEf(5) with Search(q, 10)", ef(5), "k (10)…10000", "num_candidates", 0},
			{"WithOversample(0.5)", os(0.5), "0 (none) or ≥ 1", "oversample", 0},
			{"WithOversample(-1)", os(-1), "0 (none) or ≥ 1", "oversample", 0},
			{"WithOversample(0.999)", os(0.999), "0 (none) or ≥ 1", "oversample", 0},
			{"WithOversample(+Inf)", os(inf), "0 (none) or ≥ 1", "oversample", 0},
			badK(0, "1…10000", "k"), badK(10001, "1…10000", "k"),
			noScan("strict_order"),
			{`WithFetch("_source")`, fetch("_source"), "stored_fields, docvalue_fields", "fetch", 0},
			{`WithFetch("")`, fetch(""), "stored_fields, docvalue_fields", "fetch", 0},
			{`WithFetch("_id")`, fetch("_id"), "stored_fields, docvalue_fields", "fetch", 0},
		}, []func(*Store) *Store{ef(10), ef(10000), os(0), os(1), os(3), fetch("stored_fields"), fetch("docvalue_fields")}},
	}
	for i, tc := range tests {
		p, name := Default(tc.kind), tc.kind.String()
		if i > 0 && tests[i-1].kind == tc.kind {
			// The second Qdrant: quantization=int8, where oversampling
			// and rescore are knobs.
			p.Quantization, name = "int8", name+" quantization=int8"
		}
		t.Run(name, func(t *testing.T) {
			s, err := p.Build(ds.Base, BuildOptions{Batch: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, b := range tc.bad {
				v := b.view(s)
				kk := k
				if b.k != 0 || strings.HasPrefix(b.call, "Search(") {
					kk = b.k
				}
				_, err := v.Search(q, kk)
				var ke *KnobError
				if !errors.As(err, &ke) {
					t.Errorf("%s: Search answered %v, want a *KnobError", b.call, err)
					continue
				}
				if !errors.Is(err, engine.ErrInvalidArgument) {
					t.Errorf("%s: %v does not wrap engine.ErrInvalidArgument", b.call, err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, b.call+" on "+tc.kind.String()+": ") {
					t.Errorf("%s: message does not start with the call as written and the store: %q", b.call, msg)
				}
				if ke.Allowed != b.allowed || ke.Setting != b.setting {
					t.Errorf("%s: setting %q allowed %q, want %q %q", b.call, ke.Setting, ke.Allowed, b.setting, b.allowed)
				}
				if b.allowed != "" && !strings.Contains(msg, "allowed "+b.allowed) {
					t.Errorf("%s: message lacks the range %q: %q", b.call, b.allowed, msg)
				}
				if ke.Rule == "" || ke.Source == "" || !strings.Contains(msg, ke.Source) {
					t.Errorf("%s: message lacks the store's rule or its source: %q", b.call, msg)
				}
				if !strings.ContainsAny(ke.Source, "0123456789") {
					t.Errorf("%s: source %q names no version", b.call, ke.Source)
				}
				// The source is a file name of the store's code (Elasticsearch's
				// RescoreVectorBuilder.java); the words around it are the lab's.
				words := strings.ToLower(strings.Replace(msg, ke.Source, "", 1))
				for _, w := range internalWords {
					// Qdrant's own parameter is named rescore.
					if strings.Contains(words, w) && !strings.Contains(ke.Setting, w) {
						t.Errorf("%s: message uses the engine's word %q: %q", b.call, w, msg)
					}
				}
				// Every verb of the view answers the same error.
				if v.Err() == nil && !strings.Contains(b.call, "Search(") {
					t.Errorf("%s: Err() is nil", b.call)
				}
				if _, _, err := v.SearchStats(q, kk); err == nil || err.Error() != msg {
					t.Errorf("%s: SearchStats answered %v", b.call, err)
				}
				if v.Err() != nil {
					for verb, err := range map[string]error{
						"Ingest":         v.Ingest(ds.Queries),
						"Refresh":        v.Refresh(),
						"WaitSearchable": v.WaitSearchable(),
						"Filtered":       second(v.Filtered(nil)),
						"SearchFiltered": third(v.SearchFiltered(q, k, func(uint64) bool { return true })),
						"chained WithEf": second(v.WithEf(20).Search(q, k)),
					} {
						if err == nil || err.Error() != msg {
							t.Errorf("%s: %s answered %v, want %q", b.call, verb, err, msg)
						}
					}
				}
				if s.Len() != ds.Base.N {
					t.Errorf("%s: the bad view changed the store: %d documents", b.call, s.Len())
				}
			}
			if _, err := s.Search(q, k); err != nil {
				t.Errorf("the store itself after bad views: %v", err)
			}
			for i, g := range tc.good {
				// pgvector's ef_search 1 yields one row (LIMIT is not passed down).
				if res, err := g(s).Search(q, k); err != nil || len(res) == 0 {
					t.Errorf("good knob %d: %d results, %v", i, len(res), err)
				}
			}
		})
	}
}

var inf = func() float64 { x := 0.0; return 1 / x }()

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }

// The knob a profile sets (not a view) is named as the profile writes it.
func TestKnobErrorFromProfile(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 300, Dim: 16, Queries: 1, Clusters: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("elasticsearch num_candidates=5")
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Build(ds.Base, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Search(ds.Queries.Row(0), 10)
	want := "num_candidates=5 (the profile's) with Search(q, 10) on elasticsearch: num_candidates 5 is out of range, allowed k (10)…10000"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q…", err, want)
	}
	if _, err := s.Search(ds.Queries.Row(0), 5); err != nil {
		t.Errorf("k = num_candidates: %v", err)
	}
}

// TestPayloadIndex covers Qdrant's payload indexes (Profile.PayloadIndex):
// the fields Payload indexes, the lists Validate refuses with the
// store's rule, and the stores that have none.
func TestPayloadIndex(t *testing.T) {
	ds, err := dataset.Generate(dataset.Config{N: 200, Dim: 8, Queries: 1, Clusters: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ds.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind    Kind
		list    string
		indexed []string // fields Payload indexes
		bad     string   // in Validate's or Payload's error; "" for none
	}{
		{Qdrant, "", nil, ""},
		{Qdrant, "category,year", []string{"category", "year"}, ""},
		{Qdrant, " region , region", []string{"region"}, ""},
		{Qdrant, "category,,year", nil, "a field_name must not be empty"},
		{Qdrant, "colour", nil, `no field "colour" (it has category, year, region)`},
		{PGVector, "", nil, ""},
		{PGVector, "category", nil, "pgvector has no payload index"},
		{Redis, "year", nil, "declared in the index schema"},
		{Elasticsearch, "year", nil, "every mapped field is indexed"},
	}
	for _, tc := range tests {
		p := Default(tc.kind)
		p.PayloadIndex = tc.list
		err := p.Validate()
		var st *filter.Store
		if err == nil {
			st, err = p.Payload(meta)
		}
		if tc.bad != "" {
			var ke *KnobError
			if err == nil || !strings.Contains(err.Error(), tc.bad) || !errors.As(err, &ke) || !errors.Is(err, engine.ErrInvalidArgument) {
				t.Errorf("%s payload_index=%q: error %v, want a *KnobError with %q", tc.kind, tc.list, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s payload_index=%q: %v", tc.kind, tc.list, err)
			continue
		}
		if tc.kind == Redis || tc.kind == Elasticsearch {
			continue
		}
		for _, f := range []string{"category", "year", "region"} {
			want := false
			for _, g := range tc.indexed {
				want = want || g == f
			}
			if st.Indexed(f) != want {
				t.Errorf("%s payload_index=%q: field %s indexed %t, want %t", tc.kind, tc.list, f, st.Indexed(f), want)
			}
		}
		a, _ := meta.CompileString(dataset.ArticleWhere)
		b, err := st.CompileString(dataset.ArticleWhere)
		if err != nil || len(a.IDs()) != len(b.IDs()) {
			t.Errorf("%s payload_index=%q: the filter matches %d documents, want %d (%v)", tc.kind, tc.list, len(b.IDs()), len(a.IDs()), err)
		}
		q, err := Parse(p.String())
		if want := strings.Join(tc.indexed, ","); err != nil || q.PayloadIndex != want {
			t.Errorf("%s: Parse(String()) payload_index %q, want %q (%v)", tc.kind, q.PayloadIndex, want, err)
		}
	}
	p := Default(PGVector)
	p.IterativeScan = "relaxed_order"
	if q, err := Parse(p.String()); err != nil || q.IterativeScan != "relaxed_order" || q.FilterStrategy() != filtered.IterativeRelaxed {
		t.Errorf("Parse(%q): iterative_scan %q, strategy %v (%v)", p.String(), q.IterativeScan, q.FilterStrategy(), err)
	}
	p.IterativeScan = "sometimes"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "hnsw.iterative_scan") {
		t.Errorf("iterative_scan=sometimes: Validate answered %v", err)
	}
}
