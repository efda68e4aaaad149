package e26

import (
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestAndList words lists of names as the chart titles need them.
func TestAndList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"gp3"}, "gp3"}, {[]string{"nvme", "gp3"}, "nvme and gp3"}, {[]string{"nvme", "io2", "gp3"}, "nvme, io2 and gp3"}} {
		if got := andList(c.in); got != c.want {
			t.Errorf("andList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestE26StorageChart checks that each storage's bars are its designs'
// best points (highest recall, e26Best) and that the title names the
// simulated devices only.
func TestE26StorageChart(t *testing.T) {
	runs := []StorageRun{
		{Storage: "local", IVF: []experiment.DiskPoint{{Recall: 0.5, QPS: 900}, {Recall: 0.7, QPS: 400}}, HNSW: []experiment.DiskPoint{{Recall: 0.6, QPS: 100}}},
		{Storage: "gp3", IVF: []experiment.DiskPoint{{Recall: 0.7, QPS: 30}}, HNSW: []experiment.DiskPoint{{Recall: 0.4, QPS: 20}, {Recall: 0.6, QPS: 10}}},
	}
	c := storageChart(runs)
	if !strings.Contains(c.Title, "(lab; gp3 simulated)") || !reflect.DeepEqual(c.Categories, []string{"local", "gp3"}) {
		t.Errorf("title %q, categories %v", c.Title, c.Categories)
	}
	if len(c.Series) != 2 || !reflect.DeepEqual(c.Series[0].Values, []float64{400, 30}) || !reflect.DeepEqual(c.Series[1].Values, []float64{100, 10}) {
		t.Errorf("series %+v, want IVF [400 30] and HNSW [100 10]", c.Series)
	}
	if local := storageChart(runs[:1]); strings.Contains(local.Title, "simulated") || local.Err() != nil {
		t.Errorf("local only: title %q, %v", local.Title, local.Err())
	}
}
