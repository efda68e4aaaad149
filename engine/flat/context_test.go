package flat

import (
	"context"
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func TestSearchBatchContext(t *testing.T) {
	m := vec.NewMatrix(200, 4)
	for i := range m.Data {
		m.Data[i] = float32(i%7) + 1
	}
	x, err := New(m, Config{Metric: engine.L2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if res, err := x.SearchBatchContext(ctx, m, 3, nil); err != nil || len(res) != 200 {
		t.Fatalf("live context: %d results, %v", len(res), err)
	}
	cancel()
	if _, err := x.SearchBatchContext(ctx, m, 3, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	defer engine.SetContext(engine.SetContext(ctx))
	if _, err := x.SearchBatch(m, 3, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("SearchBatch under a cancelled engine.Context(): %v", err)
	}
}
