package e25

import (
	"github.com/veclab/veclab/lab/dataset"
	"reflect"
	"testing"
)

// TestE25ShapeChart draws the fixed-count shapes at the default spread
// only, by mean passages, with recall scaled to documents.
func TestE25ShapeChart(t *testing.T) {
	shape := func(lo, hi int, spread, mean, naiveParents, naiveRecall, parRecall float64) Shape {
		return Shape{Config: Config{MinPassages: lo, MaxPassages: hi, Spread: spread}, Mean: mean, Rows: []Row{
			{Method: e25Parents, Asked: 10, Ef: 40, MeanParents: 10, Recall: parRecall},
			{Method: e25Naive, Asked: 10, Ef: 40, MeanParents: naiveParents, Recall: naiveRecall},
		}}
	}
	shapes := []Shape{
		shape(1, 1, dataset.DefaultPassageSpread, 1, 10, 0.9, 0.9),
		shape(2, 8, dataset.DefaultPassageSpread, 5, 4, 0.4, 0.95), // not a fixed count
		shape(5, 5, dataset.DefaultPassageSpread, 5, 3, 0.3, 0.97),
		shape(5, 5, 1, 5, 6, 0.6, 0.9), // not the default spread
	}
	c := ShapeChart(shapes)
	if c.Title != "naive plan vs passages per parent, ef = 40, k = 10 (lab)" || len(c.Series) != 3 {
		t.Fatalf("title %q, %d series", c.Title, len(c.Series))
	}
	want := [][]float64{{10, 3}, {9, 3}, {9, 9.7}}
	for i, s := range c.Series {
		if !reflect.DeepEqual(s.X, []float64{1, 5}) || len(s.Y) != 2 || s.Y[0] != want[i][0] || s.Y[1]-want[i][1] > 1e-9 || want[i][1]-s.Y[1] > 1e-9 {
			t.Errorf("%s: x %v y %v, want [1 5] %v", s.Name, s.X, s.Y, want[i])
		}
	}
	if (Shape{}).Row(e25Naive).Method != "" {
		t.Error("a shape without rows has a naive row")
	}
}

// TestE25CountChart counts parents per passage count, leaving out counts
// no parent has.
func TestE25CountChart(t *testing.T) {
	x := &Index{Config: Config{MinPassages: 1, MaxPassages: 5}, Counts: []int{2, 5, 2, 1, 2}}
	c := x.CountChart()
	if !reflect.DeepEqual(c.Categories, []string{"1", "2", "5"}) || !reflect.DeepEqual(c.Series[0].Values, []float64{1, 3, 1}) {
		t.Errorf("categories %v values %v, want [1 2 5] [1 3 1]", c.Categories, c.Series[0].Values)
	}
}
