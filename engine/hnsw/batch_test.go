package hnsw

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// engine.QueryBatch over a graph answers every row as a lone Query does, in row order, on
// one worker and several, with and without a filter; a bad row fails the
// batch naming it; a done context stops it with the context's error.
func TestQueryBatch(t *testing.T) {
	n, dim := 2000, 16
	base := clustered(n, dim, 10, 0.3, 2)
	ix, err := New(Config{Dim: dim, Metric: engine.Cosine, EfConstruction: 64, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), base); err != nil {
		t.Fatal(err)
	}
	qs := clustered(57, dim, 10, 0.3, 3)
	even := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
	for _, workers := range []int{1, 3} {
		for _, allow := range []engine.Filter{nil, even} {
			got, err := engine.QueryBatch(context.Background(), ix, qs.N, qs.Row, engine.Request{K: 10, Breadth: 40, Filter: allow}, workers)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != qs.N {
				t.Fatalf("%d result lists for %d queries", len(got), qs.N)
			}
			for i := range qs.N {
				want, _, err := ix.Query(qs.Row(i), engine.Request{K: 10, Breadth: 40, Filter: allow})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[i], want) {
					t.Fatalf("workers=%d filter=%t query %d: batch %v, single %v", workers, allow != nil, i, got[i], want)
				}
			}
		}
	}
	bad := &vec.Matrix{N: 3, Dim: dim, Stride: dim, Data: slices.Clone(qs.Data[:3*dim])}
	for j := range dim {
		bad.Row(1)[j] = 0 // a zero vector has no cosine
	}
	if _, err := engine.QueryBatch(nil, ix, bad.N, bad.Row, engine.Request{K: 10, Breadth: 40}, 0); err == nil || !strings.Contains(err.Error(), "query 1") {
		t.Fatalf("zero query row 1: got %v, want an error naming query 1", err)
	}
	wide := &vec.Matrix{N: 1, Dim: dim + 1, Stride: dim + 1, Data: make([]float32, dim+1)}
	if _, err := engine.QueryBatch(nil, ix, wide.N, wide.Row, engine.Request{K: 10, Breadth: 40}, 0); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("wrong dimension: %v", err)
	}
	if _, err := engine.QueryBatch(nil, nil, qs.N, qs.Row, engine.Request{K: 10}, 0); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("nil index: %v", err)
	}
	if _, err := engine.QueryBatch(nil, ix, qs.N, qs.Row, engine.Request{K: 0}, 0); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("k = 0: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := engine.QueryBatch(ctx, ix, qs.N, qs.Row, engine.Request{K: 10, Breadth: 40}, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

// Reserve allocates the slab once: batches added up to the reserved
// count land in the same array, and the graph is the one built without
// it (same answers); a count below the size, or more rows than
// reserved, changes nothing else.
func TestReserve(t *testing.T) {
	n, dim := 600, 8
	base := clustered(n, dim, 6, 0.3, 5)
	build := func(reserve int) *Index {
		ix, err := New(Config{Dim: dim, Metric: engine.Cosine, EfConstruction: 32, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ix.Reserve(reserve)
		var slab *float32
		for lo := 0; lo < n; lo += 100 {
			m := &vec.Matrix{N: 100, Dim: dim, Stride: dim, Data: base.Data[lo*dim : (lo+100)*dim]}
			if err := ix.AddBatch(seqKeys(n)[lo:lo+100], m); err != nil {
				t.Fatal(err)
			}
			if lo == 0 {
				slab = &ix.data[0]
			} else if reserve >= n && &ix.data[0] != slab {
				t.Errorf("Reserve(%d): the slab moved at row %d", reserve, lo)
			}
		}
		return ix
	}
	plain := build(0)
	for _, r := range []int{n, 2 * n, n / 2, -1} {
		ix := build(r)
		for i := 0; i < 20; i++ {
			q := base.Row(i * 7)
			a, _, errA := ix.Query(q, engine.Request{K: 10, Breadth: 30})
			b, _, errB := plain.Query(q, engine.Request{K: 10, Breadth: 30})
			if errA != nil || errB != nil || !slices.Equal(a, b) {
				t.Fatalf("Reserve(%d) query %d: %v (%v), without %v (%v)", r, i, a, errA, b, errB)
			}
		}
	}
}

// AddBatchInPlace builds the graph AddBatch builds, over the caller's
// storage (no copy: the slab is the matrix, normalised in place), and
// refuses an index that already holds vectors.
func TestAddBatchInPlace(t *testing.T) {
	n, dim := 500, 8
	base := clustered(n, dim, 5, 0.3, 9)
	plain, err := New(Config{Dim: dim, Metric: engine.Cosine, EfConstruction: 32, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.AddBatch(seqKeys(n), base); err != nil {
		t.Fatal(err)
	}
	own := &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: slices.Clone(base.Data)}
	ix, _ := New(Config{Dim: dim, Metric: engine.Cosine, EfConstruction: 32, Seed: 1, Workers: 1})
	if err := ix.AddBatchInPlace(seqKeys(n), own); err != nil {
		t.Fatal(err)
	}
	if &ix.Vectors().Data[0] != &own.Data[0] {
		t.Error("the slab is a copy, not the matrix")
	}
	if !slices.Equal(ix.Vectors().Data, plain.Vectors().Data) {
		t.Error("the slab differs from AddBatch's")
	}
	for i := 0; i < 20; i++ {
		q := base.Row(i * 11)
		a, _, _ := ix.Query(q, engine.Request{K: 10, Breadth: 30})
		b, _, _ := plain.Query(q, engine.Request{K: 10, Breadth: 30})
		if !slices.Equal(a, b) {
			t.Fatalf("query %d: in place %v, copied %v", i, a, b)
		}
	}
	more := &vec.Matrix{N: 1, Dim: dim, Stride: dim, Data: slices.Clone(base.Row(0))}
	if err := ix.AddBatchInPlace([]uint64{9999}, more); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "an index of 500 vectors") {
		t.Errorf("into a full index: %v", err)
	}
}
