package quant

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/vec"
)

// TestContract runs the conformance suite through Store's Query, the flat
// scan over codes, for Lucene's int8 (7-bit) and int4 scalar codes, 4-bit
// OSQ and BBQ (1-bit documents, 4-bit queries). Distances are the
// quantizers' estimates; the floors are what each code keeps of the exact
// top 10 on the suite's clustered data. At 24 dimensions Lucene's default
// confidence interval (0.96) clips about one component of every vector,
// which costs int7 more than its bits (0.79–0.90; 0.94–0.96 with the plain
// min/max bounds, the "minmax" case); BBQ's 1-bit codes need many
// dimensions and run at 256, where unrescored they keep 0.30 (cosine) to
// 0.75 (dot) of the top 10, as TestRecallFlat's osq1x4 floor expects.
// PQ runs with 4 bits per sub-space, as the suite's smallest stores have
// fewer than the 256 vectors 8 bits need: 12 bytes for 24 dimensions keep
// 0.45 (cosine) to 0.63 (dot) of the top 10 unrescored.
// TurboQuant at 4 bits keeps 0.86–0.94 in Qdrant's form (TQ+ fitted on
// the data), 0.65–0.87 as TurboQuant_mse and 0.54–0.84 as
// TurboQuant_prod (3 + 1 bits): at 24 dimensions the paper's
// data-oblivious codebook and QJL's d-averaged noise have little to
// average over.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name  string
		train func(*vec.Matrix, engine.Metric) (Quantizer, error)
		floor float64
		dim   int // 0: the suite's 24
	}{
		{"int7", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) { return TrainScalar(x, m, ScalarConfig{}) }, 0.75, 0},
		{"int7 minmax", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainScalar(x, m, ScalarConfig{ConfidenceInterval: 1})
		}, 0.9, 0},
		{"int4", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainScalar(x, m, ScalarConfig{Bits: 4})
		}, 0.7, 0},
		{"osq4", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) { return TrainOSQ(x, m, OSQConfig{Bits: 4}) }, 0.8, 0},
		{"bbq", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) { return TrainOSQ(x, m, OSQConfig{Bits: 1}) }, 0.25, 256},
		// Product codes of 2 dimensions per byte with 16 centroids per
		// sub-space (the suite's stores can hold fewer than 256 vectors).
		{"pq", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainPQ(x, m, PQConfig{M: x.Dim / 2, Bits: 4, Seed: 1})
		}, 0.35, 0},
		{"turbo qdrant 4", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainTurbo(x, m, TurboConfig{Kind: TurboQdrant, Bits: 4})
		}, 0.8, 0},
		{"turbo mse 4", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainTurbo(x, m, TurboConfig{Kind: TurboMSE, Bits: 4})
		}, 0.6, 0},
		{"turbo prod 4", func(x *vec.Matrix, m engine.Metric) (Quantizer, error) {
			return TrainTurbo(x, m, TurboConfig{Kind: TurboProd, Bits: 4})
		}, 0.5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.RunWith(t, indextest.Options{MinRecall: tc.floor, ApproxDistances: true, Dim: tc.dim}, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
				// Codes are of unit vectors under Cosine (the engine
				// normalises on insert).
				x := vec.NewMatrix(vs.N, dim)
				copy(x.Data, vs.Data[:vs.N*dim])
				if m == engine.Cosine {
					for i := 0; i < x.N; i++ {
						if err := vec.Normalize(x.Row(i)); err != nil {
							t.Fatal(err)
						}
					}
				}
				sample := x
				if x.N == 0 { // an empty store: a quantizer trained elsewhere, no codes
					sample = indextest.Clustered(100, dim, 4, 1)
				}
				q, err := tc.train(sample, m)
				if err != nil {
					t.Fatal(err)
				}
				s := NewStore(q)
				s.Reserve(x.N)
				for i := 0; i < x.N; i++ {
					if err := s.Set(engine.ID(i), x.Row(i)); err != nil {
						t.Fatal(err)
					}
				}
				return indextest.Contract(s, 0)
			})
		})
	}
}
