package e17

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"testing"
)

func TestE17Direction(t *testing.T) {
	env := exptest.Small(t)
	rows, err := Measure(env, 2, []int{40}, 10)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Column.Decompressed != 0 || r.Stored.Decompressed == 0 {
		t.Fatalf("decompressed per query: column %.0f, stored %.0f", r.Column.Decompressed, r.Stored.Decompressed)
	}
	if r.Column.Recall != r.Stored.Recall {
		t.Fatalf("recall differs by id source: %.3f vs %.3f", r.Column.Recall, r.Stored.Recall)
	}
}
