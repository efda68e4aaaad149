package e21

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/table"
)

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
	c := KernelChart(kt)
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
	env := exptest.Small(t)
	tb := BuildTable(env, 500, 1000, 2500)
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
