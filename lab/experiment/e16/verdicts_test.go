package e16

import (
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE16Verdicts: the recall and QPS claims each give a direction and a
// magnitude verdict; the lab's figures at the article scale (recall
// −0.0037, QPS 48.8×) agree in direction only, figures near the
// article's (−0.02, 1.5×) in both, and the opposite directions in none.
func TestE16Verdicts(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	at := func(segs int, recall, qps float64) experiment.SegmentMeasurement {
		return experiment.SegmentMeasurement{Segments: segs, Recall: recall, QPS: qps, DistComps: float64(100 * segs)}
	}
	for _, c := range []struct {
		name   string
		r1, q1 float64 // the fewest segments' recall and QPS, from 1.0 and 100
		want   [4]string
	}{
		{"direction only", 0.9963, 4880, [4]string{"agrees", "differs", "agrees", "differs"}},
		{"direction and magnitude", 0.98, 150, [4]string{"agrees", "agrees", "agrees", "agrees"}},
		{"opposite directions", 1.0, 80, [4]string{"differs", "differs", "differs", "differs"}},
		{"QPS within the noise", 0.98, 110, [4]string{"agrees", "agrees", "differs", "differs"}},
	} {
		vs := Verdicts(env, []experiment.SegmentMeasurement{at(64, 1.0, 100), at(1, c.r1, c.q1)})
		if len(vs) != 5 {
			t.Fatalf("%d verdicts", len(vs))
		}
		for i, w := range c.want {
			if vs[i].Word() != w {
				t.Errorf("%s: %s %s (%s), want %s", c.name, vs[i].Claim, vs[i].Word(), vs[i].Reason, w)
			}
		}
	}
}
