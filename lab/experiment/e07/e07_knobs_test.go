package e07

import (
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestMeasureStrategyGridRejects: bad knob settings and filters get an
// error that names them, before anything is measured.
func TestMeasureStrategyGridRejects(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, tc := range []struct {
		name    string
		filters []string
		want    string
	}{
		{"no filters", nil, "no filters"},
		{"bad filter", []string{"category =="}, `filter "category =="`},
		{"two filters of one share", []string{"category == 'c3'", "category == 'c3'"}, "both match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MeasureStrategyGrid(env, tc.filters)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one naming %q", err, tc.want)
			}
			if tc.name != "bad filter" && !errors.Is(err, experiment.ErrBadArgument) {
				t.Errorf("err %v is not errBadArgument", err)
			}
		})
	}
	g := &StrategyGrid{K: 10, Filters: []experiment.Selectivity{{Matching: 5, N: 100}}, Strategies: []string{"exact"}, Cells: [][]experiment.StrategyMeasurement{{{}}}}
	for _, ij := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
		if _, err := g.Detail(ij[0], ij[1]); !errors.Is(err, experiment.ErrBadArgument) {
			t.Errorf("Detail(%d, %d): %v", ij[0], ij[1], err)
		}
		if _, err := g.Chart(ij[0], ij[1]); !errors.Is(err, experiment.ErrBadArgument) {
			t.Errorf("Chart(%d, %d): %v", ij[0], ij[1], err)
		}
	}
	if _, err := g.Story(0); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("Story on a grid without pgvector's strategies: %v", err)
	}
}
