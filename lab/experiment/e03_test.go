package experiment

import (
	"strings"
	"testing"
)

// TestFilteredExperimentsSmall runs E03, E07, E08 and E09 at the small
// scale and checks the mechanisms the article reports.
func TestFilteredExperimentsSmall(t *testing.T) {
	env := small(t)

	r := Run(env, e03)
	if r.Status != OK {
		t.Fatalf("E03: %s: %s", r.Status, r.Err)
	}
	tb := r.Tables[0]
	if len(tb.Rows) != 4 {
		t.Fatalf("E03 has %d rows", len(tb.Rows))
	}
	for _, store := range []string{"redis", "qdrant"} {
		if rec := lab(t, tb, store, "recall@10 (lab)"); rec != 1 {
			t.Errorf("E03 %s recall %v, want 1 (exact over the matching set)", store, rec)
		}
	}
	if h := lab(t, tb, "pgvector", "mean hits (lab)"); h >= 10 {
		t.Errorf("E03 pgvector mean hits %v, want the post-filter shortfall", h)
	}

	r = Run(env, e07)
	if r.Status != OK {
		t.Fatalf("E07: %s: %s", r.Status, r.Err)
	}
	tb = r.Tables[0]
	if h := lab(t, tb, "40 off", "mean hits (lab)"); h >= 10 {
		t.Errorf("E07 40 off: mean hits %v", h)
	}
	if h := lab(t, tb, "40 relaxed_order", "mean hits (lab)"); h != 10 {
		t.Errorf("E07 relaxed: mean hits %v, want 10", h)
	}
	if off, big := lab(t, tb, "40 off", "mean hits (lab)"), lab(t, tb, "1000 off", "mean hits (lab)"); big <= off {
		t.Errorf("E07: ef_search 1000 gives %v hits, 40 gives %v", big, off)
	}

	r = Run(env, e08)
	if r.Status != OK {
		t.Fatalf("E08: %s: %s", r.Status, r.Err)
	}
	tb = r.Tables[0]
	for _, row := range []string{"no payload index", "keyword+integer index"} {
		if rec := lab(t, tb, row, "recall@10 (lab)"); rec != 1 {
			t.Errorf("E08 %s recall %v, want 1", row, rec)
		}
	}
	if reads := lab(t, tb, "no payload index", "payload reads/query"); reads < float64(env.Scale.N) {
		t.Errorf("E08 without index read %v payloads per query, want ≥ %d", reads, env.Scale.N)
	}
	if reads := lab(t, tb, "keyword+integer index", "payload reads/query"); reads != 0 {
		t.Errorf("E08 with index read %v payloads", reads)
	}

	r = Run(env, e09)
	if r.Status != OK {
		t.Fatalf("E09: %s: %s", r.Status, r.Err)
	}
	if s := r.String(); !strings.Contains(s, "not allowed filter identifier name: category") || !strings.Contains(s, "documents match") {
		t.Errorf("E09 report lacks the refusal or the declared run:\n%s", s)
	}
}
