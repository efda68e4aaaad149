package eval

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundEnginePackages runs, through the interpreter, one small cell per
// engine package a notebook teaches with (kernel/bindings), and one for
// lab/bench's quantizer catalogue, each using the
// package the way a notebook would and printing a check that fails if the
// binding or the call is wrong.
func TestBoundEnginePackages(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureGo})
	setup := `import (
	"math"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)
m := vec.NewMatrix(200, 8)
for i := 0; i < 200; i++ {
	for j := 0; j < 8; j++ {
		m.Row(i)[j] = float32(math.Sin(float64(i*8+j)))
	}
}
m.N`
	vecPath := filepath.Join(t.TempDir(), "vectors.vec")
	for _, tc := range []struct{ name, code, want string }{
		{"setup", setup, ""},
		{"quant: train int8, encode, decode", `import "github.com/veclab/veclab/engine/quant"
sq, err := quant.TrainScalar(m, engine.L2, quant.ScalarConfig{})
code := make([]byte, sq.CodeSize())
err2 := sq.Encode(code, m.Row(3))
back := make([]float32, 8)
err3 := sq.Decode(back, code)
fmt.Println(err, err2, err3, sq.CodeSize(), vec.L2Sq(back, m.Row(3)) < 0.001)`, "<nil> <nil> <nil> 12 true"},
		{"quant: 1-bit OSQ", `osq, err := quant.TrainOSQ(m, engine.L2, quant.OSQConfig{Bits: 1})
fmt.Println(err, osq.CodeSize() < 8*4)`, "<nil> true"},
		{"lab/quantizers: the quantizer catalogue", `import "github.com/veclab/veclab/lab/quantizers"
names := quantizers.Names()
q8, err := quantizers.Train("int8", m, engine.L2, 1)
_, bad := quantizers.Train("int3", m, engine.L2, 1)
fmt.Println(len(names) >= 9, names[0], err, q8.CodeSize(), bad != nil)`, "true raw <nil> 12 true"},
		{"ivf: build and search", `import "github.com/veclab/veclab/engine/ivf"
ix, err := ivf.Build(m, ivf.Config{Nlist: 4, Metric: engine.L2, Seed: 1, Workers: 1})
res, _, err2 := ix.Search(m.Row(5), 3, 4)
fmt.Println(err, err2, ix.Nlist(), ix.Len(), res[0].ID, res[0].Dist == 0)`, "<nil> <nil> 4 200 5 true"},
		{"filter: store and compile", `import "github.com/veclab/veclab/engine/filter"
meta, err := filter.NewStore(filter.Schema{})
for i := 0; i < 200; i++ {
	if _, err := meta.Add(filter.Doc{Meta: map[string]any{"category": fmt.Sprintf("c%d", i%8), "year": 2015 + i%11}}); err != nil {
		panic(err)
	}
}
allow, err2 := meta.CompileString("category == 'c3' && year >= 2022")
n := 0
for i := 0; i < 200; i++ {
	if i%8 == 3 && 2015+i%11 >= 2022 {
		n++
	}
}
fmt.Println(err, err2, len(allow.IDs()) == n, n > 0, allow.Allowed(engine.ID(3)), allow.Allowed(engine.ID(4)))`, "<nil> <nil> true true false false"},
		{"filter: an undeclared field is refused", `strict, _ := filter.NewStore(filter.Schema{Mode: filter.Declared})
_, err := strict.CompileString("tenant == 'a'")
fmt.Println(filter.IsUnknownField(err))`, "true"},
		{"filtered: exact search over the matching set", `import "github.com/veclab/veclab/engine/filtered"
col, err := filtered.New(m, meta, filtered.Options{Metric: engine.L2})
hits, _, err2 := col.Search(filtered.Request{Query: m.Row(5), K: 3, Filter: allow, Strategy: filtered.Exact})
ok := len(hits) == 3
for _, h := range hits {
	ok = ok && allow.Allowed(h.ID)
}
fmt.Println(err, err2, ok)`, "<nil> <nil> true"},
		{"rescore: re-rank candidates from a slab", `import "github.com/veclab/veclab/engine/rescore"
rs, err := rescore.New(rescore.NewSlab(m), engine.L2, rescore.Options{})
best, st, err2 := rs.Rescore(nil, m.Row(5), []engine.Result{{ID: 9}, {ID: 5}, {ID: 3}}, 1)
fmt.Println(err, err2, len(best), best[0].ID, st.Candidates)`, "<nil> <nil> 1 5 3"},
		{"store: write and read a vector file", fmt.Sprintf(`import "github.com/veclab/veclab/engine/store"
err := store.WriteMatrix(%q, m, engine.L2)
f, err2 := store.Open(%q, store.Options{})
v, err3 := f.Vector(make([]float32, 8), 5)
fmt.Println(err, err2, err3, f.Len(), vec.L2Sq(v, m.Row(5)) == 0, f.Close())`, vecPath, vecPath), "<nil> <nil> <nil> 200 true <nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Recorder{}
			res := s.Eval(tc.code, r)
			if res.Err != nil {
				t.Fatalf("cell failed: %v\n%s", res.Err, strings.Join(res.Err.Traceback, "\n"))
			}
			if got := strings.TrimSpace(r.Text("stdout")); got != tc.want {
				t.Errorf("stdout %q, want %q (stderr %q)", got, tc.want, r.Text("stderr"))
			}
		})
	}
}
