package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// QdrantScalarConfig configures Qdrant's scalar quantization
// (quantization_config.scalar, type int8) as qdrant/qdrant v1.19.0 ships
// it: lib/segment/src/types.rs ScalarQuantizationConfig,
// lib/quantization/src/encoded_vectors_u8.rs and quantile.rs.
type QdrantScalarConfig struct {
	// Quantile is ScalarQuantizationConfig.quantile, in [0.5, 1]; 0 is
	// Qdrant's default, not set: "use the whole range of values" (the
	// minimum and maximum component of every vector).
	Quantile float64
	// Seed drives the sample the quantile is read from (Qdrant draws it
	// with permutation_iterator's Permutor, unseeded: the lab's own
	// seeded draw of the same size stands in for it).
	Seed uint64
}

// Validate reports a quantile outside Qdrant's range in Qdrant's words.
func (c QdrantScalarConfig) Validate() error {
	if c.Quantile != 0 && !(c.Quantile >= 0.5 && c.Quantile <= 1) {
		return fmt.Errorf("quant: qdrant scalar quantization: quantile %v: Qdrant validates range(min = 0.5, max = 1.0) (0: not set, the whole range): %w", c.Quantile, engine.ErrInvalidArgument)
	}
	return nil
}

// qdrantSampleSize is lib/quantization/src/quantile.rs SAMPLE_SIZE: the
// vectors a quantile is read from.
const qdrantSampleSize = 5000

// TrainQdrantScalar trains Qdrant's int8 scalar quantizer on every row
// of vecs (EncodedVectorsU8::encode reads them all).
//
// The interval [offset, offset + 127·alpha] is the minimum and maximum
// component of all vectors (find_min_max_from_iter), or, with a quantile
// q < 1 and at least 127 vectors, the one find_quantile_interval cuts:
// min(count, 5000) vectors drawn without replacement, their components
// pooled, and cut = max(1, min((len − 1)/2, ⌊vectors·(1 − q)/2⌋))
// components dropped at each end — the count of vectors, not of
// components, is Qdrant's rule as written, so the cut is small. A
// component is coded as round(clamp((v − offset)/alpha, 0, 127)).
//
// The score is Qdrant's postprocess_score, multiplier·Σ qᵢcᵢ + the query's
// offset + the vector's: for dot and cosine alpha²·⟨q, c⟩ +
// alpha·offset·(Σq + Σc) + dim·offset², the dot product of the two
// dequantized vectors; for Euclid alpha²·Σ(qᵢ − cᵢ)². That is the
// engine's [Scalar] with 7 bits, these bounds and no rounding correction
// (ScalarConfig.NoCorrection: its per-vector term is alpha·offset·Σc +
// dim·offset²/2, the same sum split evenly between the two sides, where
// Qdrant adds dim·offset² to the stored vector's), so a *Scalar is
// returned: it stores, restores and scores as one. Qdrant pads a
// dimension to a multiple of 16 with the code of 0 (dot, cosine) or of
// offset (Euclid); the padding adds one constant to every score and
// changes no order, so it is left out.
func TrainQdrantScalar(vecs *vec.Matrix, metric engine.Metric, cfg QdrantScalarConfig) (*Scalar, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if vecs == nil {
		return nil, fmt.Errorf("quant: training sample is nil: %w", engine.ErrInvalidArgument)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if vecs.Dim <= 0 || vecs.N < minTrain || vecs.Stride < vecs.Dim || len(vecs.Data) < (vecs.N-1)*vecs.Stride+vecs.Dim {
		return nil, fmt.Errorf("quant: qdrant scalar training set is malformed or too small (N=%d Dim=%d Stride=%d, need ≥ %d vectors): %w", vecs.N, vecs.Dim, vecs.Stride, minTrain, engine.ErrInvalidArgument)
	}
	dim := vecs.Dim
	// One row at a time, normalised under Cosine into a scratch row (the
	// segment's rows already are; a copy of them all would double the
	// segment in memory while it is trained).
	scratch := make([]float32, dim)
	row := func(i int) ([]float32, error) {
		r := vecs.Row(i)
		if err := engine.CheckVector(r, dim, metric); err != nil {
			return nil, fmt.Errorf("quant: training vector %d: %w", i, err)
		}
		if metric != engine.Cosine {
			return r, nil
		}
		copy(scratch, r)
		if err := vec.Normalize(scratch); err != nil {
			return nil, fmt.Errorf("quant: training vector %d: %w", i, err)
		}
		return scratch, nil
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i := 0; i < vecs.N; i++ {
		r, err := row(i)
		if err != nil {
			return nil, err
		}
		for _, x := range r {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if q := cfg.Quantile; q != 0 && q < 1 && vecs.N >= 127 {
		ql, qh, ok, err := qdrantQuantileInterval(vecs.N, dim, q, cfg.Seed, row)
		if err != nil {
			return nil, err
		}
		if ok {
			lo, hi = ql, qh
		}
	}
	return newScalar(dim, metric, ScalarConfig{Bits: 7, ConfidenceInterval: 1, NoCorrection: true, SampleSize: vecs.N, Seed: cfg.Seed}, lo, hi)
}

// qdrantQuantileInterval is find_quantile_interval (qdrant/qdrant
// v1.19.0 lib/quantization/src/quantile.rs): ok is false where Qdrant
// returns None and keeps the whole range.
func qdrantQuantileInterval(n, dim int, q float64, seed uint64, row func(int) ([]float32, error)) (lo, hi float32, ok bool, err error) {
	take := min(n, qdrantSampleSize)
	r := rand.New(rand.NewPCG(seed, seed^0x51a7_3d12_c0ff_ee00))
	idx := r.Perm(n)[:take]
	slices.Sort(idx)
	data := make([]float32, 0, take*dim)
	for _, i := range idx {
		v, err := row(i)
		if err != nil {
			return 0, 0, false, err
		}
		data = append(data, v...)
	}
	if len(data) < 4 {
		return 0, 0, false, nil
	}
	// In f32, as Qdrant computes it (the quantile is an f32 there).
	cut := min((len(data)-1)/2, int(float32(take)*(1-float32(q))/2))
	cut = max(cut, 1)
	// select_nth_unstable_by(len − cut), then of the left part
	// select_nth_unstable_by(cut): what is left is sorted positions
	// cut+1 … len−cut−1, whose extremes are the interval.
	if len(data)-cut-(cut+1) < 2 {
		return 0, 0, false, nil
	}
	slices.Sort(data)
	return data[cut+1], data[len(data)-cut-1], true, nil
}
