package batch

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestRunCoversEveryIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, workers, chunk int }{{0, 3, 4}, {1, 3, 4}, {10, 1, 3}, {100, 4, 7}, {64, 8, 1}} {
		hits := make([]atomic.Int32, c.n)
		done, err := Run(context.Background(), c.n, c.workers, c.chunk, func(w, lo, hi int) error {
			if w < 0 || w >= c.workers || hi-lo > c.chunk || lo >= hi {
				t.Errorf("bad chunk w=%d [%d,%d)", w, lo, hi)
			}
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
			return nil
		})
		if err != nil || done != c.n {
			t.Fatalf("%+v: done %d err %v", c, done, err)
		}
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("%+v: index %d run %d times", c, i, hits[i].Load())
			}
		}
	}
}

func TestRunStopsOnCancelAndError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done, err := Run(ctx, 100, 1, 10, func(w, lo, hi int) error {
		if lo == 30 {
			cancel()
		}
		return nil
	})
	if err != nil || done != 40 {
		t.Fatalf("cancel during chunk 3: done %d err %v, want 40 nil", done, err)
	}
	bad := errors.New("bad")
	done, err = Run(nil, 100, 1, 10, func(w, lo, hi int) error {
		if lo == 50 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) || done != 50 {
		t.Fatalf("error at chunk 5: done %d err %v", done, err)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("panic not re-raised: %v", p)
		}
	}()
	Run(nil, 10, 2, 1, func(w, lo, hi int) error { panic("boom") })
}
