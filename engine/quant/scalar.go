package quant

import (
	"fmt"
	"math"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/bitsx"
	"github.com/veclab/veclab/engine/vec"
)

// ScalarConfig configures scalar quantization as Lucene's ScalarQuantizer
// does it (Lucene99ScalarQuantizedVectorsFormat; Elasticsearch int8_hnsw,
// int4_hnsw). The zero value is Elasticsearch's "int8".
type ScalarConfig struct {
	// Bits per component: 7 (default; Elasticsearch's "int8" stores 0…127),
	// 4 (int4, two components per byte) or 8.
	Bits int
	// ConfidenceInterval c picks the quantization bounds: c = 1 takes the
	// plain minimum and maximum of the sample; 0.9 ≤ c < 1 takes, in
	// groups of 20 sampled vectors (one group of all when fewer), the (1−c)/2 and (1+c)/2 quantiles of
	// all their components and averages them over the groups. 0 means the
	// Lucene default max(0.9, 1 − 1/(dim+1)). (Lucene's "dynamic" interval
	// search, its int4 default, is not implemented.)
	ConfidenceInterval float64
	// NoCorrection drops the rounding-error term from the per-vector
	// correction, leaving the plain dequantized dot product, to show what
	// the correction buys (E23).
	NoCorrection bool
	// SampleSize bounds the vectors read for the bounds (reservoir
	// sampled); 0 means Lucene's 25,000.
	SampleSize int
	// Seed drives the reservoir sampling (Lucene uses a fixed 42).
	Seed uint64
}

// maxByteDim bounds the dimension of byte codes: Σ 255² over it fits in an
// int32, the kernels' accumulator.
const maxByteDim = 33000

// scalarGroup is the number of sampled vectors whose components form one
// quantile group (Lucene ScalarQuantizer.SCRATCH_SIZE).
const scalarGroup = 20

// DefaultConfidenceInterval returns Lucene's default int8 confidence
// interval for dim dimensions: max(0.9, 1 − 1/(dim+1)).
func DefaultConfidenceInterval(dim int) float64 {
	return max(0.9, 1-1/float64(dim+1))
}

// WithDefaults returns a copy with zero fields filled for dimension dim.
func (c ScalarConfig) WithDefaults(dim int) ScalarConfig {
	if c.Bits == 0 {
		c.Bits = 7
	}
	if c.ConfidenceInterval == 0 {
		c.ConfidenceInterval = DefaultConfidenceInterval(dim)
	}
	if c.SampleSize == 0 {
		c.SampleSize = 25000
	}
	return c
}

