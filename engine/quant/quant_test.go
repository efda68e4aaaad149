package quant

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/bitsx"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

var _ engine.CodeStore = (*Store)(nil)

type maker struct {
	name  string
	train func(*vec.Matrix, engine.Metric) (Quantizer, error)
}

func scalarMaker(name string, cfg ScalarConfig) maker {
	return maker{name, func(m *vec.Matrix, metric engine.Metric) (Quantizer, error) { return TrainScalar(m, metric, cfg) }}
}

func osqMaker(name string, cfg OSQConfig) maker {
	return maker{name, func(m *vec.Matrix, metric engine.Metric) (Quantizer, error) { return TrainOSQ(m, metric, cfg) }}
}

var makers = []maker{
	scalarMaker("int7-ci", ScalarConfig{}),
	scalarMaker("int7-minmax", ScalarConfig{ConfidenceInterval: 1}),
	scalarMaker("int8", ScalarConfig{Bits: 8}),
	scalarMaker("int4", ScalarConfig{Bits: 4}),
	scalarMaker("int4-nocorr", ScalarConfig{Bits: 4, NoCorrection: true}),
	osqMaker("osq1x4", OSQConfig{Bits: 1}),
	osqMaker("osq1x1", OSQConfig{Bits: 1, QueryBits: 1}),
	osqMaker("osq2x4", OSQConfig{Bits: 2}),
	osqMaker("osq4x4", OSQConfig{Bits: 4}),
	osqMaker("osq7", OSQConfig{Bits: 7}),
	osqMaker("osq8", OSQConfig{Bits: 8}),
	osqMaker("osq1-noopt", OSQConfig{Bits: 1, Iters: -1}),
	osqMaker("osq2-mean", OSQConfig{Bits: 2, MeanCentroid: true}),
	osqMaker("osq7-lucene104", OSQConfig{Bits: 7, QueryBits: 7, MeanCentroid: true, IntSum: true}),
	osqMaker("osq4-lucene104", OSQConfig{Bits: 4, QueryBits: 4, MeanCentroid: true, IntSum: true}),
	binaryMaker("bq1", BinaryConfig{}),
	binaryMaker("bq1.5", BinaryConfig{Encoding: OneAndHalfBits}),
	binaryMaker("bq2", BinaryConfig{Encoding: TwoBits}),
	binaryMaker("bq2-s4", BinaryConfig{Encoding: TwoBits, Query: Scalar4Bits}),
	binaryMaker("bq1-s8", BinaryConfig{Query: Scalar8Bits}),
	// Product codes of 4 dimensions per byte with 64 centroids per
	// sub-space (the makers' samples can be 64 vectors; 8 bits needs 256).
	pqMaker("pq-d4x6", 4, PQConfig{Bits: 6, Seed: 1}),
	turboMaker("turbo-mse2", TurboConfig{Kind: TurboMSE, Bits: 2, Seed: 1}),
	turboMaker("turbo-mse4", TurboConfig{Kind: TurboMSE, Bits: 4, Seed: 1}),
	turboMaker("turbo-prod3", TurboConfig{Kind: TurboProd, Bits: 3, Seed: 1}),
	turboMaker("turbo-prod4", TurboConfig{Kind: TurboProd, Bits: 4, Seed: 1}),
	turboMaker("turbo-qdrant4", TurboConfig{Kind: TurboQdrant, Bits: 4, Seed: 1}),
	turboMaker("turbo-qdrant2", TurboConfig{Kind: TurboQdrant, Bits: 2, Seed: 1}),
	turboMaker("turbo-qdrant1", TurboConfig{Kind: TurboQdrant, Bits: 1, Seed: 1}),
}

// pqMaker trains a PQ of dim/perSub sub-spaces.
func pqMaker(name string, perSub int, cfg PQConfig) maker {
	return maker{name, func(m *vec.Matrix, metric engine.Metric) (Quantizer, error) {
		c := cfg
		c.M = m.Dim / perSub
		return TrainPQ(m, metric, c)
	}}
}

