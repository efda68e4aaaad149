package e16

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"testing"
)

func TestE16Direction(t *testing.T) {
	env := exptest.Small(t)
	ms, err := Measure(env, []int{16, 4, 1}, 10, 40)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{16, 4, 1} {
		if ms[i].Segments != want {
			t.Fatalf("row %d: %d segments, want %d", i, ms[i].Segments, want)
		}
	}
	// More segments: a wider search — more distances, recall no lower.
	if !(ms[0].DistComps > ms[1].DistComps && ms[1].DistComps > ms[2].DistComps) {
		t.Fatalf("distances per query by segments 16/4/1: %.0f %.0f %.0f, want decreasing", ms[0].DistComps, ms[1].DistComps, ms[2].DistComps)
	}
	if ms[0].Recall < ms[2].Recall {
		t.Fatalf("recall 16 segments %.3f < 1 segment %.3f", ms[0].Recall, ms[2].Recall)
	}
}
