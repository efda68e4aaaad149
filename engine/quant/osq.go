package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/bitsx"
	"github.com/veclab/veclab/engine/vec"
)

// OSQConfig configures optimized scalar quantization (Lucene
// OptimizedScalarQuantizer.java; Elastic's "Better Binary Quantization"
// blog). The zero value is BBQ: 1-bit documents, 4-bit queries.
type OSQConfig struct {
	// Bits per document component, 1…8 (default 1).
	Bits int
	// QueryBits per query component, 1…8; 0 means 4 when Bits ≤ 4
	// (asymmetric, as BBQ) and Bits otherwise. QueryBits = Bits gives a
	// symmetric quantizer.
	QueryBits int
	// Lambda weighs the plain squared error against the error parallel to
	// the vector in the anisotropic loss; 0 means Lucene's 0.1.
	Lambda float64
	// Iters bounds the coordinate-descent steps refining each interval;
	// 0 means Lucene's 5, a negative value disables the refinement (the
	// minimum-MSE grid start is kept).
	Iters int
	// SampleSize bounds the vectors averaged into the centroid by
	// TrainOSQ (reservoir sampled); 0 means all of them.
	SampleSize int
	// Seed drives the sampling.
	Seed uint64
	// MeanCentroid keeps the centroid the plain mean of the unit vectors
	// under Cosine: what the BBQ writer computes for a field Lucene sees
	// as DOT_PRODUCT, which is how Elasticsearch hands over a cosine
	// dense_vector (it normalises the vectors at index time and maps the
	// field to DOT_PRODUCT; DenseVectorFieldMapper, elastic/elasticsearch
	// 9.x). false is a field Lucene sees as COSINE: the writer normalises
	// the mean to unit length (ES818BinaryQuantizedVectorsWriter.flush,
	// elastic/elasticsearch 9.x, which ES93BinaryQuantizedVectorsWriter
	// extends; Lucene102BinaryQuantizedVectorsWriter.flush, apache/lucene
	// 10.2), which moves it far from data whose mean is short (many
	// well-separated clusters) and costs recall. Under L2 and Dot the
	// centroid is the plain mean either way.
	MeanCentroid bool
	// IntSum stores each document's Σq (the sum of its code's components)
	// in 4 bytes, as Lucene104ScalarQuantizedVectorsWriter does
	// (vectorData.writeInt(corrections.quantizedComponentSum()), apache/lucene
	// 10.4: the int8_hnsw and int4_hnsw of Elasticsearch 9.4+). false
	// stores it in 2 bytes whenever it fits, as the BBQ writers write a
	// short (ES818BinaryQuantizedVectorsWriter, elastic/elasticsearch 9.x).
	IntSum bool
}

// WithDefaults returns a copy with zero fields filled.
func (c OSQConfig) WithDefaults() OSQConfig {
	if c.Bits == 0 {
		c.Bits = 1
	}
	if c.QueryBits == 0 {
		if c.Bits <= 4 {
			c.QueryBits = 4
		} else {
			c.QueryBits = c.Bits
		}
	}
	if c.Lambda == 0 {
		c.Lambda = 0.1
	}
	if c.Iters == 0 {
		c.Iters = 5
	}
	return c
}

