package indextest

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
)

// flatIndex adapts exact search: it must pass its own suite.
type flatIndex struct{ x *flat.Index }

func (f flatIndex) Len() int { return f.x.Len() }
func (f flatIndex) Search(q []float32, k int, allow engine.Filter) ([]engine.Result, error) {
	r, _, err := f.x.Search(q, k, allow)
	return r, err
}

func TestFlatConforms(t *testing.T) {
	Run(t, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) Searchable {
		x, err := flat.New(vs, flat.Config{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		return flatIndex{x}
	})
}

func TestChecksCatchBrokenResults(t *testing.T) {
	good := []engine.Result{{ID: 1, Dist: 0.1}, {ID: 2, Dist: 0.2}, {ID: 3, Dist: 0.3}}
	if msg := wellFormed(good, 10, nil); msg != "" {
		t.Fatalf("good results rejected: %s", msg)
	}
	allow := engine.NewBitset(10)
	allow.Set(1)
	allow.Set(2)
	for _, tc := range []struct {
		name  string
		rs    []engine.Result
		allow engine.Filter
	}{
		{"out of range", []engine.Result{{ID: 10}}, nil},
		{"duplicate", []engine.Result{{ID: 1, Dist: 0.1}, {ID: 1, Dist: 0.1}}, nil},
		{"unsorted", []engine.Result{{ID: 1, Dist: 0.2}, {ID: 2, Dist: 0.1}}, nil},
		{"disallowed", good, allow},
	} {
		if wellFormed(tc.rs, 10, tc.allow) == "" {
			t.Errorf("%s: not caught", tc.name)
		}
	}
	if r := recall(good[:1], good); r > 0.34 {
		t.Fatalf("recall of 1 of 3 = %v", r)
	}
}