func turboMaker(name string, cfg TurboConfig) maker {
	return maker{name, func(m *vec.Matrix, metric engine.Metric) (Quantizer, error) { return TrainTurbo(m, metric, cfg) }}
}

func binaryMaker(name string, cfg BinaryConfig) maker {
	return maker{name, func(m *vec.Matrix, metric engine.Metric) (Quantizer, error) { return TrainBinary(m, metric, cfg) }}
}

var metrics = []engine.Metric{engine.Cosine, engine.Dot, engine.L2}

// TestRecallFlat checks each quantizer's flat-scan recall@10 over codes,
// and with 5× oversampling plus exact rescoring, against floors set well
// below what the estimators reach (calibrated at 128 dims, 3,000 vectors)
// but far above what a broken estimator gets (≈ 10/3000 by chance).
func TestRecallFlat(t *testing.T) {
	data := clustered(2000, 128, 20, 1)
	queries := clustered(30, 128, 20, 1)
	floors := map[string][2]float64{ // no rescoring, rescored from 5×
		"int7-ci": {0.7, 0.95}, "int7-minmax": {0.8, 0.95}, "int8": {0.7, 0.95},
		"int4": {0.55, 0.9}, "int4-nocorr": {0.55, 0.9},
		"osq1x4": {0.2, 0.6}, "osq1x1": {0.15, 0.5}, "osq2x4": {0.3, 0.75}, "osq4x4": {0.55, 0.9},
		"osq7": {0.8, 0.95}, "osq8": {0.8, 0.95}, "osq1-noopt": {0.15, 0.5}, "osq2-mean": {0.3, 0.75},
		// Qdrant's binary codes: 0.33/0.40/0.42/0.53/0.45 and 0.83–0.95 rescored.
		"bq1": {0.2, 0.6}, "bq1.5": {0.25, 0.65}, "bq2": {0.25, 0.7}, "bq2-s4": {0.35, 0.8}, "bq1-s8": {0.3, 0.75},
		// Product codes, 32 bytes at 128 dims: 0.55–0.57 and 0.95–0.99 rescored.
		"pq-d4x6":    {0.45, 0.85},
		"turbo-mse2": {0.3, 0.75}, "turbo-mse4": {0.55, 0.9}, "turbo-prod3": {0.3, 0.75}, "turbo-prod4": {0.45, 0.9},
		"turbo-qdrant4": {0.55, 0.9}, "turbo-qdrant2": {0.3, 0.75}, "turbo-qdrant1": {0.15, 0.5},
	}
	metrics := metrics
	if testenv.ShrinkUnderRace(t, "one metric: every quantizer's training and scan run on it, and the metric starts no goroutine") {
		metrics = metrics[1:2]
	}
	for _, metric := range metrics {
		for _, mk := range makers {
			t.Run(fmt.Sprintf("%v/%s", metric, mk.name), func(t *testing.T) {
				q, err := mk.train(data, metric)
				if err != nil {
					t.Fatal(err)
				}
				s := fill(t, q, data)
				var r1, r5 float64
				for j := 0; j < queries.N; j++ {
					qv := queries.Row(j)
					want := exactTopK(data, qv, 10, metric)
					got, err := s.Search(qv, 50, nil)
					if err != nil {
						t.Fatal(err)
					}
					r1 += recall(got[:10], want)
					r5 += recall(rerank(data, qv, got, 10, metric), want)
				}
				r1 /= float64(queries.N)
				r5 /= float64(queries.N)
				f := floors[mk.name]
				if r1 < f[0] || r5 < f[1] {
					t.Errorf("recall@10 %.3f (floor %.2f), rescored from 50 %.3f (floor %.2f)", r1, f[0], r5, f[1])
				}
				t.Logf("recall@10 %.3f, rescored from 50: %.3f, %v B/vector", r1, r5, q.BytesPerVector())
			})
		}
	}
}

