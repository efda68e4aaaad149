package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// TestTurboLloydMax checks the numerically solved codebooks: at high d,
// √d times the sphere's Lloyd-Max centroids approach Qdrant's N(0, 1)
// constants (lloyd_max.rs, 3–4 significant digits); the codebook is
// symmetric and increasing.
func TestTurboLloydMax(t *testing.T) {
	for _, tc := range []struct {
		bits int
		want []float32
	}{{1, qdrantCentroids1}, {2, qdrantCentroids2}, {4, qdrantCentroids4}} {
		t.Run(fmt.Sprint(tc.bits), func(t *testing.T) {
			const d = 2048
			cb := lloydMaxBeta(d, tc.bits)
			for i, c := range cb {
				if got := float64(c) * math.Sqrt(d); math.Abs(got-float64(tc.want[i])) > 0.01*math.Max(1, math.Abs(float64(tc.want[i]))) {
					t.Errorf("centroid %d: √d·c = %.4f, Qdrant's N(0,1) %.4f", i, got, tc.want[i])
				}
				if cb[len(cb)-1-i] != -c || i > 0 && !(c > cb[i-1]) {
					t.Errorf("codebook not symmetric and increasing: %v", cb)
				}
			}
		})
	}
}

// TestTurboMSEDistortion checks TurboQuant_mse's reconstruction error of
// unit vectors against the paper's values, D_mse ≈ 0.36, 0.117, 0.03,
// 0.009 at b = 1…4 (Theorem 1), within 15 %.
func TestTurboMSEDistortion(t *testing.T) {
	const d, n = 128, 100
	data := clustered(n, d, 5, 7)
	for _, tc := range []struct {
		bits int
		want float64
	}{{1, 0.36}, {2, 0.117}, {3, 0.03}, {4, 0.009}} {
		q, err := TrainTurbo(data, engine.Cosine, TurboConfig{Kind: TurboMSE, Bits: tc.bits, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		code, x := make([]byte, q.CodeSize()), make([]float32, d)
		var mse float64
		for i := 0; i < n; i++ {
			if err := q.Encode(code, data.Row(i)); err != nil {
				t.Fatal(err)
			}
			if err := q.Decode(x, code); err != nil {
				t.Fatal(err)
			}
			mse += float64(vec.L2Sq(x, data.Row(i)))
		}
		mse /= n
		if math.Abs(mse-tc.want) > 0.15*tc.want {
			t.Errorf("%d bits: D_mse %.4f, paper %.3f", tc.bits, mse, tc.want)
		}
		t.Logf("%d bits: D_mse %.4f (paper %.3f)", tc.bits, mse, tc.want)
	}
}

// TestTurboProdUnbiased checks Algorithm 2's promise over the random
// draws (Π, S by seed): the mean estimate of ⟨y, x⟩ stays within 4
// standard errors of the truth at 2 bits, while TurboQuant_mse at 1 bit
// (the same budget's scalar stage alone) is biased toward 0 by about 2/π,
// which the same test sees.
func TestTurboProdUnbiased(t *testing.T) {
	const d, seeds = 32, 300
	data := clustered(2, d, 1, 5)
	x, y := data.Row(0), data.Row(1)
	truth := float64(vec.Dot(x, y))
	stats := func(kind TurboKind, bits int) (mean, se float64) {
		var s, s2 float64
		for seed := uint64(0); seed < seeds; seed++ {
			q, err := TrainTurbo(data, engine.Dot, TurboConfig{Kind: kind, Bits: bits, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			code, qc := make([]byte, q.CodeSize()), make([]byte, q.QueryCodeSize())
			if err := q.Encode(code, x); err != nil {
				t.Fatal(err)
			}
			if err := q.EncodeQuery(qc, y); err != nil {
				t.Fatal(err)
			}
			e := -float64(q.Distance(qc, code))
			s += e
			s2 += e * e
		}
		mean = s / seeds
		return mean, math.Sqrt((s2/seeds - mean*mean) / seeds)
	}
	mean, se := stats(TurboProd, 2)
	if math.Abs(mean-truth) > 4*se {
		t.Errorf("prod 2 bits: mean estimate %.4f, truth %.4f (standard error %.4f)", mean, truth, se)
	}
	bmean, bse := stats(TurboMSE, 1)
	if math.Abs(bmean-truth) < 4*bse {
		t.Errorf("mse 1 bit: mean estimate %.4f looks unbiased against %.4f (standard error %.4f)", bmean, truth, bse)
	}
	t.Logf("truth %.4f; prod-2 %.4f ± %.4f; mse-1 %.4f ± %.4f (2/π·truth %.4f)", truth, mean, se, bmean, bse, 2/math.Pi*truth)
}

// TestTurboQdrantRotation checks the Hadamard rotation against
// rotation.rs: its chunk table (compute_chunk_sizes' doc), that it keeps
// lengths and inner products (orthogonal), and that each permutation is
// one.
func TestTurboQdrantRotation(t *testing.T) {
	for _, tc := range []struct {
		dim  int
		want []int
	}{{128, []int{128}}, {300, []int{256, 32, 8, 4}}, {700, []int{512, 128, 32, 16, 8, 4}}, {1536, []int{1024, 512}}, {4096, []int{4096}}} {
		if got := newHadamard(tc.dim).chunks; !slices.Equal(got, tc.want) {
			t.Errorf("dim %d: chunks %v, want %v", tc.dim, got, tc.want)
		}
	}
	const n = 300
	h := newHadamard(n)
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float64, n), make([]float64, n)
	var ab, aa float64
	for i := range a {
		a[i], b[i] = r.NormFloat64(), r.NormFloat64()
		ab += a[i] * b[i]
		aa += a[i] * a[i]
	}
	h.apply(a)
	h.apply(b)
	var ab2, aa2 float64
	for i := range a {
		ab2 += a[i] * b[i]
		aa2 += a[i] * a[i]
	}
	if math.Abs(ab2-ab) > 1e-9*aa || math.Abs(aa2-aa) > 1e-9*aa {
		t.Errorf("rotation changed ⟨a,b⟩ %g → %g, ‖a‖² %g → %g", ab, ab2, aa, aa2)
	}
	for _, p := range h.perms {
		idx := make([]float64, n)
		for i := range idx {
			idx[i] = float64(i)
		}
		p.permute(idx)
		seen := make([]bool, n)
		for _, v := range idx {
			seen[int(v)] = true
		}
		if slices.Contains(seen, false) || slices.Equal(idx[:10], []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
			t.Errorf("seed %d: not a shuffling permutation: %v…", p.seed, idx[:10])
		}
	}
}

// TestTurboConfig is a table of accepted and refused configurations.
func TestTurboConfig(t *testing.T) {
	data := clustered(20, 16, 2, 1)
	for _, tc := range []struct {
		cfg TurboConfig
		ok  bool
	}{
		{TurboConfig{}, true}, {TurboConfig{Kind: TurboMSE, Bits: 3}, true}, {TurboConfig{Kind: TurboMSE, Bits: 5}, false},
		{TurboConfig{Kind: TurboProd, Bits: 1}, false}, {TurboConfig{Kind: TurboProd, Bits: 5}, true},
		{TurboConfig{Kind: TurboQdrant, Bits: 3}, false}, {TurboConfig{Kind: TurboQdrant, Bits: 1}, true},
		{TurboConfig{Kind: 7}, false}, {TurboConfig{Kind: TurboQdrant, SampleSize: -1}, false},
	} {
		_, err := TrainTurbo(data, engine.L2, tc.cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok=%v", tc.cfg, err, tc.ok)
		}
	}
	big := vec.NewMatrix(2, maxTurboPaperDim+1)
	big.Data[0], big.Data[big.Dim] = 1, 1
	if _, err := TrainTurbo(big, engine.L2, TurboConfig{Kind: TurboMSE}); err == nil {
		t.Error("paper form accepted a dimension above its dense-rotation limit")
	}
}
