package kmeans

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A cancelled context stops training in the seeding or between Lloyd
// iterations, with context.Canceled; a live one changes nothing.
func TestTrainContext(t *testing.T) {
	data, _ := blobs(4000, 16, 8, 1)
	cfg := Config{K: 16, MaxIter: 20, Seed: 2, Workers: 1}
	want, err := Train(data, cfg)
	if err != nil {
		t.Fatal(err)
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	got, err := TrainContext(live, data, cfg)
	if err != nil || got.Objective != want.Objective || got.Iters != want.Iters {
		t.Fatalf("live context: %v, objective %v vs %v", err, got.Objective, want.Objective)
	}
	for _, init := range []Init{PlusPlus, Random} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c := cfg
		c.Init = init
		if _, err := TrainContext(ctx, data, c); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: cancelled context: %v", init, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if _, err := TrainContext(ctx, data, cfg); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired deadline: %v", err)
	}
}