func fill(t testing.TB, q Quantizer, data *vec.Matrix) *Store {
	t.Helper()
	s := NewStore(q)
	s.Reserve(data.N)
	for i := 0; i < data.N; i++ {
		if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != data.N {
		t.Fatalf("Len = %d, want %d", s.Len(), data.N)
	}
	return s
}

// TestScalarCodesByHand checks codes and corrections against values
// worked out by hand: bounds [0, 127] give α = 1.
func TestScalarCodesByHand(t *testing.T) {
	s, err := newScalar(6, engine.Dot, ScalarConfig{Bits: 7, ConfidenceInterval: 1}, 0, 127)
	if err != nil {
		t.Fatal(err)
	}
	code := make([]byte, s.CodeSize())
	v := []float32{0, 63.4, 63.5, 127, 200, -5}
	if err := s.Encode(code, v); err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 63, 64, 127, 127, 0}
	if !bytes.Equal(code[:6], want) {
		t.Fatalf("codes %v, want %v", code[:6], want)
	}
	// MinQ = 0, so c = Σ (v − q)·q, the error including clipping:
	// 0 + 0.4·63 + (−0.5)·64 + 0 + 73·127 + (−5)·0 = 25.2 − 32 + 9271 = 9264.2.
	if got := getF32(code[6:]); math.Abs(float64(got)-9264.2) > 1e-2 {
		t.Errorf("correction %v, want 9264.2", got)
	}
	// int4 over [−1, 14]: α = 1, codes round(v+1), packed low nibble first.
	s4, err := newScalar(3, engine.L2, ScalarConfig{Bits: 4, ConfidenceInterval: 1}, -1, 14)
	if err != nil {
		t.Fatal(err)
	}
	c4 := make([]byte, s4.CodeSize())
	if err := s4.Encode(c4, []float32{-1, 2.2, 14}); err != nil {
		t.Fatal(err)
	}
	if c4[0] != 0x30 || c4[1] != 0x0F {
		t.Errorf("int4 packed % x, want 30 0f", c4[:2])
	}
	// L2 between codes (0,3,15) and (0,3,15) is 0; against (15,3,0) it is 2·225.
	c4b := make([]byte, s4.CodeSize())
	_ = s4.Encode(c4b, []float32{14, 2, -1})
	if d := s4.Distance(c4, c4); d != 0 {
		t.Errorf("self distance %v", d)
	}
	if d := s4.Distance(c4, c4b); d != 450 {
		t.Errorf("distance %v, want 450", d)
	}
}

// TestScalarDotEstimate checks the Lucene reconstruction algebraically.
// Without correction the estimate is exactly the dot product of the
// dequantized vectors. With it, the estimate of ⟨x, x⟩ is exactly
// ‖x‖² − ‖e‖², e_i = (x_i − MinQ) − α·q_i the rounding and clipping error:
// the correction replaces ⟨e_x, ŷ⟩ by ⟨e_x, x̂⟩, which is exact for y = x
// up to the second-order ⟨e_x, e_y⟩ term.
func TestScalarDotEstimate(t *testing.T) {
	data := clustered(400, 64, 4, 3)
	for _, bits := range []int{4, 7, 8} {
		for _, ci := range []float64{1, 0.95} {
			on, err := TrainScalar(data, engine.Dot, ScalarConfig{Bits: bits, ConfidenceInterval: ci})
			if err != nil {
				t.Fatal(err)
			}
			off, _ := TrainScalar(data, engine.Dot, ScalarConfig{Bits: bits, ConfidenceInterval: ci, NoCorrection: true})
			a, b := make([]byte, off.CodeSize()), make([]byte, off.CodeSize())
			da, db := make([]float32, 64), make([]float32, 64)
			for i := 0; i < 100; i++ {
				x, y := data.Row(i), data.Row(i+100)
				_ = off.Encode(a, x)
				_ = off.Encode(b, y)
				_ = off.Decode(da, a)
				_ = off.Decode(db, b)
				var deq float64
				for j := range da {
					deq += float64(da[j]) * float64(db[j])
				}
				if got := -float64(off.Distance(a, b)); math.Abs(got-deq) > 1e-4 {
					t.Fatalf("bits %d c %v: uncorrected estimate %v, dequantized dot %v", bits, ci, got, deq)
				}
				_ = on.Encode(a, x)
				_ = on.Decode(da, a)
				var xx, ee float64
				for j := range x {
					xx += float64(x[j]) * float64(x[j])
					e := float64(x[j]) - float64(da[j])
					ee += e * e
				}
				if got := -float64(on.Distance(a, a)); math.Abs(got-(xx-ee)) > 1e-4 {
					t.Fatalf("bits %d c %v: corrected self estimate %v, want ‖x‖²−‖e‖² = %v", bits, ci, got, xx-ee)
				}
			}
		}
	}
}

