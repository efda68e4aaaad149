package e01

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE01LagSmall checks the visibility timeline notebook 01 draws: each
// store's samples end when it reports itself searchable, and
// Elasticsearch's first sample, taken before the scheduled refresh,
// sees fewer documents than were acknowledged (the refreshes count
// documents, so the last batch waits for the next one).
func TestE01LagSmall(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	tb, _, err := Lag(env, nil)
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
