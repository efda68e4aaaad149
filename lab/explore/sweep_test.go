package explore

import (
	"testing"
)

// qpsNoise is how much faster a larger ef's point may read than the
// smaller ef's before the sweep counts as not monotone: each doubling of
// ef about doubles the distance computations, so a real curve falls by
// far more than this between the swept points, and the best of
// timingPasses passes keeps the noise of a shared machine well under it
// (with one total over 25 ms, points read up to 2.5× apart in a browser).
const qpsNoise = 0.15

// TestSweepQPSMonotone checks that the explorer's QPS curve does not
// rise with ef beyond qpsNoise, natively at a small size (the costs of
// the swept ef are far apart: a zig-zag is the timing's, not the
// search's).
func TestSweepQPSMonotone(t *testing.T) {
	l, err := Build(BuildParams{N: 3000, Dim: 32, Queries: 50, M: 16, EfConstruction: 64, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	efs := []int{16, 32, 64, 128, 256}
	res, err := l.Search(SearchParams{K: 10, Ef: 16, Efs: efs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curve) != len(efs) {
		t.Fatalf("%d points for %d efs", len(res.Curve), len(efs))
	}
	for i, p := range res.Curve {
		t.Logf("ef %3d: recall@10 %.3f, %8.0f QPS, %6.0f distances/query", p.Ef, p.Recall, p.QPS, p.DistComps)
		if i == 0 {
			continue
		}
		prev := res.Curve[i-1]
		if p.QPS > prev.QPS*(1+qpsNoise) {
			t.Errorf("QPS rises from ef %d to ef %d: %.0f → %.0f (more than %.0f%%)", prev.Ef, p.Ef, prev.QPS, p.QPS, 100*qpsNoise)
		}
		if p.DistComps <= prev.DistComps {
			t.Errorf("distances/query do not grow from ef %d to %d: %.0f → %.0f", prev.Ef, p.Ef, prev.DistComps, p.DistComps)
		}
	}
}