// TestOSQEstimateMatchesDequantized checks kernels, packing and the
// corrective arithmetic together: the estimate equals the distance
// computed in float64 from the unpacked codes and stored factors.
func TestOSQEstimateMatchesDequantized(t *testing.T) {
	data := clustered(200, 100, 4, 5) // 100 dims: a partial last word
	for _, metric := range metrics {
		for _, cfg := range []OSQConfig{{Bits: 1}, {Bits: 2}, {Bits: 4}, {Bits: 1, QueryBits: 1}, {Bits: 2, QueryBits: 2}, {Bits: 7}, {Bits: 8, QueryBits: 8}} {
			o, err := TrainOSQ(data, metric, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg = o.Config()
			qc, dc := make([]byte, o.QueryCodeSize()), make([]byte, o.CodeSize())
			for i := 0; i < 20; i++ {
				x, y := data.Row(i), data.Row(199-i)
				_ = o.Encode(dc, x)
				_ = o.EncodeQuery(qc, y)
				dx := o.dequant(dc, o.docCode, o.docSum, cfg.Bits)
				dy := o.dequant(qc, o.qCode, 4, cfg.QueryBits)
				_, _, addX, _ := factors(dc, o.docCode, o.docSum)
				_, _, addY, _ := factors(qc, o.qCode, 4)
				var ip float64
				for j := range dx {
					ip += dx[j] * dy[j]
				}
				var want float64
				switch metric {
				case engine.L2:
					want = float64(addX) + float64(addY) - 2*ip
				case engine.Dot:
					want = -(ip + float64(addX) + float64(addY) - float64(o.cc))
				default:
					want = 1 - (ip + float64(addX) + float64(addY) - float64(o.cc))
				}
				got := float64(o.Distance(qc, dc))
				if bq, err := o.Bind(qc); err != nil || bq.Distance(dc) != float32(got) {
					t.Fatalf("BoundQuery.Distance differs from Distance (%v)", err)
				}
				if math.Abs(got-want) > 1e-3*(1+math.Abs(want)) {
					t.Fatalf("%v %v: estimate %v, from dequantized codes %v", metric, cfg, got, want)
				}
				// The additional correction is exact.
				exactAdd := 0.0
				for j := range x {
					if metric == engine.L2 {
						d := float64(x[j]) - float64(o.centroid[j])
						exactAdd += d * d
					} else {
						exactAdd += float64(x[j]) * float64(o.centroid[j])
					}
				}
				if math.Abs(float64(addX)-exactAdd) > 1e-4 {
					t.Fatalf("additional correction %v, want %v", addX, exactAdd)
				}
			}
		}
	}
}

// dequant reconstructs x' = a + Δ·q from a code, reading its Σq as well
// and checking it against the codes.
func (o *OSQ) dequant(c []byte, n, sumBytes, bits int) []float64 {
	q := make([]byte, o.dim)
	if o.planar {
		bitsx.UnpackPlanes(q, c[:n], bits, o.words)
	} else {
		copy(q, c[:o.dim])
	}
	a, b, _, sum := factors(c, n, sumBytes)
	step := (float64(b) - float64(a)) / float64(int(1)<<bits-1)
	out := make([]float64, o.dim)
	total := 0
	for i, v := range q {
		if int(v) >= 1<<bits {
			panic(fmt.Sprintf("code %d out of range for %d bits", v, bits))
		}
		total += int(v)
		out[i] = float64(a) + step*float64(v)
	}
	if float32(total) != sum {
		panic(fmt.Sprintf("stored Σq %v, codes sum to %d", sum, total))
	}
	return out
}

// TestOSQRefinementLowersLoss checks the coordinate descent never ends
// above the grid start's anisotropic loss.
func TestOSQRefinementLowersLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		x := make([]float32, 96)
		var norm2, mean float64
		for i := range x {
			x[i] = float32(r.NormFloat64() + 0.3*r.ExpFloat64())
			mean += float64(x[i])
		}
		mean /= 96
		var v float64
		for _, xi := range x {
			norm2 += float64(xi) * float64(xi)
			v += (float64(xi) - mean) * (float64(xi) - mean)
		}
		std := math.Sqrt(v / 96)
		for bits := 1; bits <= 8; bits++ {
			levels := float64(int(1)<<bits - 1)
			a0, b0 := mean+minimumMSEGrid[bits-1][0]*std, mean+minimumMSEGrid[bits-1][1]*std
			a, b := optimizeInterval(x, a0, b0, norm2, levels, 0.1, 5)
			l0 := anisotropicLoss(x, a0, b0, norm2, levels, 0.1)
			l1 := anisotropicLoss(x, a, b, norm2, levels, 0.1)
			if l1 > l0+1e-12 {
				t.Fatalf("bits %d: loss rose from %v to %v", bits, l0, l1)
			}
		}
	}
}