// Validate reports every invalid field at once.
func (c ScalarConfig) Validate() error {
	var errs []string
	if c.Bits != 4 && c.Bits != 7 && c.Bits != 8 {
		errs = append(errs, fmt.Sprintf("Bits %d (want 4, 7 or 8)", c.Bits))
	}
	if math.IsNaN(c.ConfidenceInterval) || c.ConfidenceInterval < 0.9 || c.ConfidenceInterval > 1 {
		errs = append(errs, fmt.Sprintf("ConfidenceInterval %v (want 0.9…1, or 0 for the default)", c.ConfidenceInterval))
	}
	if c.SampleSize < 0 {
		errs = append(errs, fmt.Sprintf("SampleSize %d (want ≥ 0)", c.SampleSize))
	}
	if len(errs) > 0 {
		return fmt.Errorf("quant: scalar quantizer config: %v: %w", errs, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration.
func (c ScalarConfig) String() string {
	return fmt.Sprintf("ScalarConfig{Bits:%d ConfidenceInterval:%g NoCorrection:%t SampleSize:%d Seed:%d}",
		c.Bits, c.ConfidenceInterval, c.NoCorrection, c.SampleSize, c.Seed)
}

// Scalar is a trained scalar quantizer. Each component v is clamped to
// [MinQ, MaxQ] and coded as q = round((v − MinQ)/α), α = (MaxQ − MinQ)/(2^b − 1).
//
// Dot product (and cosine on unit vectors) is reconstructed as Lucene's
// ScalarQuantizedVectorSimilarity does: ⟨x, y⟩ ≈ α²·⟨qx, qy⟩ + cx + cy,
// with the per-vector correction
//
//	c = Σ_i [ MinQ·(v_i − MinQ/2) + (v_i − MinQ − α·q_i)·α·q_i ]
//
// whose second term corrects for the rounding error. Squared L2 is
// α²·Σ(qx − qy)² and needs no correction.
type Scalar struct {
	dim       int
	metric    engine.Metric
	cfg       ScalarConfig // effective
	minQ      float32
	maxQ      float32
	alpha     float32 // (maxQ − minQ)/(2^b − 1)
	scale     float32 // 1/alpha
	alpha2    float32
	codeBytes int
}

// TrainScalar learns the bounds from sample under metric.
func TrainScalar(sample *vec.Matrix, metric engine.Metric, cfg ScalarConfig) (*Scalar, error) {
	if sample == nil {
		return nil, fmt.Errorf("quant: training sample is nil: %w", engine.ErrInvalidArgument)
	}
	cfg = cfg.WithDefaults(sample.Dim)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows, err := trainingRows(sample, metric, cfg.SampleSize, cfg.Seed)
	if err != nil {
		return nil, err
	}
	var lo, hi float32
	if cfg.ConfidenceInterval == 1 {
		lo, hi = float32(math.Inf(1)), float32(math.Inf(-1))
		for _, r := range rows {
			for _, x := range r {
				lo = min(lo, x)
				hi = max(hi, x)
			}
		}
	} else {
		lo, hi = confidenceBounds(rows, sample.Dim, cfg.ConfidenceInterval)
	}
	return newScalar(sample.Dim, metric, cfg, lo, hi)
}

// confidenceBounds averages the per-group quantiles over full groups of
// scalarGroup vectors; a trailing partial group is not used, and fewer than
// scalarGroup vectors form one group (Lucene ScalarQuantizer.fromVectors:
// small samples are not allowed extreme intervals).
func confidenceBounds(rows [][]float32, dim int, c float64) (float32, float32) {
	group := min(scalarGroup, len(rows))
	scratch := make([]float32, group*dim)
	var sumLo, sumHi float64
	groups := 0
	for g := 0; g+group <= len(rows); g += group {
		for i := 0; i < group; i++ {
			copy(scratch[i*dim:], rows[g+i])
		}
		l, h := quantiles(scratch, c)
		sumLo += float64(l)
		sumHi += float64(h)
		groups++
	}
	return float32(sumLo / float64(groups)), float32(sumHi / float64(groups))
}

// quantiles returns the smallest and largest values left after dropping
// ⌊n·(1−c)/2 + 0.5⌋ values from each end of a (which it reorders), as
// Lucene's ScalarQuantizer.getUpperAndLowerQuantile does (by selection,
// not a full sort).
func quantiles(a []float32, c float64) (float32, float32) {
	n := len(a)
	k := int(float64(n)*(1-c)/2 + 0.5)
	if k <= 0 || 2*k >= n {
		return slices.Min(a), slices.Max(a)
	}
	selectNth(a, n-1-k)
	selectNth(a[:n-1-k], k)
	return a[k], a[n-1-k]
}

// selectNth reorders a so that a[n] is the value a sort would put there,
// with nothing larger before it and nothing smaller after it (Hoare's
// quickselect with a median-of-three pivot).
func selectNth(a []float32, n int) {
	lo, hi := 0, len(a)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for p < a[j] {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case n <= j:
			hi = j
		case n >= i:
			lo = i
		default:
			return
		}
	}
}

func newScalar(dim int, metric engine.Metric, cfg ScalarConfig, lo, hi float32) (*Scalar, error) {
	if !finite32(lo) || !finite32(hi) || !(hi > lo) {
		return nil, fmt.Errorf("quant: scalar quantizer bounds [%v, %v] are empty or not finite (are all training components equal?): %w", lo, hi, engine.ErrInvalidArgument)
	}
	if dim > maxByteDim {
		return nil, fmt.Errorf("quant: scalar quantizer: %d dimensions exceed the %d an exact int32 code dot product allows: %w", dim, maxByteDim, engine.ErrDimension)
	}
	levels := float32(int(1)<<cfg.Bits - 1)
	s := &Scalar{dim: dim, metric: metric, cfg: cfg, minQ: lo, maxQ: hi}
	s.alpha = (hi - lo) / levels
	s.scale = levels / (hi - lo)
	s.alpha2 = s.alpha * s.alpha
	if cfg.Bits == 4 {
		s.codeBytes = (dim + 1) / 2
	} else {
		s.codeBytes = dim
	}
	return s, nil
}

// Dim returns the vector dimension.
func (s *Scalar) Dim() int { return s.dim }

// Metric returns the metric.
func (s *Scalar) Metric() engine.Metric { return s.metric }

// Config returns the effective configuration.
func (s *Scalar) Config() ScalarConfig { return s.cfg }

// Bounds returns the quantization interval [MinQ, MaxQ].
func (s *Scalar) Bounds() (minQ, maxQ float32) { return s.minQ, s.maxQ }

// CodeSize returns the code bytes plus the 4-byte correction.
func (s *Scalar) CodeSize() int { return s.codeBytes + 4 }

// QueryCodeSize equals CodeSize: Lucene quantizes the query like a document.
func (s *Scalar) QueryCodeSize() int { return s.CodeSize() }

// Symmetric is true.
func (s *Scalar) Symmetric() bool { return true }

// BytesPerVector returns CodeSize.
func (s *Scalar) BytesPerVector() float64 { return float64(s.CodeSize()) }

// String describes the quantizer.
func (s *Scalar) String() string {
	name := map[int]string{4: "int4", 7: "int8(7-bit)", 8: "int8(8-bit)"}[s.cfg.Bits]
	corr := ""
	if s.cfg.NoCorrection {
		corr = ", no correction"
	}
	return fmt.Sprintf("scalar %s %v dim=%d c=%.4f [%g, %g]%s", name, s.metric, s.dim, s.cfg.ConfidenceInterval, s.minQ, s.maxQ, corr)
}

// Encode writes v's code and correction into dst[:CodeSize()].
func (s *Scalar) Encode(dst []byte, v []float32) error {
	if err := checkInput(v, s.dim, "vector"); err != nil {
		return err
	}
	if err := checkDst(dst, s.CodeSize(), "code"); err != nil {
		return err
	}
	s.encode(dst[:s.CodeSize()], v)
	return nil
}

// EncodeQuery is Encode.
func (s *Scalar) EncodeQuery(dst []byte, q []float32) error {
	if err := checkInput(q, s.dim, "query"); err != nil {
		return err
	}
	if err := checkDst(dst, s.CodeSize(), "query code"); err != nil {
		return err
	}
	s.encode(dst[:s.CodeSize()], q)
	return nil
}

// encode follows Lucene ScalarQuantizer.quantize: clamp, scale, round,
// and accumulate the dot-product correction in float64.
func (s *Scalar) encode(dst []byte, v []float32) {
	code := dst[:s.codeBytes]
	if s.cfg.Bits == 4 {
		clear(code)
	}
	m := float64(s.minQ)
	alpha := float64(s.alpha)
	var corr float64
	var sumQ float64
	for i, x := range v {
		dx := float64(x) - m
		dxc := float64(min(max(x, s.minQ), s.maxQ) - s.minQ)
		q := roundHalfUp(dxc * float64(s.scale))
		dxq := q * alpha
		// The rounding (and clipping) error dx − dxq times the quantized
		// value: Lucene's estimate of ⟨e_x, ŷ⟩ by ⟨e_x, x̂⟩ for near neighbours.
		corr += m*(float64(x)-m/2) + (dx-dxq)*dxq
		sumQ += q
		if s.cfg.Bits == 4 {
			code[i>>1] |= byte(q) << (4 * (i & 1))
		} else {
			code[i] = byte(q)
		}
	}
	if s.cfg.NoCorrection {
		// The plain dequantized offset: Σ (m + α·q_i)·(m + α·q'_i) splits
		// into α²⟨q, q'⟩ + (m·α·Σq + d·m²/2) + (the same for q').
		corr = m*alpha*sumQ + float64(s.dim)*m*m/2
	}
	if s.metric == engine.L2 {
		corr = 0
	}
	putF32(dst[s.codeBytes:], float32(corr))
}

// Distance estimates the distance between an encoded query and a code.
func (s *Scalar) Distance(query, code []byte) float32 { return s.CodeDistance(query, code) }

// CodeDistance estimates the distance between two codes.
func (s *Scalar) CodeDistance(a, b []byte) float32 {
	n := s.codeBytes
	if s.metric == engine.L2 {
		var sq int32
		if s.cfg.Bits == 4 {
			sq = bitsx.SqDiffNibbles(a[:n], b[:n])
		} else {
			sq = bitsx.SqDiffBytes(a[:n], b[:n])
		}
		return s.alpha2 * float32(sq)
	}
	var dot int32
	if s.cfg.Bits == 4 {
		dot = bitsx.DotNibbles(a[:n], b[:n])
	} else {
		dot = bitsx.DotBytes(a[:n], b[:n])
	}
	ip := s.alpha2*float32(dot) + getF32(a[n:]) + getF32(b[n:])
	if s.metric == engine.Dot {
		return -ip
	}
	return 1 - ip
}

// Decode writes the dequantized vector of a code into dst (len Dim):
// MinQ + α·q_i per component.
func (s *Scalar) Decode(dst []float32, code []byte) error {
	if len(dst) != s.dim {
		return fmt.Errorf("quant: decode buffer has %d components, quantizer has %d: %w", len(dst), s.dim, engine.ErrDimension)
	}
	if err := checkDst(code, s.CodeSize(), "code"); err != nil {
		return err
	}
	for i := range dst {
		var q byte
		if s.cfg.Bits == 4 {
			q = (code[i>>1] >> (4 * (i & 1))) & 15
		} else {
			q = code[i]
		}
		dst[i] = s.minQ + s.alpha*float32(q)
	}
	return nil
}

// Scalar body (after the common header; part of the file format; never change):
//
//	u32 dim | u8 metric | u8 bits | u8 noCorrection | u8 0 |
//	f64 confidenceInterval | f32 minQ | f32 maxQ | u32 sampleSize | u32 seedLo | u32 seedHi

// MarshalBinary writes the trained parameters.
func (s *Scalar) MarshalBinary() ([]byte, error) { return marshal(s.frame()) }

func (s *Scalar) frame() (magic, tag string, body []byte) {
	e := newEncoder(36)
	e.u32(uint32(s.dim))
	e.u8(uint8(s.metric))
	e.u8(uint8(s.cfg.Bits))
	nc := uint8(0)
	if s.cfg.NoCorrection {
		nc = 1
	}
	e.u8(nc)
	e.u8(0)
	e.f64(s.cfg.ConfidenceInterval)
	e.f32(s.minQ)
	e.f32(s.maxQ)
	e.u32(uint32(s.cfg.SampleSize))
	e.u32(uint32(s.cfg.Seed))
	e.u32(uint32(s.cfg.Seed >> 32))
	return magicScalar, tagScalar, e.b
}

// RestoreScalar reads a scalar quantizer written by MarshalBinary.
func RestoreScalar(b []byte) (*Scalar, error) { return restoreScalar("", b) }

func restoreScalar(name string, b []byte) (*Scalar, error) {
	d, err := openFile(name, b, magicScalar, tagScalar, "scalar quantizer")
	if err != nil {
		return nil, err
	}
	dim, metric := d.dimMetric()
	var at int
	var cfg ScalarConfig
	at = d.off
	cfg.Bits = int(d.u8("bits"))
	at2 := d.off
	nc := d.u8("noCorrection")
	if d.err == nil && nc > 1 {
		d.fail(at2, "noCorrection flag %d", nc)
	}
	cfg.NoCorrection = nc == 1
	d.u8("reserved")
	cfg.ConfidenceInterval = d.f64("confidence interval")
	minQ := d.f32("minQ")
	maxQ := d.f32("maxQ")
	cfg.SampleSize = int(d.u32("sample size"))
	cfg.Seed = uint64(d.u32("seed")) | uint64(d.u32("seed"))<<32
	if err := d.done(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("quant: scalar quantizer: stored config (offset %d): %v: %w", at, err, engine.ErrCorrupt)
	}
	s, err := newScalar(dim, metric, cfg, minQ, maxQ)
	if err != nil {
		return nil, fmt.Errorf("quant: scalar quantizer: stored bounds: %v: %w", err, engine.ErrCorrupt)
	}
	return s, nil
}
