package rescore

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// TestBFloat16Slab checks the bfloat16 originals: half the bytes of the
// float32 rows, each read counted at its encoded size, and rescoring
// (sequential and concurrent) equal to exact scoring against the rounded
// vectors, which are not the float32 ones.
func TestBFloat16Slab(t *testing.T) {
	const n, dim, k = 300, 96, 10
	m := data(n, dim)
	s, err := NewBFloat16Slab(m)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes() != n*dim*2 || s.Len() != n || s.Dim() != dim {
		t.Fatalf("slab of %d × %d: %d bytes, Len %d, Dim %d; want %d bytes", n, dim, s.Bytes(), s.Len(), s.Dim(), n*dim*2)
	}
	rounded := vec.NewMatrix(n, dim)
	changed := 0
	for i := 0; i < n; i++ {
		if _, err := s.Vector(rounded.Row(i), engine.ID(i)); err != nil {
			t.Fatal(err)
		}
		for j, f := range m.Row(i) {
			if rounded.Row(i)[j] != f {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("no component changed by bfloat16 rounding: the slab did not round")
	}
	q := data(1, dim).Row(0)
	var cands []engine.Result
	for i := 0; i < n; i += 3 {
		cands = append(cands, engine.Result{ID: engine.ID(i)})
	}
	want := exact(rounded, engine.Cosine, q, cands, k)
	for _, conc := range []int{1, 4} {
		r, err := New(s, engine.Cosine, Options{Concurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := r.Rescore(nil, q, cands, k)
		if err != nil {
			t.Fatal(err)
		}
		if !closeResults(got, want) {
			t.Errorf("concurrency %d: %v, want %v", conc, got, want)
		}
		if st.IO.Reads != int64(len(cands)) || st.IO.Bytes != int64(len(cands)*dim*2) {
			t.Errorf("concurrency %d: %d reads of %d bytes, want %d of %d", conc, st.IO.Reads, st.IO.Bytes, len(cands), len(cands)*dim*2)
		}
	}
}

// TestBFloat16SlabErrors checks the bad inputs.
func TestBFloat16SlabErrors(t *testing.T) {
	if _, err := NewBFloat16Slab(nil); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("nil matrix: %v", err)
	}
	s, err := NewBFloat16Slab(data(2, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Vector(make([]float32, 3), 0); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short destination: %v", err)
	}
	if _, err := s.Vector(make([]float32, 4), 2); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("id beyond the slab: %v", err)
	}
	empty, err := NewBFloat16Slab(vec.NewMatrix(0, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := empty.Vector(make([]float32, 4), 0); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("empty slab: %v", err)
	}
}
