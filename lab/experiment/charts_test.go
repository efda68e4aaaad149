package experiment

import (
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/table"
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
	runs := []E26StorageRun{
		{Storage: "local", IVF: []DiskPoint{{Recall: 0.5, QPS: 900}, {Recall: 0.7, QPS: 400}}, HNSW: []DiskPoint{{Recall: 0.6, QPS: 100}}},
		{Storage: "gp3", IVF: []DiskPoint{{Recall: 0.7, QPS: 30}}, HNSW: []DiskPoint{{Recall: 0.4, QPS: 20}, {Recall: 0.6, QPS: 10}}},
	}
	c := E26StorageChart(runs)
	if !strings.Contains(c.Title, "(lab; gp3 simulated)") || !reflect.DeepEqual(c.Categories, []string{"local", "gp3"}) {
		t.Errorf("title %q, categories %v", c.Title, c.Categories)
	}
	if len(c.Series) != 2 || !reflect.DeepEqual(c.Series[0].Values, []float64{400, 30}) || !reflect.DeepEqual(c.Series[1].Values, []float64{100, 10}) {
		t.Errorf("series %+v, want IVF [400 30] and HNSW [100 10]", c.Series)
	}
	if local := E26StorageChart(runs[:1]); strings.Contains(local.Title, "simulated") || local.Err() != nil {
		t.Errorf("local only: title %q, %v", local.Title, local.Err())
	}
}

// TestE12SaveChart checks the index rows only are drawn, in order, with
// the long labels shortened and the generation kept as 100 or 0.
func TestE12SaveChart(t *testing.T) {
	rows := []E12Row{
		{Disk: "80 %", File: "index", Before: 0.8, OnDisk: "new"},
		{Disk: "80 %", File: "vectors", Before: 0.81, OnDisk: "new"},
		{Disk: "just under 90 %, the save crosses it", File: "index", Before: 0.899, OnDisk: "previous"},
	}
	c := E12SaveChart(rows)
	if !reflect.DeepEqual(c.Categories, []string{"80 %", "just under 90 % (crosses)"}) {
		t.Fatalf("categories %q", c.Categories)
	}
	if got := c.Series[1].Values; !reflect.DeepEqual(got, []float64{100, 0}) {
		t.Errorf("new kept %v, want [100 0]", got)
	}
	if got := c.Series[0].Values; len(got) != 2 || got[0] != 80 || got[1] < 89.89 || got[1] > 89.91 {
		t.Errorf("used before %v, want [80 89.9]", got)
	}
	for _, d := range E12Disks {
		if s, ok := e12ShortLabels[d.Label]; ok && len(s) >= len(d.Label) {
			t.Errorf("short label %q is not shorter than %q", s, d.Label)
		}
	}
	if len(e12ShortLabels) != 2 {
		t.Errorf("%d short labels: one of E12Disks' labels changed", len(e12ShortLabels))
	}
	n := 0
	for _, d := range E12Disks {
		if _, ok := e12ShortLabels[d.Label]; ok {
			n++
		}
	}
	if n != len(e12ShortLabels) {
		t.Errorf("only %d of the %d short labels name a disk of E12Disks", n, len(e12ShortLabels))
	}
}

// TestE21KernelChart reads the three kernels' ns per row of a kernel
// table into lines by dimension, skipping a row that is not a dimension.
func TestE21KernelChart(t *testing.T) {
	kt := table.New("k", table.Col("dim", ""),
		table.Column{Header: "scalar Go loop", Unit: "ns", Source: table.Lab, Prec: 1},
		table.Column{Header: "engine pure-Go twin", Unit: "ns", Source: table.Lab, Prec: 1},
		table.Column{Header: "engine vec.Dot", Unit: "ns", Source: table.Lab, Prec: 1})
	_ = kt.AddValues("64", 40.0, 20.0, 5.0)
	_ = kt.AddValues("mean", 1.0, 1.0, 1.0)
	_ = kt.AddValues("128", 80.0, 35.0, 8.0)
	c := E21KernelChart(kt)
	if !c.LogX || !c.LogY || len(c.Series) != 3 {
		t.Fatalf("chart %+v", c)
	}
	want := [][]float64{{40, 80}, {20, 35}, {5, 8}}
	for i, s := range c.Series {
		if !reflect.DeepEqual(s.X, []float64{64, 128}) || !reflect.DeepEqual(s.Y, want[i]) {
			t.Errorf("%s: x %v y %v, want [64 128] %v", s.Name, s.X, s.Y, want[i])
		}
	}
}

