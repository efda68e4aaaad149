package hnsw

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func TestConfig(t *testing.T) {
	c := Config{Dim: 8}.WithDefaults()
	if c.M != 16 || c.M0 != 32 || c.EfConstruction != 200 || c.EfSearch != 40 || c.NewNodeDegreeL0 != 16 || c.Workers < 1 {
		t.Fatalf("defaults: %v", c)
	}
	if math.Abs(c.LevelMult-1/math.Log(16)) > 1e-15 {
		t.Fatalf("LevelMult = %v", c.LevelMult)
	}
	for _, c := range []Config{c, PgvectorConfig(3, engine.L2, 8, 64).WithDefaults(), {Dim: 5, Metric: engine.Dot, M: 4, M0: 6, EfConstruction: 7, EfSearch: 9, LevelMult: 0.3, Seed: 1 << 60, Levels: MinstdLevels, Selection: Simple, KeepPruned: true, NewNodeDegreeL0: 5, Workers: 3}} {
		got, err := ParseConfig(c.String())
		if err != nil || got != c {
			t.Errorf("ParseConfig(%q) = %v, %v", c.String(), got, err)
		}
	}
	err := Config{Dim: 0, M: 1, M0: -1, EfSearch: -1, Metric: 9, Workers: -2, Selection: 7}.WithDefaults().Validate()
	if !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("Validate: %v", err)
	}
	for _, want := range []string{"Dim", "metric", "M must", "M0", "EfSearch", "selection", "Workers"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error does not mention %s: %v", want, err)
		}
	}
	if _, err := New(Config{}); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("New without Dim: %v", err)
	}
	if _, err := ParseConfig("m=x bogus"); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("ParseConfig garbage: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	const dim = 4
	ix, err := New(Config{Dim: dim, Workers: 1, EfConstruction: 16})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3}); !errors.Is(err, engine.ErrEmpty) {
		t.Fatalf("search of empty index: %v", err)
	}
	base := clustered(50, dim, 3, 0.5, 3)
	if err := ix.AddBatch(seqKeys(50), base); err != nil {
		t.Fatal(err)
	}
	saved := snapshot(t, ix)
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		add  func() error
		want error
	}{
		{"short vector", func() error { return ix.Add(100, []float32{1, 2}) }, engine.ErrDimension},
		{"long vector", func() error { return ix.Add(100, []float32{1, 2, 3, 4, 5}) }, engine.ErrDimension},
		{"NaN", func() error { return ix.Add(100, []float32{1, nan, 0, 0}) }, engine.ErrInvalidVector},
		{"Inf", func() error { return ix.Add(100, []float32{inf, 0, 0, 0}) }, engine.ErrInvalidVector},
		{"zero under cosine", func() error { return ix.Add(100, []float32{0, 0, 0, 0}) }, engine.ErrZeroVector},
		{"duplicate key", func() error { return ix.Add(7, []float32{1, 0, 0, 0}) }, engine.ErrDuplicateID},
		{"batch with one bad row", func() error {
			m := vec.NewMatrix(3, dim)
			copy(m.Row(0), []float32{1, 0, 0, 0})
			copy(m.Row(1), []float32{0, nan, 0, 0})
			copy(m.Row(2), []float32{0, 0, 1, 0})
			return ix.AddBatch([]uint64{200, 201, 202}, m)
		}, engine.ErrInvalidVector},
		{"batch with duplicate keys", func() error {
			m := vec.NewMatrix(2, dim)
			copy(m.Row(0), []float32{1, 0, 0, 0})
			copy(m.Row(1), []float32{0, 1, 0, 0})
			return ix.AddBatch([]uint64{300, 300}, m)
		}, engine.ErrDuplicateID},
		{"batch key count", func() error { return ix.AddBatch([]uint64{1}, vec.NewMatrix(2, dim)) }, engine.ErrInvalidArgument},
		{"batch dimension", func() error { return ix.AddBatch([]uint64{400}, vec.NewMatrix(1, dim+1)) }, engine.ErrDimension},
		{"batch short data", func() error {
			return ix.AddBatch([]uint64{400, 401}, &vec.Matrix{N: 2, Dim: dim, Stride: dim, Data: make([]float32, dim)})
		}, engine.ErrInvalidArgument},
		{"search k=0", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 0, Breadth: 10})
			return err
		}, engine.ErrInvalidArgument},
		{"search k<0", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: -1, Breadth: 10})
			return err
		}, engine.ErrInvalidArgument},
		// Every public entry checks k once; the shared search trusts it.
		{"searcher k=0", func() error {
			_, err := ix.NewSearcher().Search([]float32{1, 0, 0, 0}, engine.Request{K: 0, Breadth: 10})
			return err
		}, engine.ErrInvalidArgument},
		{"seeded k=0", func() error {
			_, err := ix.NewSearcher().Search([]float32{1, 0, 0, 0}, engine.Request{K: 0, Breadth: 10, Seeds: []engine.ID{0}})
			return err
		}, engine.ErrInvalidArgument},
		{"bound k=0", func() error {
			_, err := ix.NewSearcher().Search([]float32{1, 0, 0, 0}, engine.Request{K: 0, Breadth: 10, Bound: engine.NewBound(10)})
			return err
		}, engine.ErrInvalidArgument},
		{"trace k=0", func() error {
			_, err := ix.NewSearcher().SearchTrace([]float32{1, 0, 0, 0}, engine.Request{K: 0, Breadth: 10})
			return err
		}, engine.ErrInvalidArgument},
		// The request is validated in one place (engine.Request.Validate)
		// and the index's own parameters by the search.
		{"breadth<0", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3, Breadth: -1})
			return err
		}, engine.ErrInvalidArgument},
		{"seeds with bound", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3, Seeds: []engine.ID{0}, Bound: engine.NewBound(10)})
			return err
		}, engine.ErrInvalidArgument},
		{"patience with bound", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3, Patience: true, Bound: engine.NewBound(10)})
			return err
		}, engine.ErrInvalidArgument},
		{"unknown params", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3, Params: struct{}{}})
			return err
		}, engine.ErrInvalidArgument},
		{"lucene with bound", func() error {
			_, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 3, Bound: engine.NewBound(10), Params: &Lucene{}})
			return err
		}, engine.ErrInvalidArgument},
		{"trace with seeds", func() error {
			_, err := ix.NewSearcher().SearchTrace([]float32{1, 0, 0, 0}, engine.Request{K: 3, Seeds: []engine.ID{0}})
			return err
		}, engine.ErrInvalidArgument},
		{"query k=0", func() error { _, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{Breadth: 10}); return err }, engine.ErrInvalidArgument},
		{"search dimension", func() error { _, _, err := ix.Query([]float32{1, 0}, engine.Request{K: 3, Breadth: 10}); return err }, engine.ErrDimension},
		{"search NaN", func() error {
			_, _, err := ix.Query([]float32{nan, 0, 0, 0}, engine.Request{K: 3, Breadth: 10})
			return err
		}, engine.ErrInvalidVector},
		{"search zero", func() error {
			_, _, err := ix.Query([]float32{0, 0, 0, 0}, engine.Request{K: 3, Breadth: 10})
			return err
		}, engine.ErrZeroVector},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.add()
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if got := snapshot(t, ix); string(got) != string(saved) {
				t.Fatal("the index changed after a rejected input")
			}
		})
	}
	// The batch error names the bad row.
	m := vec.NewMatrix(2, dim)
	copy(m.Row(0), []float32{1, 0, 0, 0})
	err = ix.AddBatch([]uint64{500, 501}, m)
	if err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Fatalf("batch error does not name row 1: %v", err)
	}
	// A tiny but valid vector is accepted under cosine.
	if err := ix.Add(600, []float32{1e-30, 0, 0, 1e-30}); err != nil {
		t.Fatalf("tiny vector: %v", err)
	}
	if id, ok := ix.Lookup(600); !ok || ix.Key(id) != 600 || math.Abs(float64(vec.Norm(ix.Vector(id)))-1) > 1e-6 {
		t.Fatal("tiny vector not stored normalised")
	}
	// ef < k is raised to k.
	res, _, err := ix.Query([]float32{1, 0, 0, 0}, engine.Request{K: 20, Breadth: 1})
	if err != nil || len(res) != 20 {
		t.Fatalf("k=20, ef=1: %d results, %v", len(res), err)
	}
}

