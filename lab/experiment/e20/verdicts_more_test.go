package e20

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE20Verdicts checks the shared bound's cut, read at the same ef
// (e20ArticleEf) with and without the bound as Lucene's benchmark read it,
// with the recall drop bounded, and the verdict without that setting.
func TestE20Verdicts(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ef int, recall, dists float64) experiment.SegmentMeasurement {
		return experiment.SegmentMeasurement{Search: experiment.SegmentSearch{K: 10, Ef: ef}, Recall: recall, QPS: 100, DistComps: dists}
	}
	seq := []experiment.SegmentMeasurement{at(40, 0.9, 2000), at(e20ArticleEf, 0.99, 4000)}
	conc := []experiment.SegmentMeasurement{{Recall: 0.9, QPS: 211}, {Recall: 0.99, QPS: 211}}
	for _, c := range []struct {
		name   string
		shared []experiment.SegmentMeasurement
		cut    string // the cut verdict's word
		reason string // a part of its reason
	}{
		{"a 55 % cut, recall kept", []experiment.SegmentMeasurement{at(40, 0.88, 1900), at(e20ArticleEf, 0.98, 1800)}, "agrees", "4000 → 1800 distances per query, recall 0.990 → 0.980"},
		{"a 55 % cut, recall lost", []experiment.SegmentMeasurement{at(40, 0.8, 1900), at(e20ArticleEf, 0.90, 1800)}, "differs", "recall falls by 0.090, more than 0.05: not comparable"},
		{"a 10 % cut", []experiment.SegmentMeasurement{at(40, 0.9, 1900), at(e20ArticleEf, 0.99, 3600)}, "differs", "off by 50 %"},
		{"equal recall pairs both settings", []experiment.SegmentMeasurement{at(40, 0.9, 1000), at(e20ArticleEf, 0.99, 1800)}, "agrees", "paired at equal recall (± 0.01) instead, the largest cut is 55 %"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := Verdicts(env, &Result{Sequential: seq, Concurrent: conc, Shared: c.shared}, nil)
			if len(vs) != 4 {
				t.Fatalf("%d verdicts, want 4", len(vs))
			}
			if v := vs[3]; v.Word() != c.cut || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("cut: %s (%s), want %s with %q", v.Word(), v.Reason, c.cut, c.reason)
			}
		})
	}
	noArticleEf := []experiment.SegmentMeasurement{at(40, 0.9, 2000), at(80, 0.99, 4000)}
	vs := Verdicts(env, &Result{Sequential: noArticleEf, Concurrent: conc, Shared: noArticleEf}, nil)
	if v := vs[3]; v.Agrees || !strings.Contains(v.Reason, "no ef 100") {
		t.Errorf("E20 without the article's ef: %v", v)
	}
}
