package e07

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE07LiveWhy feeds Verdicts the article's table with relaxed_order
// off the article's 0.611, with and without the real pgvector's answer:
// a differing row's reason says what the real store measured on the same
// data, and so whether the gap is the data's or the emulation's.
func TestE07LiveWhy(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(relaxed float64, live *experiment.LiveMeasurement) []experiment.StrategyMeasurement {
		var ms []experiment.StrategyMeasurement
		for _, s := range Default {
			m := experiment.StrategyMeasurement{Label: s.Label()}
			m.Recall = e07.ArticleValue(s.Label(), "recall@10").(float64)
			m.MeanHits = e07.ArticleValue(s.Label(), "mean hits").(float64)
			if s.Scan == "relaxed_order" {
				m.Recall, m.Live = relaxed, live
			}
			ms = append(ms, m)
		}
		return ms
	}
	const claim = "40 relaxed_order: filtered recall@10 is 0.611"
	for _, c := range []struct {
		name    string
		relaxed float64
		live    *experiment.LiveMeasurement
		agrees  bool
		reason  string // a part of the relaxed_order recall verdict's reason
	}{
		{"agrees, no reason added", 0.62, nil, true, "within the tolerance"},
		{"differs, no real store", 0.668, nil, false, "the real pgvector was not run"},
		{"differs, real store off too: the data", 0.668, &experiment.LiveMeasurement{Recall: 0.671, MeanHits: 10}, false,
			"gives 0.671 (0.003 from the emulation), also off the article's 0.611 by more than 0.05: the gap is the data's"},
		{"differs, real store agrees: the emulation", 0.668, &experiment.LiveMeasurement{Recall: 0.62, MeanHits: 10}, false,
			"gives 0.62, within 0.05 of the article's 0.611: the gap is the emulation's (0.048 from the real store)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got *experiment.Verdict
			vs := Verdicts(env, rows(c.relaxed, c.live))
			for i := range vs {
				if strings.HasPrefix(vs[i].Claim, claim) {
					got = &vs[i]
				}
			}
			if got == nil {
				t.Fatalf("no verdict %q among %v", claim, vs)
			}
			if got.Agrees != c.agrees || !strings.Contains(got.Reason, c.reason) {
				t.Errorf("%s: %s (%s), want %v and a reason containing %q", claim, got.Word(), got.Reason, c.agrees, c.reason)
			}
			if n := len(vs); n != 11 {
				t.Errorf("%d verdicts, want 11 (the real store adds none)", n)
			}
		})
	}
}