// failingCodes refuses to encode one id.
type failingCodes struct {
	roundedCodes
	bad engine.ID
}

func (c *failingCodes) Set(id engine.ID, v []float32) error {
	if id == c.bad {
		return errors.New("codes: cannot encode")
	}
	return c.roundedCodes.Set(id, v)
}

func TestCodeFailureRollsBack(t *testing.T) {
	codes := &failingCodes{roundedCodes: roundedCodes{dim: 4, metric: engine.L2}, bad: 30}
	ix, err := New(Config{Dim: 4, Metric: engine.L2, Workers: 1, Codes: codes})
	if err != nil {
		t.Fatal(err)
	}
	base := clustered(40, 4, 2, 0.5, 4)
	first := *base
	first.N = 20
	if err := ix.AddBatch(seqKeys(20), &first); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, ix)
	rest := &vec.Matrix{N: 20, Dim: 4, Stride: 4, Data: base.Data[20*4:]}
	keys := make([]uint64, 20)
	for i := range keys {
		keys[i] = uint64(20 + i)
	}
	if err := ix.AddBatch(keys, rest); err == nil || !strings.Contains(err.Error(), "cannot encode") {
		t.Fatalf("AddBatch with a failing code store: %v", err)
	}
	if after := snapshot(t, ix); string(after) != string(before) {
		t.Fatal("a failed AddBatch changed the index (or its level sequence)")
	}
	if _, ok := ix.Lookup(25); ok {
		t.Fatal("a key of the failed batch is mapped")
	}
}
