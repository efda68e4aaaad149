package engine_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
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

// TestRequestValidate: every field out of range is refused by name, as
// an *ArgError a layer above can restate, or with the two fields that
// cannot go together; the zero value of every field but K is valid.
func TestRequestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     engine.Request
		field string // the *ArgError's field; "" for a plain error
		msg   string
	}{
		{"k zero", engine.Request{}, "k", "engine: k must be positive, got 0: engine: invalid argument"},
		{"k negative", engine.Request{K: -2}, "k", "engine: k must be positive, got -2"},
		{"breadth negative", engine.Request{K: 1, Breadth: -3}, "breadth", "engine: breadth must be ≥ 0 (0: the index's default), got -3"},
		{"seeds with bound", engine.Request{K: 1, Seeds: []engine.ID{1}, Bound: engine.NewBound(1)}, "", "set one of Seeds and Bound"},
		{"patience with bound", engine.Request{K: 1, Patience: true, Bound: engine.NewBound(1)}, "", "set one of Patience and Bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Validate()
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want ErrInvalidArgument with %q", err, tc.msg)
			}
			var ae *engine.ArgError
			if ok := errors.As(err, &ae); ok != (tc.field != "") || ok && ae.Field != tc.field {
				t.Fatalf("err = %v: ArgError %v (%+v), want field %q", err, ok, ae, tc.field)
			}
		})
	}
	for _, r := range []engine.Request{{K: 1}, {K: 5, Breadth: 40, Seeds: []engine.ID{3}, Patience: true}, {K: 1, Bound: engine.NewBound(4)}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

// ExampleRescoreDepth: k′ = ⌈oversample·k⌉ candidates are gathered
// before rescoring (Elasticsearch's rescore_vector).
func ExampleRescoreDepth() {
	fmt.Println(engine.RescoreDepth(10, 1), engine.RescoreDepth(10, 1.5), engine.RescoreDepth(10, 3), engine.RescoreDepth(7, 1.5))
	// Output: 10 15 30 11
}
