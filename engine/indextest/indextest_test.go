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

// boundFake is exact search whose answer and count a bound can change.
type boundFake struct {
	x       *flat.Index
	prunes  bool // fewer distance computations with a bound
	changes bool // other results with a bound
}

func (f boundFake) Len() int { return f.x.Len() }
func (f boundFake) Dim() int { return f.x.Dim() }
func (f boundFake) Query(q []float32, r engine.Request) ([]engine.Result, engine.SearchStats, error) {
	res, st, err := f.x.Search(q, r.K, r.Filter)
	if r.Bound != nil && f.prunes {
		st.DistComps /= 2
	}
	if r.Bound != nil && f.changes && len(res) > 1 {
		res = res[1:]
	}
	return res, st, err
}

func TestBoundCheckCatches(t *testing.T) {
	data := Clustered(300, 8, 4, 1)
	x, err := flat.New(data, flat.Config{Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	qs := Clustered(5, 8, 4, 2)
	for _, tc := range []struct {
		name    string
		o       Options
		ix      boundFake
		breadth int
		fails   bool
	}{
		{"pruning index", Options{Bound: true, MinRecall: 0.9}, boundFake{x: x, prunes: true}, 20, false},
		{"claims a bound it ignores", Options{Bound: true, MinRecall: 0.9}, boundFake{x: x}, 20, true},
		{"prunes but loses recall", Options{Bound: true, MinRecall: 0.95}, boundFake{x: x, prunes: true, changes: true}, 20, true},
		{"bound without a breadth", Options{Bound: true}, boundFake{x: x, prunes: true}, 0, true},
		{"ignores the bound", Options{}, boundFake{x: x}, 0, false},
		{"changes answers without claiming a bound", Options{}, boundFake{x: x, changes: true}, 0, true},
	} {
		msg, _ := boundCheck(tc.o, contract{tc.ix, tc.breadth}, x, qs, 10)
		if (msg != "") != tc.fails {
			t.Errorf("%s: check says %q", tc.name, msg)
		}
	}
}
