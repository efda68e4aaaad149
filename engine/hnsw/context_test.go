package hnsw

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// A build whose context is cancelled returns context.Canceled promptly and
// leaves a searchable index holding a prefix of the batch.
func TestAddBatchContextCancel(t *testing.T) {
	n, dim := 4000, 32
	if raceEnabled { // ten times slower: a smaller batch still spans several chunks
		n = 1500
	}
	base := clustered(n, dim, 20, 0.3, 1)
	ix, err := New(Config{Dim: dim, Metric: engine.Cosine, EfConstruction: 100, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once the first chunk is in (Len waits for it)
		for ix.Len() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	err = ix.AddBatchContext(ctx, seqKeys(n), base)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v (index has %d of %d)", err, ix.Len(), n)
	}
	if ix.Len() == 0 || ix.Len() >= n {
		t.Fatalf("index holds %d of %d rows after the interrupt", ix.Len(), n)
	}
	t.Logf("stopped with %d of %d rows linked: %v ", ix.Len(), n, err)
	// The prefix is a working index: row 0 finds itself.
	res, _, err := ix.Query(base.Row(0), engine.Request{K: 1, Breadth: 64})
	if err != nil || len(res) != 1 || ix.Key(res[0].ID) != 0 {
		t.Fatalf("search after an interrupted build: %v %v", res, err)
	}
	// The rest of the batch can be added afterwards.
	if err := ix.AddBatch(seqKeys(n)[ix.Len():], &vec.Matrix{N: n - ix.Len(), Dim: dim, Stride: dim, Data: base.Data[ix.Len()*dim:]}); err != nil {
		t.Fatalf("resuming: %v", err)
	}
	if ix.Len() != n {
		t.Fatalf("resumed index has %d rows", ix.Len())
	}
}

// With one worker, the chunked build (a context that can be cancelled)
// links exactly the graph of one AddBatch.
func TestAddBatchContextSameGraph(t *testing.T) {
	n, dim := 3000, 16
	if raceEnabled {
		n = 800
	}
	base := clustered(n, dim, 10, 0.3, 2)
	build := func(ctx context.Context) *Index {
		ix, err := New(Config{Dim: dim, Seed: 3, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.AddBatchContext(ctx, seqKeys(n), base); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := build(context.Background()), build(ctx)
	for id := 0; id < n; id++ {
		for l := 0; l <= a.Level(engine.ID(id)); l++ {
			if !slices.Equal(a.Neighbors(l, engine.ID(id)), b.Neighbors(l, engine.ID(id))) {
				t.Fatalf("node %d layer %d: %v vs %v", id, l, a.Neighbors(l, engine.ID(id)), b.Neighbors(l, engine.ID(id)))
			}
		}
	}
}

// A context already done inserts nothing, and a bad row is still reported
// before anything is inserted.
func TestAddBatchContextChecks(t *testing.T) {
	base := clustered(500, 8, 4, 0.3, 4)
	ix, _ := New(Config{Dim: 8})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ix.AddBatchContext(ctx, seqKeys(500), base); !errors.Is(err, context.Canceled) || ix.Len() != 0 {
		t.Fatalf("done context: %v, %d rows", err, ix.Len())
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	base.Row(400)[3] = float32(math.NaN())
	if err := ix.AddBatchContext(live, seqKeys(500), base); !errors.Is(err, engine.ErrInvalidVector) || ix.Len() != 0 {
		t.Fatalf("bad row 400: %v, %d rows", err, ix.Len())
	}
}
