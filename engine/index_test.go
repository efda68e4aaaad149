package engine_test

import (
	"math"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestBound(t *testing.T) {
	b := engine.NewBound(3)
	if v := b.Value(); !math.IsInf(float64(v), 1) {
		t.Fatalf("empty bound = %v, want +Inf", v)
	}
	cases := []struct {
		offer []float32
		want  float32
	}{
		{[]float32{5, 4}, float32(math.Inf(1))},
		{[]float32{9}, 9},
		{[]float32{1, float32(math.NaN())}, 5},
		{[]float32{7, 8}, 5},
		{[]float32{0.5}, 4},
	}
	for i, c := range cases {
		if got := b.Offer(c.offer...); got != c.want {
			t.Fatalf("step %d: Offer(%v) = %v, want %v", i, c.offer, got, c.want)
		}
		if got := b.Value(); got != c.want {
			t.Fatalf("step %d: Value() = %v, want %v", i, got, c.want)
		}
	}
}

func TestBoundConcurrent(t *testing.T) {
	b := engine.NewBound(10)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				b.Offer(float32(w*1000 + i))
			}
		}()
	}
	wg.Wait()
	if got := b.Value(); got != 9 {
		t.Fatalf("bound after 4000 offers = %v, want 9 (the 10th smallest)", got)
	}
}

func TestMergeResults(t *testing.T) {
	a := []engine.Result{{ID: 1, Dist: 0.1}, {ID: 4, Dist: 0.5}}
	b := []engine.Result{{ID: 2, Dist: 0.1}, {ID: 3, Dist: 0.2}}
	got := engine.MergeResults(3, a, b)
	want := []engine.Result{{ID: 1, Dist: 0.1}, {ID: 2, Dist: 0.1}, {ID: 3, Dist: 0.2}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
