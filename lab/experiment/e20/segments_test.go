package e20

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"testing"
)

func TestE20Direction(t *testing.T) {
	env := exptest.Small(t)
	res, err := Measure(env, 8, []int{20, 40}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Sequential {
		s, c, b := res.Sequential[i], res.Concurrent[i], res.Shared[i]
		if c.Recall != s.Recall || c.DistComps != s.DistComps {
			t.Fatalf("ef %d: concurrent search answers differently (recall %.3f vs %.3f)", s.Search.Ef, c.Recall, s.Recall)
		}
		if b.DistComps >= s.DistComps {
			t.Fatalf("ef %d: the shared bound computed %.0f distances, none %.0f", s.Search.Ef, b.DistComps, s.DistComps)
		}
	}
}