// Validate reports every invalid field at once.
func (c OSQConfig) Validate() error {
	var errs []string
	if c.Bits < 1 || c.Bits > 8 {
		errs = append(errs, fmt.Sprintf("Bits %d (want 1…8)", c.Bits))
	}
	if c.QueryBits < 1 || c.QueryBits > 8 {
		errs = append(errs, fmt.Sprintf("QueryBits %d (want 1…8)", c.QueryBits))
	}
	if math.IsNaN(c.Lambda) || c.Lambda <= 0 || c.Lambda > 1 {
		errs = append(errs, fmt.Sprintf("Lambda %v (want 0 < λ ≤ 1)", c.Lambda))
	}
	if c.Iters > 100 {
		errs = append(errs, fmt.Sprintf("Iters %d (want ≤ 100)", c.Iters))
	}
	if c.SampleSize < 0 {
		errs = append(errs, fmt.Sprintf("SampleSize %d (want ≥ 0)", c.SampleSize))
	}
	if len(errs) > 0 {
		return fmt.Errorf("quant: OSQ config: %v: %w", errs, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration.
func (c OSQConfig) String() string {
	return fmt.Sprintf("OSQConfig{Bits:%d QueryBits:%d Lambda:%g Iters:%d SampleSize:%d Seed:%d MeanCentroid:%t IntSum:%t}",
		c.Bits, c.QueryBits, c.Lambda, c.Iters, c.SampleSize, c.Seed, c.MeanCentroid, c.IntSum)
}

// minimumMSEGrid holds, per bit width 1…8, the interval [lo, hi] in units
// of the vector's standard deviation around its mean that minimises the
// mean squared error for normally distributed components; OSQ starts its
// per-vector search there (the table in Lucene OptimizedScalarQuantizer).
var minimumMSEGrid = [8][2]float64{
	{-0.798, 0.798}, {-1.493, 1.493}, {-2.051, 2.051}, {-2.514, 2.514},
	{-2.916, 2.916}, {-3.278, 3.278}, {-3.611, 3.611}, {-3.922, 3.922},
}

// OSQ is an optimized scalar quantizer around a fixed centroid c.
//
// Each vector x is centred (x' = x − c) and gets its own interval [a, b],
// initialised from the minimum-MSE grid scaled by the standard deviation of
// x' and shifted by its mean (clipped to its min and max), then refined by
// at most Iters coordinate-descent steps on the anisotropic loss
//
//	(1−λ)·⟨x', e⟩²/‖x'‖² + λ·‖e‖²,  e = x' − dequant(quant(x'))
//
// each solving a 2×2 linear system for (a, b) with the grid assignments
// fixed, stopping when the loss would grow (LVQ's per-vector intervals,
// Aguerrebere et al. 2023, with the anisotropic loss of Guo et al. 2020).
// Components are coded q_i = round((clamp(x'_i, a, b) − a)/Δ), Δ = (b−a)/(2^B−1).
//
// With doc (a_x, Δ_x, Σq_x) and query (a_y, Δ_y, Σq_y) codes in D dims,
//
//	⟨x', y'⟩ ≈ a_x·a_y·D + a_y·Δ_x·Σq_x + a_x·Δ_y·Σq_y + Δ_x·Δ_y·⟨q_x, q_y⟩
//
// (Lucene102BinaryFlatVectorsScorer). The additional correction is ‖x'‖²
// under L2, giving ‖x − y‖² = ‖x'‖² + ‖y'‖² − 2⟨x', y'⟩, and ⟨x, c⟩ under
// Dot and Cosine, giving ⟨x, y⟩ = ⟨x', y'⟩ + ⟨x, c⟩ + ⟨y, c⟩ − ‖c‖².
type OSQ struct {
	dim      int
	metric   engine.Metric
	cfg      OSQConfig
	centroid []float32
	cc       float32 // ‖c‖²
	planar   bool    // bit-plane codes (Bits, QueryBits ≤ 4), else a byte per component
	words    int     // 64-bit words per plane

	docCode, qCode int // code bytes before the corrective factors
	docSum         int // bytes of Σq in a document code (2 or 4)

	scratch sync.Pool // *osqScratch
}

type osqScratch struct {
	x    []float32
	q    []byte
	dots [64]int64 // a block of BoundQuery.Distances' integer dot products
}

// correction block: lower, upper, additional (float32 each), then Σq.
const osqFloats = 12

// TrainOSQ computes the centroid as the mean of the (sampled) training
// vectors (unit-normalised first under Cosine), normalised in turn under
// Cosine unless cfg.MeanCentroid (see there), and returns the quantizer
// around it. This is the BBQ writer's centroid of a flushed segment
// (ES818BinaryQuantizedVectorsWriter.flush: the per-dimension sums of the
// vectors, divided by their count, l2normalize'd for a COSINE field only),
// and of a merged one whose sources cannot be combined ([MergeOSQ]).
func TrainOSQ(sample *vec.Matrix, metric engine.Metric, cfg OSQConfig) (*OSQ, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows, err := trainingRows(sample, metric, cfg.SampleSize, cfg.Seed)
	if err != nil {
		return nil, err
	}
	dim := sample.Dim
	sum := make([]float64, dim)
	for _, r := range rows {
		for i, x := range r {
			sum[i] += float64(x)
		}
	}
	c := make([]float32, dim)
	for i := range c {
		c[i] = float32(sum[i] / float64(len(rows)))
	}
	if metric == engine.Cosine && !cfg.MeanCentroid {
		// A field Lucene sees as COSINE: the writer normalises the
		// centroid. A zero mean stays zero: the estimator does not need a
		// unit centroid, only Lucene's assertion does.
		_ = vec.Normalize(c)
	}
	return newOSQ(c, metric, cfg)
}

// MergeOSQ returns the quantizer of a segment merged from segments coded
// by parts, counts[i] vectors each, when every one of them has a centroid
// and no deleted document: its centroid is the parts' centroids weighted
// by their counts, normalised to unit length under Cosine unless
// MeanCentroid (ES818BinaryQuantizedVectorsWriter.mergeAndRecalculateCentroids,
// elastic/elasticsearch 9.x; the same in apache/lucene 10.2's
// Lucene102BinaryQuantizedVectorsWriter). With MeanCentroid that is the
// plain mean of all the merged vectors, as a flush of them would give;
// for a COSINE field it is not the normalised mean of the merged vectors
// but the normalised mean of the parts' unit centroids. A merge with
// deletions recomputes the centroid from the vectors ([TrainOSQ] on
// them). The parts must agree on dimension, metric and configuration; the
// result takes the first one's.
func MergeOSQ(parts []*OSQ, counts []int) (*OSQ, error) {
	if len(parts) == 0 || len(parts) != len(counts) {
		return nil, fmt.Errorf("quant: MergeOSQ: %d quantizers, %d counts: %w", len(parts), len(counts), engine.ErrInvalidArgument)
	}
	first := parts[0]
	if first == nil {
		return nil, fmt.Errorf("quant: MergeOSQ: quantizer 0 is nil: %w", engine.ErrInvalidArgument)
	}
	sum := make([]float64, first.dim)
	total := 0
	for i, p := range parts {
		switch {
		case p == nil:
			return nil, fmt.Errorf("quant: MergeOSQ: quantizer %d is nil: %w", i, engine.ErrInvalidArgument)
		case p.dim != first.dim:
			return nil, fmt.Errorf("quant: MergeOSQ: quantizer %d has %d dimensions, quantizer 0 %d: %w", i, p.dim, first.dim, engine.ErrDimension)
		case p.metric != first.metric || !sameCoding(p.cfg, first.cfg):
			return nil, fmt.Errorf("quant: MergeOSQ: quantizer %d (%v, %v) differs from quantizer 0 (%v, %v): %w", i, p.metric, p.cfg, first.metric, first.cfg, engine.ErrInvalidArgument)
		case counts[i] < 1:
			return nil, fmt.Errorf("quant: MergeOSQ: count %d is %d: %w", i, counts[i], engine.ErrInvalidArgument)
		}
		for d, x := range p.centroid {
			sum[d] += float64(x) * float64(counts[i])
		}
		total += counts[i]
	}
	c := make([]float32, first.dim)
	for d := range c {
		c[d] = float32(sum[d] / float64(total))
	}
	if first.metric == engine.Cosine && !first.cfg.MeanCentroid {
		_ = vec.Normalize(c)
	}
	return newOSQ(c, first.metric, first.cfg)
}

// sameCoding reports whether two configurations code vectors alike (the
// seed only drives TrainOSQ's sampling).
func sameCoding(a, b OSQConfig) bool {
	a.Seed, b.Seed = 0, 0
	return a == b
}

// NewOSQ returns an OSQ around the given centroid (copied, used as given),
// e.g. an IVF cluster centroid.
func NewOSQ(centroid []float32, metric engine.Metric, cfg OSQConfig) (*OSQ, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if len(centroid) == 0 {
		return nil, fmt.Errorf("quant: centroid is empty: %w", engine.ErrDimension)
	}
	if err := checkInput(centroid, len(centroid), "centroid"); err != nil {
		return nil, err
	}
	return newOSQ(slices.Clone(centroid), metric, cfg)
}

func newOSQ(c []float32, metric engine.Metric, cfg OSQConfig) (*OSQ, error) {
	dim := len(c)
	if dim > maxByteDim && (cfg.Bits > 4 || cfg.QueryBits > 4) {
		return nil, fmt.Errorf("quant: OSQ: %d dimensions exceed the %d an exact int32 byte-code dot product allows: %w", dim, maxByteDim, engine.ErrDimension)
	}
	o := &OSQ{dim: dim, metric: metric, cfg: cfg, centroid: c}
	var cc float64
	for _, x := range c {
		cc += float64(x) * float64(x)
	}
	o.cc = float32(cc)
	o.words = (dim + 63) / 64
	o.planar = cfg.Bits <= 4 && cfg.QueryBits <= 4
	if o.planar {
		o.docCode = cfg.Bits * o.words * 8
		o.qCode = cfg.QueryBits * o.words * 8
	} else {
		o.docCode, o.qCode = dim, dim
	}
	o.docSum = 4
	if !cfg.IntSum && (1<<cfg.Bits-1)*dim <= math.MaxUint16 {
		o.docSum = 2
	}
	o.scratch.New = func() any { return &osqScratch{x: make([]float32, dim), q: make([]byte, dim)} }
	return o, nil
}

// Dim returns the vector dimension.
func (o *OSQ) Dim() int { return o.dim }

// Metric returns the metric.
func (o *OSQ) Metric() engine.Metric { return o.metric }

// Config returns the effective configuration.
func (o *OSQ) Config() OSQConfig { return o.cfg }

// Centroid returns a copy of the centroid.
func (o *OSQ) Centroid() []float32 { return slices.Clone(o.centroid) }

// CodeSize returns the document code bytes plus the corrective factors
// (14 bytes of them for 1-bit codes up to 65,535 dims).
func (o *OSQ) CodeSize() int { return o.docCode + osqFloats + o.docSum }

// QueryCodeSize returns the query code bytes plus its corrective factors.
func (o *OSQ) QueryCodeSize() int { return o.qCode + osqFloats + 4 }

// Symmetric reports whether queries are coded like documents.
func (o *OSQ) Symmetric() bool { return o.cfg.Bits == o.cfg.QueryBits }

// BytesPerVector returns CodeSize.
func (o *OSQ) BytesPerVector() float64 { return float64(o.CodeSize()) }

// String describes the quantizer.
func (o *OSQ) String() string {
	return fmt.Sprintf("OSQ %d-bit docs × %d-bit query %v dim=%d λ=%g iters=%d (%d B/vector)",
		o.cfg.Bits, o.cfg.QueryBits, o.metric, o.dim, o.cfg.Lambda, o.cfg.Iters, o.CodeSize())
}

// Encode writes v's document code into dst[:CodeSize()].
func (o *OSQ) Encode(dst []byte, v []float32) error {
	if err := checkInput(v, o.dim, "vector"); err != nil {
		return err
	}
	if err := checkDst(dst, o.CodeSize(), "code"); err != nil {
		return err
	}
	o.encode(dst[:o.CodeSize()], v, o.cfg.Bits, o.docSum)
	return nil
}

// EncodeQuery writes q's query code into dst[:QueryCodeSize()].
func (o *OSQ) EncodeQuery(dst []byte, q []float32) error {
	if err := checkInput(q, o.dim, "query"); err != nil {
		return err
	}
	if err := checkDst(dst, o.QueryCodeSize(), "query code"); err != nil {
		return err
	}
	o.encode(dst[:o.QueryCodeSize()], q, o.cfg.QueryBits, 4)
	return nil
}

func (o *OSQ) encode(dst []byte, v []float32, bits, sumBytes int) {
	s := o.scratch.Get().(*osqScratch)
	defer o.scratch.Put(s)
	lower, upper, add, sumQ := o.quantize(s.q, s.x, v, bits)
	n := len(dst) - osqFloats - sumBytes
	if o.planar {
		bitsx.PackPlanes(dst[:n], s.q, bits, o.words)
	} else {
		copy(dst[:n], s.q)
	}
	putF32(dst[n:], lower)
	putF32(dst[n+4:], upper)
	putF32(dst[n+8:], add)
	if sumBytes == 2 {
		binary.LittleEndian.PutUint16(dst[n+12:], uint16(sumQ))
	} else {
		binary.LittleEndian.PutUint32(dst[n+12:], uint32(sumQ))
	}
}

// quantize follows Lucene OptimizedScalarQuantizer.scalarQuantize: centre
// on the centroid, start from the grid, refine, then assign codes.
func (o *OSQ) quantize(codes []byte, x []float32, v []float32, bits int) (lower, upper, add float32, sumQ int) {
	var centroidDot, norm2 float64
	var mean, m2 float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, vi := range v {
		centroidDot += float64(vi) * float64(o.centroid[i])
		xi := vi - o.centroid[i]
		x[i] = xi
		f := float64(xi)
		lo = min(lo, f)
		hi = max(hi, f)
		norm2 += f * f
		// Welford's running mean and variance.
		d := f - mean
		mean += d / float64(i+1)
		m2 += d * (f - mean)
	}
	std := math.Sqrt(m2 / float64(len(v)))
	g := minimumMSEGrid[bits-1]
	a := min(max(g[0]*std+mean, lo), hi)
	b := min(max(g[1]*std+mean, lo), hi)
	levels := float64(int(1)<<bits - 1)
	if o.cfg.Iters > 0 {
		a, b = optimizeInterval(x, a, b, norm2, levels, o.cfg.Lambda, o.cfg.Iters)
	}
	lower, upper = float32(a), float32(b)
	step := (float64(upper) - float64(lower)) / levels
	for i, xi := range x {
		var q float64
		if step > 0 {
			q = roundHalfUp((min(max(float64(xi), float64(lower)), float64(upper)) - float64(lower)) / step)
		}
		codes[i] = byte(q)
		sumQ += int(q)
	}
	if o.metric == engine.L2 {
		add = float32(norm2)
	} else {
		add = float32(centroidDot)
	}
	return lower, upper, add, sumQ
}

// anisotropicLoss is the loss of quantizing x on the grid over [a, b].
func anisotropicLoss(x []float32, a, b, norm2, levels, lambda float64) float64 {
	step := (b - a) / levels
	var xe, e float64
	for _, xf := range x {
		xi := float64(xf)
		var deq float64
		if step > 0 {
			deq = a + step*roundHalfUp((min(max(xi, a), b)-a)/step)
		} else {
			deq = a
		}
		xe += xi * (xi - deq)
		e += (xi - deq) * (xi - deq)
	}
	return (1-lambda)*xe*xe/norm2 + lambda*e
}

// optimizeInterval runs the coordinate descent of Lucene's
// OptimizedScalarQuantizer.optimizeIntervals: with the assignments k_i
// fixed, dequantized values are (1−s_i)·a + s_i·b (s_i = k_i/levels), and
// the loss is a quadratic in (a, b) whose minimum solves a 2×2 system.
func optimizeInterval(x []float32, a, b, norm2, levels, lambda float64, iters int) (float64, float64) {
	if norm2 == 0 || math.IsInf(norm2, 0) || !(b > a) {
		return a, b
	}
	loss := anisotropicLoss(x, a, b, norm2, levels, lambda)
	scale := (1 - lambda) / norm2
	for it := 0; it < iters; it++ {
		inv := levels / (b - a)
		var daa, dab, dbb, dax, dbx float64
		for _, xf := range x {
			xi := float64(xf)
			k := roundHalfUp((min(max(xi, a), b) - a) * inv)
			s := k / levels
			daa += (1 - s) * (1 - s)
			dab += (1 - s) * s
			dbb += s * s
			dax += xi * (1 - s)
			dbx += xi * s
		}
		m0 := scale*dax*dax + lambda*daa
		m1 := scale*dax*dbx + lambda*dab
		m2 := scale*dbx*dbx + lambda*dbb
		det := m0*m2 - m1*m1
		if det == 0 {
			break
		}
		na := (m2*dax - m1*dbx) / det
		nb := (m0*dbx - m1*dax) / det
		if math.Abs(na-a) < 1e-8 && math.Abs(nb-b) < 1e-8 {
			break
		}
		if !(nb > na) {
			break
		}
		nl := anisotropicLoss(x, na, nb, norm2, levels, lambda)
		if nl > loss {
			break
		}
		a, b, loss = na, nb, nl
	}
	return a, b
}

// Decode writes the dequantized document vector of code into dst (len
// Dim): c_i + a + Δ·q_i, the centroid added back to the point of the
// vector's own grid its code names. Scoring never decodes (it works on the
// codes and the corrective factors); Decode shows what the code keeps.
func (o *OSQ) Decode(dst []float32, code []byte) error {
	if len(dst) != o.dim {
		return fmt.Errorf("quant: decode buffer has %d components, quantizer has %d: %w", len(dst), o.dim, engine.ErrDimension)
	}
	if err := checkDst(code, o.CodeSize(), "code"); err != nil {
		return err
	}
	s := o.scratch.Get().(*osqScratch)
	defer o.scratch.Put(s)
	if o.planar {
		bitsx.UnpackPlanes(s.q, code, o.cfg.Bits, o.words)
	} else {
		copy(s.q, code[:o.dim])
	}
	y := o.side(code, o.docCode, o.docSum, o.cfg.Bits)
	for i := range dst {
		dst[i] = o.centroid[i] + y.a + y.step*float32(s.q[i])
	}
	return nil
}

// factors reads the corrective factors of a code of n code bytes.
func factors(c []byte, n, sumBytes int) (lower, upper, add float32, sum float32) {
	lower = getF32(c[n:])
	upper = getF32(c[n+4:])
	add = getF32(c[n+8:])
	if sumBytes == 2 {
		sum = float32(binary.LittleEndian.Uint16(c[n+12:]))
	} else {
		sum = float32(binary.LittleEndian.Uint32(c[n+12:]))
	}
	return
}

// osqSide is one side's corrective factors, decoded: lower a, step
// Δ = (b − a)/(2^B − 1), additional correction and Σq.
type osqSide struct{ a, step, add, sum float32 }

func (o *OSQ) side(c []byte, n, sumBytes, bits int) osqSide {
	lower, upper, add, sum := factors(c, n, sumBytes)
	return osqSide{lower, (upper - lower) * invLevels[bits], add, sum}
}

// invLevels[b] is 1/(2^b − 1), so decoding a step multiplies.
var invLevels = [9]float32{0, 1, 1.0 / 3, 1.0 / 7, 1.0 / 15, 1.0 / 31, 1.0 / 63, 1.0 / 127, 1.0 / 255}

// Distance estimates the distance between a query code and a document code.
func (o *OSQ) Distance(query, code []byte) float32 {
	return o.distance(o.side(query, o.qCode, 4, o.cfg.QueryBits), query, code)
}

// distance scores a document code against a query whose factors are decoded.
func (o *OSQ) distance(y osqSide, query, code []byte) float32 {
	var dot int64
	switch {
	case !o.planar:
		dot = int64(bitsx.DotBytes(query[:o.dim], code[:o.dim]))
	case o.cfg.Bits == 1 && o.cfg.QueryBits == 4:
		dot = bitsx.Dot1x4(query, code, o.words)
	default:
		dot = bitsx.DotPlanes(code, o.cfg.Bits, query, o.cfg.QueryBits, o.words)
	}
	return o.score(y, o.side(code, o.docCode, o.docSum, o.cfg.Bits), dot)
}

// CodeDistance estimates the distance between two document codes
// (symmetric Bits × Bits arithmetic).
func (o *OSQ) CodeDistance(a, b []byte) float32 {
	var dot int64
	if o.planar {
		if o.cfg.Bits == 1 {
			dot = int64(bitsx.AndPopCount(a[:o.docCode], b[:o.docCode]))
		} else {
			dot = bitsx.DotPlanes(a, o.cfg.Bits, b, o.cfg.Bits, o.words)
		}
	} else {
		dot = int64(bitsx.DotBytes(a[:o.dim], b[:o.dim]))
	}
	return o.score(o.side(a, o.docCode, o.docSum, o.cfg.Bits), o.side(b, o.docCode, o.docSum, o.cfg.Bits), dot)
}

func (o *OSQ) score(y, x osqSide, dot int64) float32 {
	ip := x.a*y.a*float32(o.dim) + y.a*x.step*x.sum + x.a*y.step*y.sum + x.step*y.step*float32(dot)
	switch o.metric {
	case engine.L2:
		return x.add + y.add - 2*ip
	case engine.Dot:
		return -(ip + x.add + y.add - o.cc)
	default:
		return 1 - (ip + x.add + y.add - o.cc)
	}
}

// OSQ body (after the common header; part of the file format; never change):
//
//	u32 dim | u8 metric | u8 bits | u8 queryBits | u8 meanCentroid | f64 lambda | u32 iters (int32) |
//	u32 sampleSize | u32 seedLo | u32 seedHi | dim × f32 centroid

// MarshalBinary writes the parameters and the centroid.
func (o *OSQ) MarshalBinary() ([]byte, error) { return marshal(o.frame()) }

func (o *OSQ) frame() (magic, tag string, body []byte) {
	e := newEncoder(32 + 4*o.dim)
	e.u32(uint32(o.dim))
	e.u8(uint8(o.metric))
	e.u8(uint8(o.cfg.Bits))
	e.u8(uint8(o.cfg.QueryBits))
	e.u8(osqFlags(o.cfg))
	e.f64(o.cfg.Lambda)
	e.u32(uint32(int32(o.cfg.Iters)))
	e.u32(uint32(o.cfg.SampleSize))
	e.u32(uint32(o.cfg.Seed))
	e.u32(uint32(o.cfg.Seed >> 32))
	for _, x := range o.centroid {
		e.f32(x)
	}
	return magicOSQ, tagOSQ, e.b
}

// The flags byte of a stored OSQ. It began as the mean-centroid flag (0
// or 1), so files written before IntSum existed read unchanged.
const (
	flagMeanCentroid = 1 << iota
	flagIntSum
)

func osqFlags(c OSQConfig) uint8 {
	var f uint8
	if c.MeanCentroid {
		f |= flagMeanCentroid
	}
	if c.IntSum {
		f |= flagIntSum
	}
	return f
}

// RestoreOSQ reads an OSQ written by MarshalBinary.
func RestoreOSQ(b []byte) (*OSQ, error) { return restoreOSQ("", b) }

func restoreOSQ(name string, b []byte) (*OSQ, error) {
	d, err := openFile(name, b, magicOSQ, tagOSQ, "OSQ quantizer")
	if err != nil {
		return nil, err
	}
	dim, metric := d.dimMetric()
	var cfg OSQConfig
	cfgAt := d.off
	cfg.Bits = int(d.u8("bits"))
	cfg.QueryBits = int(d.u8("query bits"))
	flagsAt := d.off
	flags := d.u8("flags")
	if d.err == nil && flags&^(flagMeanCentroid|flagIntSum) != 0 {
		d.fail(flagsAt, "flags %#x", flags)
	}
	cfg.MeanCentroid = flags&flagMeanCentroid != 0
	cfg.IntSum = flags&flagIntSum != 0
	cfg.Lambda = d.f64("lambda")
	cfg.Iters = int(int32(d.u32("iters")))
	cfg.SampleSize = int(d.u32("sample size"))
	cfg.Seed = uint64(d.u32("seed")) | uint64(d.u32("seed"))<<32
	if d.err != nil {
		return nil, d.err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("quant: OSQ quantizer: stored config (offset %d): %v: %w", cfgAt, err, engine.ErrCorrupt)
	}
	if cfg.Iters == 0 {
		return nil, fmt.Errorf("quant: OSQ quantizer: stored iters is 0 (offset %d): %w", cfgAt+11, engine.ErrCorrupt)
	}
	if !d.need(4*dim, "centroid") {
		return nil, d.err
	}
	c := make([]float32, dim)
	for i := range c {
		c[i] = d.f32("centroid component")
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return newOSQ(c, metric, cfg)
}

// BoundQuery is an encoded query with its corrective factors decoded once,
// for scanning many document codes (an IVF posting list) without decoding
// them per code. It reads qc, which must not change while it is used.
type BoundQuery struct {
	o  *OSQ
	qc []byte
	y  osqSide
}

// Bind returns qc (from EncodeQuery, QueryCodeSize bytes) bound for scanning.
func (o *OSQ) Bind(qc []byte) (BoundQuery, error) {
	if len(qc) < o.QueryCodeSize() {
		return BoundQuery{}, fmt.Errorf("quant: query code has %d bytes, need %d: %w", len(qc), o.QueryCodeSize(), engine.ErrInvalidArgument)
	}
	return BoundQuery{o: o, qc: qc, y: o.side(qc, o.qCode, 4, o.cfg.QueryBits)}, nil
}

// Distance equals o.Distance(qc, code).
func (b BoundQuery) Distance(code []byte) float32 { return b.o.distance(b.y, b.qc, code) }

// Distances writes to dst[i] the distance to the i-th of len(dst) document
// codes laid end to end in codes, CodeSize bytes each (a posting list's
// slab): exactly what Distance gives for each, with the kernel chosen once
// for the slab instead of once per code.
func (b BoundQuery) Distances(dst []float32, codes []byte) error {
	o := b.o
	cs := o.CodeSize()
	if len(codes) < len(dst)*cs {
		return fmt.Errorf("quant: %d codes of %d bytes need %d bytes, have %d: %w", len(dst), cs, len(dst)*cs, len(codes), engine.ErrInvalidArgument)
	}
	codes = codes[:len(dst)*cs]
	qc, y := b.qc, b.y
	switch {
	case !o.planar:
		dot := bitsx.DotBytes
		q := qc[:o.dim]
		for i := range dst {
			c := codes[i*cs : (i+1)*cs]
			dst[i] = o.score(y, o.side(c, o.docCode, o.docSum, o.cfg.Bits), int64(dot(q, c[:o.dim])))
		}
	case o.cfg.QueryBits == 4:
		// Bit-plane codes against a 4-bit query (BBQ and DiskBBQ): the
		// integer dot products of a block of codes in one kernel call,
		// into pooled scratch (the kernel is a func value, so a local
		// array would escape), then the corrections, decoded inline as
		// side does.
		sc := o.scratch.Get().(*osqScratch)
		defer o.scratch.Put(sc)
		dots := sc.dots[:]
		xb, n, sb := o.cfg.Bits, o.docCode, o.docSum
		inv := invLevels[xb]
		for lo := 0; lo < len(dst); lo += len(dots) {
			m := min(len(dots), len(dst)-lo)
			bitsx.DotQ4Batch(dots[:m], codes[lo*cs:], cs, xb, qc, o.words)
			for t, dot := range dots[:m] {
				c := codes[(lo+t)*cs : (lo+t+1)*cs]
				lower, upper, add, sum := factors(c, n, sb)
				dst[lo+t] = o.score(y, osqSide{lower, (upper - lower) * inv, add, sum}, dot)
			}
		}
	default:
		dot, words, xb, qb := bitsx.DotPlanes, o.words, o.cfg.Bits, o.cfg.QueryBits
		for i := range dst {
			c := codes[i*cs : (i+1)*cs]
			dst[i] = o.score(y, o.side(c, o.docCode, o.docSum, xb), dot(c, xb, qc, qb, words))
		}
	}
	return nil
}
