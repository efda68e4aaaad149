package dataset

import (
	"context"
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestContextVariantsStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerateContext(ctx, Config{N: 5000, Queries: 10, Dim: 16, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("GenerateContext with a cancelled context: %v", err)
	}
	ds, err := Generate(Config{N: 2000, Queries: 50, Dim: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ComputeTruthContext(ctx, ds.Base, ds.Queries, 10, engine.Cosine, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("ComputeTruthContext with a cancelled context: %v", err)
	}
	// The ambient context reaches the context-less calls.
	defer engine.SetContext(engine.SetContext(ctx))
	if _, err := ComputeTruth(ds.Base, ds.Queries, 10, engine.Cosine, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("ComputeTruth under a cancelled engine.Context(): %v", err)
	}
	engine.SetContext(nil)
	if tr, err := ComputeTruth(ds.Base, ds.Queries, 10, engine.Cosine, nil); err != nil || len(tr.IDs) != 50 {
		t.Errorf("ComputeTruth after the ambient context is cleared: %v", err)
	}
}
