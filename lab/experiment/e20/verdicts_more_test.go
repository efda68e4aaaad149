package e20

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE20Verdicts checks the shared bound's cut, judged at equal recall
// (Pairs, ± RecallTolerance) as a direction (fewer distances) and a
// magnitude (60 ± 25 %, never across 0), with the cut at the same ef
// (e20ArticleEf), as Lucene's benchmark read it, in the reason only.
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
		name           string
		shared         []experiment.SegmentMeasurement
		dir, magnitude string // the verdicts' words
		reason         string // a part of the magnitude's reason
	}{
		{"a 55 % cut at equal recall", []experiment.SegmentMeasurement{at(40, 0.88, 1900), at(e20ArticleEf, 0.985, 1800)}, "agrees", "agrees", "4000 → 1800 distances per query (55 % fewer) but recall 0.990 → 0.985"},
		{"55 % at the same ef, 10 % at equal recall", []experiment.SegmentMeasurement{at(40, 0.8, 1900), at(e20ArticleEf, 0.90, 1800)}, "agrees", "differs", "more than 25 %"},
		{"a 10 % cut", []experiment.SegmentMeasurement{at(40, 0.9, 1900), at(e20ArticleEf, 0.99, 3600)}, "agrees", "differs", "more than 25 %"},
		{"more distances at equal recall", []experiment.SegmentMeasurement{at(40, 0.9, 2100), at(e20ArticleEf, 0.99, 4400)}, "differs", "differs", "the opposite direction"},
		{"equal recall pairs both settings", []experiment.SegmentMeasurement{at(40, 0.9, 1000), at(e20ArticleEf, 0.99, 1800)}, "agrees", "agrees", "within the tolerance"},
		{"no pair at equal recall", []experiment.SegmentMeasurement{at(40, 0.5, 1000), at(e20ArticleEf, 0.6, 1800)}, "differs", "differs", "no shared-bound point has a sequential point within ± 0.01 recall"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs := Verdicts(env, &Result{Sequential: seq, Concurrent: conc, Shared: c.shared}, nil)
			if len(vs) != 5 {
				t.Fatalf("%d verdicts, want 5", len(vs))
			}
			if d, m := vs[3], vs[4]; d.Word() != c.dir || m.Word() != c.magnitude || !strings.Contains(m.Reason, c.reason) {
				t.Errorf("direction %s (%s), magnitude %s (%s); want %s, %s with %q", d.Word(), d.Reason, m.Word(), m.Reason, c.dir, c.magnitude, c.reason)
			}
		})
	}
	noArticleEf := []experiment.SegmentMeasurement{at(40, 0.9, 2000), at(80, 0.99, 4000)}
	vs := Verdicts(env, &Result{Sequential: noArticleEf, Concurrent: conc, Shared: noArticleEf}, nil)
	if v := vs[4]; v.Agrees || !strings.Contains(v.Reason, "no ef 100") {
		t.Errorf("E20 without the article's ef: %v", v)
	}
}
