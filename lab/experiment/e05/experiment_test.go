package e05

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

func TestE05(t *testing.T) {
	env := exptest.Small(t)
	ms, err := Measure(env, []int{15, 100})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Plan.Ef != 30 || ms[1].Plan.Ef != 100 || ms[0].Plan.Rescore != 30 || ms[1].Plan.Rescore != 30 {
		t.Errorf("plans %v / %v: want beams 30 and 100, 30 rescored each", ms[0].Plan, ms[1].Plan)
	}
	// Both rescore the same 30 candidates: the sweep is flat.
	if vs := Verdicts(env, ms); len(vs) != 3 || !vs[2].Agrees || !strings.Contains(vs[2].Claim, "flat") {
		t.Errorf("Verdicts: %v", vs)
	}
	// Below 384 dims Elasticsearch does not pick bbq_hnsw: not runnable.
	sc := experiment.Small
	sc.Dim = 128
	env2, err := experiment.NewEnv(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := experiment.Run(env2, e05)
	if r.Status != experiment.NotRunnable || !strings.Contains(r.Err, "dims ≥ 384") {
		t.Errorf("E05 at 128 dims: %s: %s", r.Status, r.Err)
	}
}
