package experiment

import (
	"errors"
	"testing"
)

// TestE26Small runs both sweeps on local storage at the small scale: every
// point rescoring k = 100 originals reads 100 vectors, recall grows along
// each sweep, and the table pairs every IVF point.
func TestE26Small(t *testing.T) {
	env := small(t)
	a, b, err := E26Sweeps(env, "local", 1, []float64{5, 50}, []int{100, 400}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(append([]DiskPoint{}, a...), b...) {
		if p.Reads != 100 {
			t.Errorf("%s: %v reads/query, want 100 (k=100, oversample 1)", p.Label, p.Reads)
		}
		if p.Recall <= 0 || p.Recall > 1 || p.QPS <= 0 {
			t.Errorf("%s: recall %v QPS %v", p.Label, p.Recall, p.QPS)
		}
	}
	if a[1].Recall < a[0].Recall {
		t.Errorf("IVF recall falls with visit %%: %v → %v", a[0].Recall, a[1].Recall)
	}
	if a[1].Recall < 0.5 || b[1].Recall < 0.5 {
		t.Errorf("recall@100 at 50%% visit %v, at ef 400 %v: below what 2-bit codes reach on this set (~0.7)", a[1].Recall, b[1].Recall)
	}
	// Rescoring more candidates can only help.
	a3, _, err := E26Sweeps(env, "local", 3, []float64{50}, []int{100}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if a3[0].Recall < a[1].Recall || a3[0].Reads != 300 {
		t.Errorf("oversample 3 at 50%% visit: recall %v (×1: %v), %v reads/query", a3[0].Recall, a[1].Recall, a3[0].Reads)
	}
	tb := E26Table(env, "local", 1, a, b)
	if len(tb.Rows) != len(a) {
		t.Errorf("E26 table has %d rows for %d IVF points", len(tb.Rows), len(a))
	}
	if _, _, err := E26Sweeps(env, "floppy", 1, []float64{5}, []int{100}, 1); !errors.Is(err, ErrBadArgument) {
		t.Errorf("unknown storage: %v", err)
	}
	if _, _, err := E26Sweeps(env, "local", 1, []float64{0}, []int{100}, 1); !errors.Is(err, ErrBadArgument) {
		t.Errorf("visit 0: %v", err)
	}
}
