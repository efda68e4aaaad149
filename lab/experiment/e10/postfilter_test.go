package e10

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

func TestE10Sizes(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	dim := float64(4 * env.Scale.Dim)
	ms := []experiment.Measurement{{Label: "bbq_hnsw"}, {Label: "int8_hnsw"}, {Label: "hnsw"}}
	bytes := []float64{dim + 100 + 20, dim + 100 + 50, dim + 100}
	tb, err := Sizes(env, ms, bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		row, col string
		want     float64
	}{
		{"bbq_hnsw", "codes", 20},
		{"int8_hnsw", "codes", 50},
		{"hnsw", "codes", 0},
		{"hnsw", "graph links", 100},
		{"bbq_hnsw", "float32 vector", dim},
		{"int8_hnsw", "vs hnsw", 100 * 50 / (dim + 100)},
		{"bbq_hnsw", "store size vs hnsw % (article)", 100 * (54.4/52.6 - 1)},
	} {
		c, ok := tb.Lookup(tt.row, tt.col)
		if !ok || c.Kind != table.FloatKind && c.Kind != table.IntKind {
			t.Fatalf("no number at (%s, %s): %v", tt.row, tt.col, c)
		}
		got := c.Float
		if c.Kind == table.IntKind {
			got = float64(c.Int)
		}
		if d := got - tt.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("(%s, %s) = %v, want %v", tt.row, tt.col, got, tt.want)
		}
	}
	if _, err := Sizes(env, ms[:2], bytes[:2]); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("Sizes without an hnsw row: error %v, want ErrBadArgument", err)
	}
	if _, err := Sizes(env, ms, bytes[:1]); !errors.Is(err, experiment.ErrBadArgument) {
		t.Errorf("Sizes with too few sizes: error %v, want ErrBadArgument", err)
	}
}
