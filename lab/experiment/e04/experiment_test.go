package e04

import (
	"encoding/json"
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

func TestE04(t *testing.T) {
	env := exptest.Small(t)
	tb := Table(env)
	if vs := Verdicts(env, tb); len(vs) != 1 || !vs[0].Agrees || vs[0].Lab == "0 of 0 the same" {
		t.Errorf("Verdicts: %v", vs)
	}
	// A profile that differs from the article's default makes it differ.
	bad := Table(env)
	bad.Rows[0][3] = table.Int(99)
	if vs := Verdicts(env, bad); vs[0].Agrees || !strings.Contains(vs[0].Reason, "99") {
		t.Errorf("Verdicts on an altered table: %v", vs)
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
	if d := Describe(env); !strings.Contains(d, "bbq_hnsw") || !strings.Contains(d, "ef_search") {
		t.Errorf("Describe:\n%s", d)
	}
}

func TestReportJSONAndVerbatimNotes(t *testing.T) {
	env := exptest.Small(t)
	r := experiment.Run(env, e04)
	if r.Status != experiment.OK {
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