func TestBBQBytesPerVector(t *testing.T) {
	data := clustered(50, 384, 2, 1)
	o, err := TrainOSQ(data, engine.Cosine, OSQConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// 384 bits = 48 bytes, plus lower, upper, additional (3 × 4) and Σq (2): 62.
	if got := o.BytesPerVector(); got != 62 {
		t.Errorf("BBQ bytes/vector at 384 dims = %v, want 62", got)
	}
	s, _ := TrainScalar(data, engine.Cosine, ScalarConfig{})
	if got := s.BytesPerVector(); got != 388 {
		t.Errorf("int8 bytes/vector = %v, want 388", got)
	}
	s4, _ := TrainScalar(data, engine.Cosine, ScalarConfig{Bits: 4})
	if got := s4.BytesPerVector(); got != 196 {
		t.Errorf("int4 bytes/vector = %v, want 196", got)
	}
}

func TestBadInput(t *testing.T) {
	data := clustered(100, 16, 2, 1)
	nan := vec.NewMatrix(30, 16)
	copy(nan.Data, data.Data)
	nan.Row(7)[3] = float32(math.NaN())
	inf := vec.NewMatrix(30, 16)
	copy(inf.Data, data.Data)
	inf.Row(2)[0] = float32(math.Inf(1))
	zero := vec.NewMatrix(30, 16)
	copy(zero.Data, data.Data)
	clear(zero.Row(5))
	constant := vec.NewMatrix(30, 4)
	for i := range constant.Data {
		constant.Data[i] = 0.5
	}
	one := vec.NewMatrix(1, 16)
	ten := &vec.Matrix{N: 10, Dim: 16, Stride: 16, Data: data.Data[:160]}

	train := []struct {
		name   string
		run    func() error
		target error
		text   string
	}{
		{"nil sample", func() error { _, err := TrainScalar(nil, engine.Cosine, ScalarConfig{}); return err }, engine.ErrInvalidArgument, "nil"},
		{"one vector scalar", func() error { _, err := TrainScalar(one, engine.L2, ScalarConfig{ConfidenceInterval: 1}); return err }, engine.ErrInvalidArgument, "1 vectors"},
		{"one vector osq", func() error { _, err := TrainOSQ(one, engine.L2, OSQConfig{}); return err }, engine.ErrInvalidArgument, "1 vectors"},
		{"NaN in sample", func() error { _, err := TrainScalar(nan, engine.L2, ScalarConfig{}); return err }, engine.ErrInvalidVector, "training vector 7"},
		{"Inf in sample", func() error { _, err := TrainOSQ(inf, engine.Dot, OSQConfig{}); return err }, engine.ErrInvalidVector, "training vector 2"},
		{"zero vector cosine", func() error { _, err := TrainOSQ(zero, engine.Cosine, OSQConfig{}); return err }, engine.ErrZeroVector, "training vector 5"},
		{"constant data", func() error { _, err := TrainScalar(constant, engine.L2, ScalarConfig{}); return err }, engine.ErrInvalidArgument, "all training components equal"},
		{"bad bits", func() error { _, err := TrainScalar(data, engine.L2, ScalarConfig{Bits: 5}); return err }, engine.ErrInvalidArgument, "Bits 5"},
		{"bad interval", func() error {
			_, err := TrainScalar(data, engine.L2, ScalarConfig{ConfidenceInterval: 0.5})
			return err
		}, engine.ErrInvalidArgument, "ConfidenceInterval"},
		{"bad osq bits", func() error { _, err := TrainOSQ(data, engine.L2, OSQConfig{Bits: 9}); return err }, engine.ErrInvalidArgument, "Bits 9"},
		{"bad lambda", func() error { _, err := TrainOSQ(data, engine.L2, OSQConfig{Lambda: 2}); return err }, engine.ErrInvalidArgument, "Lambda"},
		{"bad metric", func() error { _, err := TrainOSQ(data, engine.Metric(9), OSQConfig{}); return err }, engine.ErrInvalidArgument, "metric"},
		{"empty centroid", func() error { _, err := NewOSQ(nil, engine.L2, OSQConfig{}); return err }, engine.ErrDimension, "centroid"},
		{"NaN centroid", func() error {
			_, err := NewOSQ([]float32{1, float32(math.NaN())}, engine.L2, OSQConfig{})
			return err
		}, engine.ErrInvalidVector, "centroid component 1"},
	}
	// Byte codes beyond 33,000 dimensions would overflow the exact kernels.
	if _, err := NewOSQ(make([]float32, 40000), engine.L2, OSQConfig{Bits: 8}); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("40,000-dim 8-bit OSQ: %v, want ErrDimension", err)
	}
	if _, err := NewOSQ(make([]float32, 40000), engine.L2, OSQConfig{Bits: 1}); err != nil {
		t.Errorf("40,000-dim 1-bit OSQ: %v", err)
	}
	// The same seed draws the same reservoir sample, hence the same bounds.
	big := clustered(60, 16, 2, 5)
	a, _ := TrainScalar(big, engine.L2, ScalarConfig{SampleSize: 21, Seed: 3})
	b, _ := TrainScalar(big, engine.L2, ScalarConfig{SampleSize: 21, Seed: 3})
	ab, _ := a.MarshalBinary()
	bb, _ := b.MarshalBinary()
	if !bytes.Equal(ab, bb) {
		t.Error("same seed, different quantizer")
	}
	// Fewer than 20 vectors form a single quantile group, as in Lucene.
	if _, err := TrainScalar(ten, engine.L2, ScalarConfig{}); err != nil {
		t.Errorf("confidence interval on 10 vectors: %v", err)
	}
	for _, tc := range train {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("error %v, want %v mentioning %q", err, tc.target, tc.text)
			}
		})
	}

	for _, mk := range makers {
		q, err := mk.train(data, engine.L2)
		if err != nil {
			t.Fatal(err)
		}
		code := make([]byte, q.CodeSize())
		qcode := make([]byte, q.QueryCodeSize())
		good := data.Row(0)
		bad := []struct {
			name   string
			run    func() error
			target error
			text   string
		}{
			{"short vector", func() error { return q.Encode(code, good[:15]) }, engine.ErrDimension, "15 components"},
			{"long query", func() error { return q.EncodeQuery(qcode, append(good[:16:16], 1)) }, engine.ErrDimension, "17 components"},
			{"NaN", func() error {
				v := append([]float32(nil), good...)
				v[4] = float32(math.NaN())
				return q.Encode(code, v)
			}, engine.ErrInvalidVector, "component 4"},
			{"Inf query", func() error {
				v := append([]float32(nil), good...)
				v[9] = float32(math.Inf(-1))
				return q.EncodeQuery(qcode, v)
			}, engine.ErrInvalidVector, "component 9"},
			{"small buffer", func() error { return q.Encode(code[:len(code)-1], good) }, engine.ErrInvalidArgument, "buffer"},
		}
		for _, tc := range bad {
			t.Run(mk.name+"/"+tc.name, func(t *testing.T) {
				err := tc.run()
				if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.text) {
					t.Fatalf("error %v, want %v mentioning %q", err, tc.target, tc.text)
				}
			})
		}
	}
}

