package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// An experiment run under a cancelled context fails with the interrupt in
// its report, runAll runs no further experiment, and the ambient context
// is restored afterwards.
func TestRunContextStops(t *testing.T) {
	env, err := NewEnv(Scale{Name: "custom", N: 3000, Dim: 16, Clusters: 4, Queries: 10, K: 10, Batch: 100}, 1)
	if err != nil {
		t.Fatal(err)
	}
	e02, ok := Lookup("E02")
	if !ok {
		t.Fatal("no E02")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runContext(ctx, env, e02)
	if r.Status != Failed || !strings.Contains(r.Err, context.Canceled.Error()) {
		t.Fatalf("E02 under a cancelled context: %v %q", r.Status, r.Err)
	}
	if rs := runAllContext(ctx, env, []Experiment{e02, e02}); len(rs) != 1 {
		t.Errorf("runAll under a cancelled context ran %d experiments, want 1 (the interrupted one)", len(rs))
	}
	if err := engine.Context().Err(); err != nil {
		t.Fatalf("the ambient context stays cancelled after runContext: %v", err)
	}
	// The outer (ambient) context reaches runContext's run too.
	defer engine.SetContext(engine.SetContext(ctx))
	if r := runContext(context.Background(), env, e02); r.Status != Failed {
		t.Errorf("E02 under a cancelled engine.Context(): %v", r.Status)
	}
	if !errors.Is(engine.Context().Err(), context.Canceled) {
		t.Errorf("runContext did not restore the outer ambient context")
	}
}
