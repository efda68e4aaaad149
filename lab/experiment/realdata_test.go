package experiment

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
)

// TestUseDataGloVe runs the quantization experiments' measurement on the
// checked-in GloVe vectors (compiled in as glove-3k): the whole set with its
// cached truth, then its first 2,000 rows with a truth of their own.
func TestUseDataGloVe(t *testing.T) {
	for _, n := range []int{0, 2000} {
		env, err := NewEnv(Scale{Name: "x", N: max(n, 100), Dim: 1, Clusters: 1, Queries: 20, Warmup: 5, K: 10, Batch: 250}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			env.Scale.N = 0 // the whole set
		}
		if err := env.UseData("glove-3k", t.TempDir()); err != nil {
			t.Fatal(err)
		}
		wantN := 3000
		if n > 0 {
			wantN = n
		}
		if env.Scale.N != wantN || env.Scale.Dim != 100 || env.Scale.Queries != 20 || env.Metric() != engine.Cosine || env.DataName() != "glove-3k" {
			t.Fatalf("n=%d: scale %v, metric %s, name %s", n, env.Scale, env.Metric(), env.DataName())
		}
		raw, err := QuantFlat(env, "raw", []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		if raw.RecallNone < 0.999 {
			t.Fatalf("n=%d: float32 flat scan recall %v against the truth, want exact", n, raw.RecallNone)
		}
		bbq, err := QuantFlat(env, "bbq", []float64{1, 10})
		if err != nil {
			t.Fatal(err)
		}
		if !(bbq.RecallNone < 0.9 && bbq.RecallOver[1] > bbq.RecallNone) {
			t.Fatalf("n=%d: bbq recall %v, ×10 %v: want a 1-bit loss on GloVe that rescoring reduces", n, bbq.RecallNone, bbq.RecallOver[1])
		}
		ds, _ := env.Dataset()
		if len(ds.Meta) != wantN || len(ds.Matching(func(d dataset.Doc) bool { return d.Category == "c3" })) == 0 {
			t.Fatalf("n=%d: no metadata for the filtered experiments", n)
		}
	}
}

// TestUseDataL2 checks that a real set's metric reaches the experiments:
// under L2 on vectors of different lengths, a cosine flat scan would
// disagree with the L2 truth.
func TestUseDataL2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mk := func(n int) *vec.Matrix {
		m := vec.NewMatrix(n, 8)
		for i := range m.Data {
			m.Data[i] = float32(r.IntN(256))
		}
		return m
	}
	dir := filepath.Join(t.TempDir(), "l2set")
	if err := dataset.WriteLayout(dir, dataset.Layout{Base: mk(500), Queries: mk(30), Manifest: dataset.Manifest{Name: "l2set", Metric: "l2"}}); err != nil {
		t.Fatal(err)
	}
	env, err := NewEnv(Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.UseData(dir, ""); err != nil {
		t.Fatal(err)
	}
	if env.Metric() != engine.L2 || env.Scale.N != 500 || env.Scale.Queries != 20 {
		t.Fatalf("metric %s scale %v", env.Metric(), env.Scale)
	}
	raw, err := QuantFlat(env, "raw", []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if raw.RecallNone < 0.999 {
		t.Fatalf("L2 flat scan recall %v, want exact", raw.RecallNone)
	}
	if p := env.fill(profile.Profile{}); p.Metric != engine.L2 {
		t.Fatalf("profiles get metric %s on an L2 set", p.Metric)
	}
	if err := env.UseData(filepath.Join(t.TempDir(), "missing"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
}