func TestStore(t *testing.T) {
	data := clustered(300, 32, 3, 2)
	for _, mk := range makers {
		t.Run(mk.name, func(t *testing.T) {
			q, err := mk.train(data, engine.Cosine)
			if err != nil {
				t.Fatal(err)
			}
			s := NewStore(q)
			if _, err := s.Search(data.Row(0), 5, nil); !errors.Is(err, engine.ErrEmpty) {
				t.Errorf("search of empty store: %v, want ErrEmpty", err)
			}
			s.Reserve(100)
			for i := 0; i < 100; i++ {
				if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Set(100, data.Row(100)); !errors.Is(err, engine.ErrInvalidArgument) {
				t.Errorf("Set beyond Reserve: %v, want ErrInvalidArgument", err)
			}
			before := append([]byte(nil), s.Code(7)...)
			if err := s.Set(7, data.Row(7)[:31]); !errors.Is(err, engine.ErrDimension) {
				t.Errorf("Set of short vector: %v", err)
			}
			if !bytes.Equal(before, s.Code(7)) {
				t.Error("a failed Set changed the stored code")
			}
			s.Reserve(300) // grow, keeping what was set
			if !bytes.Equal(before, s.Code(7)) || s.Len() != 100 {
				t.Fatalf("Reserve lost codes (Len %d)", s.Len())
			}
			for i := 100; i < 300; i++ {
				if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
					t.Fatal(err)
				}
			}
			if s.Len() != 300 {
				t.Fatalf("Len %d", s.Len())
			}
			// Pair agrees with the scorer: for asymmetric quantizers Pair(a, b)
			// scores a's query code against b's code.
			sc, err := s.NewQueryScorer(data.Row(3))
			if err != nil {
				t.Fatal(err)
			}
			// The store's bound scorer (a fast path per quantizer type)
			// agrees with the byte-level API.
			qc := make([]byte, q.QueryCodeSize())
			if err := q.EncodeQuery(qc, data.Row(3)); err != nil {
				t.Fatal(err)
			}
			for id := engine.ID(0); id < 300; id++ {
				if a, b := sc.Distance(id), q.Distance(qc, s.Code(id)); a != b {
					t.Fatalf("scorer(%d) = %v, Quantizer.Distance = %v", id, a, b)
				}
			}
			if q.Symmetric() || s.qsize > 0 {
				if a, b := s.Pair(3, 42), sc.Distance(42); a != b {
					t.Errorf("Pair(3, 42) = %v, scorer = %v", a, b)
				}
			}
			// Filtered search returns only allowed ids, nearest first.
			even := engine.FilterFunc(func(id engine.ID) bool { return id%2 == 0 })
			res, err := s.Search(data.Row(3), 10, even)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 10 {
				t.Fatalf("%d results", len(res))
			}
			for i, r := range res {
				if r.ID%2 != 0 {
					t.Errorf("filtered search returned odd id %d", r.ID)
				}
				if i > 0 && r.Dist < res[i-1].Dist {
					t.Errorf("results out of order at %d", i)
				}
			}
			if _, err := s.Search(data.Row(3), 0, nil); !errors.Is(err, engine.ErrInvalidArgument) {
				t.Errorf("k=0: %v", err)
			}
			if _, err := s.Search(data.Row(3)[:5], 3, nil); !errors.Is(err, engine.ErrDimension) {
				t.Errorf("short query: %v", err)
			}
			s.DropBuildCodes()
			_ = s.Pair(1, 2)
		})
	}
}

