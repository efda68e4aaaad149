package measure

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// Each store's ingest is timed, and what a search sees at the last
// acknowledgement is each store's own rule: pgvector and Qdrant answer
// over every document at once (commit; plain segments), Elasticsearch
// does not see the documents since its last refresh; once the store
// reports itself searchable it answers over all of them.
func TestIngest(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, tc := range []struct {
		kind    profile.Kind
		allSeen bool // every document searchable at the last acknowledgement
	}{
		{profile.PGVector, true},
		{profile.Qdrant, true},
		{profile.Elasticsearch, false},
	} {
		p := profile.Default(tc.kind)
		p.Seed = 1
		if tc.kind == profile.Elasticsearch {
			p.RefreshInterval = 100 * time.Millisecond // a refresh every 303 documents, so the last 194 of 800 wait for one
		}
		s, in, err := Ingest(p, ds.Base, profile.BuildOptions{Batch: 100, Progress: func(done, total int, what string) { steps++ }}, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		if in.Label != tc.kind.String() || in.Docs != ds.Base.N || in.Batch != 100 || in.K != 10 || in.Acked <= 0 || in.Searchable < in.Acked || in.StatusAck == "" {
			t.Errorf("%s: %+v", tc.kind, in)
		}
		if got := in.Visible == ds.Base.N; got != tc.allSeen {
			t.Errorf("%s: %d of %d searchable at the last ack, want all: %v", tc.kind, in.Visible, ds.Base.N, tc.allSeen)
		}
		if tc.allSeen && in.RecallAck < 0.9 {
			t.Errorf("%s: recall@10 %.3f at the last ack with every document searchable", tc.kind, in.RecallAck)
		}
		if in.DocsPerSecond() <= 0 || !strings.Contains(in.String(), "acknowledged in") {
			t.Errorf("%s: %v docs/s, %q", tc.kind, in.DocsPerSecond(), in)
		}
		if s.Visible() != ds.Base.N {
			t.Errorf("%s: %d of %d searchable after Ingest returned", tc.kind, s.Visible(), ds.Base.N)
		}
		if r, err := AtOnce(s, q); err != nil || r < in.RecallAck-0.2 {
			t.Errorf("%s: recall once searchable %.3f (%v), at the last ack %.3f", tc.kind, r, err, in.RecallAck)
		}
		s.Close()
	}
	if steps != 3*8 {
		t.Errorf("progress called %d times, want one per batch (24)", steps)
	}
}

// Bad input to Ingest, AtOnce and BesideIngest gets an error in the
// caller's terms.
func TestIngestErrors(t *testing.T) {
	ds := smallSet(t)
	q, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	fq, err := q.Where("category == 'c1'")
	if err != nil {
		t.Fatal(err)
	}
	other, err := Exact(ds, 10, engine.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	other.Vectors = ds.Base // base rows as queries: the right dimension, the wrong truth length
	pg := profile.Default(profile.PGVector)
	bad := profile.Default(profile.PGVector)
	bad.M = -1
	ing := func(_, _ any, err error) error { return err }
	second := func(_ any, err error) error { return err }
	tests := []struct {
		name string
		err  error
		want string
		arg  bool // wraps engine.ErrInvalidArgument
	}{
		{"no documents", ing(Ingest(pg, nil, profile.BuildOptions{}, q)), "measure: Ingest(pgvector): no documents to ingest", true},
		{"batch", ing(Ingest(pg, ds.Base, profile.BuildOptions{Batch: -5}, q)), "a batch of -5 documents: it must be ≥ 1", true},
		{"no queries", ing(Ingest(pg, ds.Base, profile.BuildOptions{}, nil)), "measure: Ingest: queries with their exact answers", true},
		{"filtered", ing(Ingest(pg, ds.Base, profile.BuildOptions{}, fq)), "the queries run at the last acknowledgement are unfiltered", true},
		{"queries not scored", ing(Ingest(pg, ds.Base, profile.BuildOptions{}, other)), "measure: Ingest: queries with their exact answers", true},
		{"bad profile", ing(Ingest(bad, ds.Base, profile.BuildOptions{}, q)), "m", false},
		{"AtOnce nil", second(AtOnce(nil, q)), "measure: AtOnce: no store", true},
		{"BesideIngest none", second(BesideIngest("t", nil, nil)), `measure: BesideIngest("t"): no ingests`, true},
		{"BesideIngest measure", second(BesideIngest("t", []Ingested{{Label: "redis"}}, []Figure{{Row: "redis", Measure: "recall@10", Value: 0.6}})), "the lab times ingest in s and docs/s", true},
		{"BesideIngest unit", second(BesideIngest("t", []Ingested{{Label: "redis"}}, []Figure{{Row: "redis", Measure: "ingest", Value: 9.5, Unit: "ms"}})), "the lab times ingest in s and docs/s", true},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || (tc.arg && !errors.Is(tc.err, engine.ErrInvalidArgument)) {
			t.Errorf("%s: %v, want …%s…", tc.name, tc.err, tc.want)
		}
	}
}

func TestBesideIngest(t *testing.T) {
	ins := []Ingested{
		{Label: "pgvector", Docs: 30000, Batch: 1000, K: 10, Acked: 15 * time.Second, Visible: 30000, RecallAck: 0.95, StatusAck: "SELECT count(*) → 30000", Searchable: 15 * time.Second},
		{Label: "redis", Docs: 30000, Batch: 1000, K: 10, Acked: time.Second, Visible: 2816, RecallAck: 0.111, StatusAck: "FT.INFO percent_indexed 0.09", Searchable: 12 * time.Second},
	}
	tb, err := BesideIngest("E01", ins, []Figure{{Row: "pgvector", Measure: "ingest", Value: 46.5, Unit: "s"}, {Row: "pgvector", Measure: "docs/s", Value: 645, Unit: "docs/s"}, {Row: "redis", Measure: "docs/s", Value: 3158, Unit: "docs/s"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row, col, want string
	}{
		{"pgvector", "ingest s (article)", "46.5"}, {"pgvector", "ingest s (lab)", "15.0"}, {"pgvector", "docs/s (lab)", "2000"},
		{"redis", "docs/s (article)", "3158"}, {"redis", "docs/s (lab)", "30000"}, {"redis", "searchable at last ack (lab)", "2816 of 30000"},
		{"redis", "recall@10 at last ack (lab)", "0.111"}, {"redis", "searchable after s (lab)", "12.0"},
	} {
		if v, ok := tb.Lookup(c.row, c.col); !ok || v.String() != c.want {
			t.Errorf("%s, %s: %v (%v), want %s", c.row, c.col, v, ok, c.want)
		}
	}
	if v, ok := tb.Lookup("redis", "ingest s (article)"); !ok || v.Kind != table.Missing {
		t.Errorf("a figure the article did not give: %q", v)
	}
	if s := tb.String(); !strings.Contains(s, "redis at the last ack reported: FT.INFO percent_indexed 0.09") {
		t.Errorf("no status note:\n%s", s)
	}
}
