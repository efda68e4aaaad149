package e05

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
)

// verdictWords returns "agrees"/"differs" per verdict, for compact
// comparisons.
func verdictWords(vs experiment.Verdicts) string {
	var w []string
	for _, v := range vs {
		w = append(w, v.Word())
	}
	return strings.Join(w, " ")
}

func TestE05OversampleVerdicts(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	overs := []float64{1, 3, 10, 50}
	for _, tc := range []struct {
		name        string
		graph, scan []float64
		want        string
	}{
		{"the article's scale: codes limit, oversample recovers", []float64{0.15, 0.305, 0.642, 0.989}, []float64{0.151, 0.322, 0.649, 0.989}, "agrees agrees"},
		{"a small collection: nothing left to recover", []float64{0.8, 0.88, 0.95, 1}, []float64{0.81, 0.885, 0.95, 1}, "differs agrees"},
		{"the graph loses more than the codes", []float64{0.15, 0.2, 0.6, 0.98}, []float64{0.16, 0.32, 0.65, 0.99}, "agrees differs"},
	} {
		got := verdictWords(OversampleVerdicts(env, &Oversample{Overs: overs, Graph: tc.graph, Scan: tc.scan}))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := verdictWords(OversampleVerdicts(env, &Oversample{Overs: []float64{1, 2}, Graph: []float64{0.1, 0.2}, Scan: []float64{0.1, 0.2}})); got != "differs" {
		t.Errorf("a sweep without the default 3: %s, want one differs", got)
	}
	if _, err := OversampleSweep(env, []float64{1, 2, 5}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("OversampleSweep without 3: %v, want engine.ErrInvalidArgument", err)
	}
}