func TestStoreConcurrentSet(t *testing.T) {
	data := clustered(400, 64, 4, 9)
	q, err := TrainOSQ(data, engine.L2, OSQConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(q)
	s.Reserve(data.N)
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func(w int) {
			for i := w; i < data.N; i += 4 {
				if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(w)
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	seq := fill(t, q, data)
	for i := 0; i < data.N; i++ {
		if !bytes.Equal(s.Code(engine.ID(i)), seq.Code(engine.ID(i))) {
			t.Fatalf("code %d differs between concurrent and sequential Set", i)
		}
	}
}

// TestQuantiles checks the selection against Lucene's published cases
// (ScalarQuantizer tests: 0…999 shuffled) and against a full sort.
func TestQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	perc := make([]float32, 1000)
	for i := range perc {
		perc[i] = float32(i)
	}
	for _, tc := range []struct {
		c      float64
		lo, hi float32
	}{{0.9, 50, 949}, {0.95, 25, 974}, {0.99, 5, 994}, {1, 0, 999}} {
		r.Shuffle(len(perc), func(i, j int) { perc[i], perc[j] = perc[j], perc[i] })
		if lo, hi := quantiles(perc, tc.c); lo != tc.lo || hi != tc.hi {
			t.Errorf("c=%v: [%v, %v], want [%v, %v]", tc.c, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := quantiles([]float32{1, 1, 1, 1, 1}, 0.9); lo != 1 || hi != 1 {
		t.Errorf("constant: [%v, %v]", lo, hi)
	}
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(300)
		a := make([]float32, n)
		for i := range a {
			a[i] = float32(r.IntN(20)) // many ties
		}
		sorted := slices.Clone(a)
		slices.Sort(sorted)
		c := 0.9 + 0.1*r.Float64()
		k := int(float64(n)*(1-c)/2 + 0.5)
		wantLo, wantHi := sorted[0], sorted[n-1]
		if k > 0 && 2*k < n {
			wantLo, wantHi = sorted[k], sorted[n-1-k]
		}
		if lo, hi := quantiles(a, c); lo != wantLo || hi != wantHi {
			t.Fatalf("n=%d c=%v: [%v, %v], want [%v, %v]", n, c, lo, hi, wantLo, wantHi)
		}
	}
}

func TestConfigs(t *testing.T) {
	for _, tc := range []struct {
		dim  int
		want float64
	}{{4, 0.9}, {9, 0.9}, {10, 1 - 1.0/11}, {384, 1 - 1.0/385}, {1536, 1 - 1.0/1537}} {
		if got := DefaultConfidenceInterval(tc.dim); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("DefaultConfidenceInterval(%d) = %v, want %v", tc.dim, got, tc.want)
		}
	}
	sc := ScalarConfig{}.WithDefaults(384)
	if sc.Bits != 7 || sc.SampleSize != 25000 || sc.ConfidenceInterval != DefaultConfidenceInterval(384) {
		t.Errorf("scalar defaults %v", sc)
	}
	oc := OSQConfig{}.WithDefaults()
	if oc.Bits != 1 || oc.QueryBits != 4 || oc.Lambda != 0.1 || oc.Iters != 5 {
		t.Errorf("OSQ defaults %v", oc)
	}
	if q := (OSQConfig{Bits: 7}).WithDefaults(); q.QueryBits != 7 {
		t.Errorf("7-bit OSQ query bits %d, want 7", q.QueryBits)
	}
	// Validate reports every bad field at once.
	err := ScalarConfig{Bits: 3, ConfidenceInterval: 2, SampleSize: -1}.Validate()
	for _, field := range []string{"Bits 3", "ConfidenceInterval 2", "SampleSize -1"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("scalar Validate: %v, want mention of %q", err, field)
		}
	}
	err = OSQConfig{Bits: 0, QueryBits: 9, Lambda: -1, Iters: 1000}.Validate()
	for _, field := range []string{"Bits 0", "QueryBits 9", "Lambda -1", "Iters 1000"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("OSQ Validate: %v, want mention of %q", err, field)
		}
	}
	if s := (ScalarConfig{Bits: 4}).String(); !strings.Contains(s, "Bits:4") {
		t.Errorf("String %q", s)
	}
}