// TestE21BuildTable checks the lab's ratio is SIMD over scalar, beside the
// article's.
func TestE21BuildTable(t *testing.T) {
	env := small(t)
	tb := E21BuildTable(env, 500, 1000, 2500)
	if !strings.Contains(tb.Title, "500×") {
		t.Errorf("title %q", tb.Title)
	}
	ci := tb.Column("speed-up × (lab)")
	if ci < 0 || tb.Cell(1, ci).Float != 2.5 {
		t.Errorf("speed-up column %d, cell %v; want 2.5", ci, tb.Cell(1, ci))
	}
	if c := tb.Cell(1, tb.Column("speed-up × (article)")); c.Kind != table.FloatKind || c.Float < 1.44 || c.Float > 1.45 {
		t.Errorf("article speed-up %v, want 1,300 / 900", c)
	}
}

// TestE25ShapeChart draws the fixed-count shapes at the default spread
// only, by mean passages, with recall scaled to documents.
func TestE25ShapeChart(t *testing.T) {
	shape := func(lo, hi int, spread, mean, naiveParents, naiveRecall, parRecall float64) E25Shape {
		return E25Shape{Config: E25Config{MinPassages: lo, MaxPassages: hi, Spread: spread}, Mean: mean, Rows: []E25Row{
			{Method: e25Parents, Asked: 10, Ef: 40, MeanParents: 10, Recall: parRecall},
			{Method: e25Naive, Asked: 10, Ef: 40, MeanParents: naiveParents, Recall: naiveRecall},
		}}
	}
	shapes := []E25Shape{
		shape(1, 1, e25DefaultSpread, 1, 10, 0.9, 0.9),
		shape(2, 8, e25DefaultSpread, 5, 4, 0.4, 0.95), // not a fixed count
		shape(5, 5, e25DefaultSpread, 5, 3, 0.3, 0.97),
		shape(5, 5, 1, 5, 6, 0.6, 0.9), // not the default spread
	}
	c := E25ShapeChart(shapes)
	if c.Title != "naive plan vs passages per parent, ef = 40, k = 10 (lab)" || len(c.Series) != 3 {
		t.Fatalf("title %q, %d series", c.Title, len(c.Series))
	}
	want := [][]float64{{10, 3}, {9, 3}, {9, 9.7}}
	for i, s := range c.Series {
		if !reflect.DeepEqual(s.X, []float64{1, 5}) || len(s.Y) != 2 || s.Y[0] != want[i][0] || s.Y[1]-want[i][1] > 1e-9 || want[i][1]-s.Y[1] > 1e-9 {
			t.Errorf("%s: x %v y %v, want [1 5] %v", s.Name, s.X, s.Y, want[i])
		}
	}
	if (E25Shape{}).Row(e25Naive).Method != "" {
		t.Error("a shape without rows has a naive row")
	}
}

// TestE25CountChart counts parents per passage count, leaving out counts
// no parent has.
func TestE25CountChart(t *testing.T) {
	x := &E25Index{Config: E25Config{MinPassages: 1, MaxPassages: 5}, Counts: []int{2, 5, 2, 1, 2}}
	c := x.CountChart()
	if !reflect.DeepEqual(c.Categories, []string{"1", "2", "5"}) || !reflect.DeepEqual(c.Series[0].Values, []float64{1, 3, 1}) {
		t.Errorf("categories %v values %v, want [1 2 5] [1 3 1]", c.Categories, c.Series[0].Values)
	}
}
