package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Binary is Qdrant's binary quantization (qdrant/qdrant v1.18,
// lib/quantization/src/encoded_vectors_binary.rs and vector_stats.rs): no
// centroid and no corrective factors, only bits compared with XOR and
// popcount.
//
//   - one_bit: a component's bit is set when it is positive (the sign of
//     the raw component: Qdrant centres nothing).
//   - two_bits: each component is placed by its z-score against the
//     collection's per-dimension mean and sample standard deviation
//     (Welford, n − 1) into one of three ranges, written as a thermometer
//     code: 00 at or below −2/3 σ, 10 inside (−2/3 σ, 2/3 σ), 11 at or
//     above 2/3 σ. The first bits fill positions 0…dim−1, the second bits
//     dim…2·dim−1. A dimension whose σ is below float32's epsilon falls
//     back to the sign bit and a zero second bit.
//   - one_and_half_bits: two_bits with the second bits of components 2j
//     and 2j+1 OR-ed into one, at position dim + j.
//
// A query is encoded as a document (query_encoding same_as_storage, the
// default), and the score is the number of differing bits; or, with
// scalar4bits / scalar8bits, the query (extended as the code is: twice
// for two_bits, the pairwise maxima for one_and_half_bits) is quantized
// uniformly over [−max|q|, max|q|] to 2^b − 1 levels, and each code bit c
// scores |c·(2^b−1) − level| / (2^b−1), summed (Qdrant's transposed
// bit-plane form, the same sum).
//
// Distance is Qdrant's Dot score negated: 2·x − dim for x differing bits
// (its calculate_metric: zeros − x with zeros = dim − x). It orders
// documents as Qdrant does under every metric; it is not an estimate of
// the metric's value, so it must not be mixed with exact distances
// (rescore with the float vectors, as Qdrant does).
type Binary struct {
	dim    int
	metric engine.Metric
	cfg    BinaryConfig
	mean   []float32 // per dimension; nil for one_bit with a same_as_storage query
	stddev []float32
	nbits  int // code bits: dim, ⌈1.5·dim⌉ or 2·dim
	words  int // 64-bit words of a document code
}

// BinaryEncoding is the storage encoding of [Binary], named as Qdrant's
// BinaryQuantization "encoding" field.
type BinaryEncoding uint8

// The encodings.
const (
	OneBit BinaryEncoding = iota
	OneAndHalfBits
	TwoBits
)

var binaryEncodingNames = [...]string{"one_bit", "one_and_half_bits", "two_bits"}

func (e BinaryEncoding) String() string {
	if int(e) < len(binaryEncodingNames) {
		return binaryEncodingNames[e]
	}
	return fmt.Sprintf("BinaryEncoding(%d)", uint8(e))
}

// BinaryQueryEncoding is how [Binary] encodes a query, named as Qdrant's
// "query_encoding" field.
type BinaryQueryEncoding uint8

// The query encodings.
const (
	SameAsStorage BinaryQueryEncoding = iota
	Scalar4Bits
	Scalar8Bits
)

var binaryQueryNames = [...]string{"same_as_storage", "scalar4bits", "scalar8bits"}

func (e BinaryQueryEncoding) String() string {
	if int(e) < len(binaryQueryNames) {
		return binaryQueryNames[e]
	}
	return fmt.Sprintf("BinaryQueryEncoding(%d)", uint8(e))
}

// BinaryConfig configures [TrainBinary]; the zero value is Qdrant's
// default (one_bit, same_as_storage).
type BinaryConfig struct {
	Encoding BinaryEncoding
	Query    BinaryQueryEncoding
}

// Validate reports an unknown encoding.
func (c BinaryConfig) Validate() error {
	if int(c.Encoding) >= len(binaryEncodingNames) {
		return fmt.Errorf("quant: binary encoding %d unknown (one_bit, one_and_half_bits, two_bits): %w", c.Encoding, engine.ErrInvalidArgument)
	}
	if int(c.Query) >= len(binaryQueryNames) {
		return fmt.Errorf("quant: binary query encoding %d unknown (same_as_storage, scalar4bits, scalar8bits): %w", c.Query, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration as Qdrant's JSON names it.
func (c BinaryConfig) String() string {
	return fmt.Sprintf("encoding=%s query_encoding=%s", c.Encoding, c.Query)
}

// ParseBinaryEncoding reads an encoding by Qdrant's name or by its bits
// ("1", "1.5", "2").
func ParseBinaryEncoding(s string) (BinaryEncoding, error) {
	switch s {
	case "one_bit", "1":
		return OneBit, nil
	case "one_and_half_bits", "1.5":
		return OneAndHalfBits, nil
	case "two_bits", "2":
		return TwoBits, nil
	}
	return 0, fmt.Errorf("quant: binary encoding %q unknown (one_bit, one_and_half_bits, two_bits): %w", s, engine.ErrInvalidArgument)
}

// needsStats reports whether the encoding reads the per-dimension
// statistics (Qdrant computes them for two_bits and one_and_half_bits
// only, and for a scalar query; the scalar query does not use them).
func (c BinaryConfig) needsStats() bool { return c.Encoding != OneBit }

// TrainBinary computes the per-dimension mean and sample standard
// deviation of every vector of sample (not a subsample: Qdrant's
// VectorStats::build reads them all), under Cosine of the unit-normalised
// vectors, which Qdrant stores for a Cosine collection.
func TrainBinary(sample *vec.Matrix, metric engine.Metric, cfg BinaryConfig) (*Binary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if sample != nil && !cfg.needsStats() {
		// one_bit with the query coded alike learns nothing: the rows
		// are only checked, not copied (under Cosine trainingRows would
		// hold a normalised copy of every one).
		if _, err := trainingRows(&vec.Matrix{N: min(sample.N, minTrain), Dim: sample.Dim, Stride: sample.Stride, Data: sample.Data}, metric, 0, 0); err != nil {
			return nil, err
		}
		for i := minTrain; i < sample.N; i++ {
			if err := engine.CheckVector(sample.Row(i), sample.Dim, metric); err != nil {
				return nil, fmt.Errorf("training vector %d: %w", i, err)
			}
		}
		return newBinary(sample.Dim, metric, cfg, nil, nil)
	}
	rows, err := trainingRows(sample, metric, 0, 0)
	if err != nil {
		return nil, err
	}
	dim := sample.Dim
	var mean, sd []float32
	{
		// Welford in float64, as VectorStatsBuilder.
		m := make([]float64, dim)
		m2 := make([]float64, dim)
		for n, r := range rows {
			cnt := float64(n + 1)
			for i, x := range r {
				d := float64(x) - m[i]
				m[i] += d / cnt
				m2[i] += d * (float64(x) - m[i])
			}
		}
		mean, sd = make([]float32, dim), make([]float32, dim)
		for i := range m {
			mean[i] = float32(m[i])
			if len(rows) > 1 {
				sd[i] = float32(math.Sqrt(m2[i] / float64(len(rows)-1)))
			}
		}
	}
	return newBinary(dim, metric, cfg, mean, sd)
}

func newBinary(dim int, metric engine.Metric, cfg BinaryConfig, mean, sd []float32) (*Binary, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("quant: binary quantizer dimension %d: %w", dim, engine.ErrDimension)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.needsStats() && (len(mean) != dim || len(sd) != dim) {
		return nil, fmt.Errorf("quant: binary %s needs %d means and standard deviations, got %d and %d: %w", cfg.Encoding, dim, len(mean), len(sd), engine.ErrInvalidArgument)
	}
	b := &Binary{dim: dim, metric: metric, cfg: cfg, mean: mean, stddev: sd}
	switch cfg.Encoding {
	case OneBit:
		b.nbits = dim
	case OneAndHalfBits:
		b.nbits = (3*dim + 1) / 2
	case TwoBits:
		b.nbits = 2 * dim
	}
	b.words = (b.nbits + 63) / 64
	return b, nil
}

// Dim returns the dimension of the vectors it encodes.
func (b *Binary) Dim() int { return b.dim }

// Metric returns the metric it was trained under.
func (b *Binary) Metric() engine.Metric { return b.metric }

// Config returns its configuration.
func (b *Binary) Config() BinaryConfig { return b.cfg }

// CodeSize is the code's bits in whole 64-bit words.
func (b *Binary) CodeSize() int { return 8 * b.words }

// queryBits is the bits of one query level: 1 for same_as_storage.
func (b *Binary) queryBits() int {
	switch b.cfg.Query {
	case Scalar4Bits:
		return 4
	case Scalar8Bits:
		return 8
	}
	return 1
}

// QueryCodeSize is one bit-plane per query bit, each the size of a code.
func (b *Binary) QueryCodeSize() int { return b.queryBits() * b.CodeSize() }

// Symmetric reports whether a query code is a document code.
func (b *Binary) Symmetric() bool { return b.cfg.Query == SameAsStorage }

// BytesPerVector is what Qdrant stores per vector: the bits in u128 words
// above 128 bits, else in the smallest of u64, u32 or u8 words that holds
// them (BitsStoreType::get_storage_size for u8 and u128).
func (b *Binary) BytesPerVector() float64 {
	word := 1
	switch {
	case b.nbits > 128:
		word = 16
	case b.nbits > 64:
		word = 8
	case b.nbits > 32:
		word = 4
	}
	return float64(word * ((b.nbits + 8*word - 1) / (8 * word)))
}

func (b *Binary) String() string {
	return fmt.Sprintf("Qdrant binary %s (query %s), dim %d, %s, %.0f B", b.cfg.Encoding, b.cfg.Query, b.dim, b.metric, b.BytesPerVector())
}

// twoBits returns component i's thermometer bits (encode_two_bits_value).
func (b *Binary) twoBits(v float32, i int) (bool, bool) {
	sd := b.stddev[i]
	if sd < epsilon32 {
		return v > 0, false
	}
	z := (v - b.mean[i]) / sd
	const sigmas = float32(2.0 / 3.0)
	switch {
	case z <= -sigmas:
		return false, false
	case z < sigmas:
		return true, false
	}
	return true, true
}

// epsilon32 is Rust's f32::EPSILON (2^-23).
const epsilon32 = float32(1.0 / (1 << 23))

func setBit(dst []byte, i int) { dst[i>>3] |= 1 << (i & 7) }

func (b *Binary) encodeBits(dst []byte, v []float32) {
	clear(dst[:b.CodeSize()])
	switch b.cfg.Encoding {
	case OneBit:
		for i, x := range v {
			if x > 0 {
				setBit(dst, i)
			}
		}
	case TwoBits, OneAndHalfBits:
		for i, x := range v {
			b1, b2 := b.twoBits(x, i)
			if b1 {
				setBit(dst, i)
			}
			if b2 {
				j := b.dim + i
				if b.cfg.Encoding == OneAndHalfBits {
					j = b.dim + i/2
				}
				setBit(dst, j)
			}
		}
	}
}

// Encode writes v's code into dst[:CodeSize()]. Under Cosine v must be
// unit-normalised (the engine normalises on insert).
func (b *Binary) Encode(dst []byte, v []float32) error {
	if err := checkInput(v, b.dim, "vector"); err != nil {
		return err
	}
	if err := checkDst(dst, b.CodeSize(), "code"); err != nil {
		return err
	}
	b.encodeBits(dst, v)
	return nil
}

// EncodeQuery writes q's query code into dst[:QueryCodeSize()].
func (b *Binary) EncodeQuery(dst []byte, q []float32) error {
	if err := checkInput(q, b.dim, "query"); err != nil {
		return err
	}
	if err := checkDst(dst, b.QueryCodeSize(), "query code"); err != nil {
		return err
	}
	if b.cfg.Query == SameAsStorage {
		b.encodeBits(dst, q)
		return nil
	}
	// The query extended as the code is (encode_scalar_query_vector).
	ext := make([]float32, 0, b.nbits)
	ext = append(ext, q...)
	switch b.cfg.Encoding {
	case TwoBits:
		ext = append(ext, q...)
	case OneAndHalfBits:
		for i := 0; i < len(q); i += 2 {
			m := q[i]
			if i+1 < len(q) {
				m = max(q[i], q[i+1])
			}
			ext = append(ext, m)
		}
	}
	var maxAbs float32
	for _, x := range q {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	qb := b.queryBits()
	ranges := float32(int(1)<<qb - 1)
	delta := 2 * maxAbs / ranges
	size := b.CodeSize()
	clear(dst[:b.QueryCodeSize()])
	for i, x := range ext {
		var lvl int
		if delta > epsilon32 {
			// Rust's f32::round rounds half away from zero; x + maxAbs ≥ 0.
			lvl = int(math.Floor(float64((x+maxAbs)/delta) + 0.5))
		}
		lvl %= int(ranges) + 1
		for p := 0; p < qb; p++ {
			if lvl>>p&1 == 1 {
				setBit(dst[p*size:], i)
			}
		}
	}
	return nil
}

// xor counts the bits in which two codes differ.
func xorCount(a, c []byte, words int) int {
	n := 0
	for w := 0; w < words; w++ {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(a[8*w:]) ^ binary.LittleEndian.Uint64(c[8*w:]))
	}
	return n
}

// Distance is Qdrant's score negated: 2·x − dim for x differing bits (a
// scalar query's x is Σ_p popcount(code ⊕ plane_p)·2^p / (2^b − 1)).
func (b *Binary) Distance(query, code []byte) float32 {
	qb := b.queryBits()
	if qb == 1 {
		return float32(2*xorCount(query, code, b.words) - b.dim)
	}
	size := b.CodeSize()
	s := 0
	for p := 0; p < qb; p++ {
		s += xorCount(query[p*size:], code, b.words) << p
	}
	x := float32(s) / float32(int(1)<<qb-1)
	return 2*x - float32(b.dim)
}

// CodeDistance scores two document codes as a same_as_storage query would.
func (b *Binary) CodeDistance(a, c []byte) float32 {
	return float32(2*xorCount(a, c, b.words) - b.dim)
}

// MarshalBinary returns the quantizer's parameters (see the package doc).
func (b *Binary) MarshalBinary() ([]byte, error) { return marshal(b.frame()) }

func (b *Binary) frame() (magic, tag string, body []byte) {
	e := newEncoder(8 + 8*len(b.mean))
	e.u32(uint32(b.dim))
	e.u8(uint8(b.metric))
	e.u8(uint8(b.cfg.Encoding))
	e.u8(uint8(b.cfg.Query))
	e.u8(0)
	for i := range b.mean {
		e.f32(b.mean[i])
		e.f32(b.stddev[i])
	}
	return magicBinary, tagBinary, e.b
}

// RestoreBinary reads a binary quantizer written by MarshalBinary.
func RestoreBinary(b []byte) (*Binary, error) { return restoreBinary("", b) }

func restoreBinary(name string, b []byte) (*Binary, error) {
	d, err := openFile(name, b, magicBinary, tagBinary, "binary quantizer")
	if err != nil {
		return nil, err
	}
	dim, metric := d.dimMetric()
	at := d.off
	cfg := BinaryConfig{Encoding: BinaryEncoding(d.u8("encoding"))}
	cfg.Query = BinaryQueryEncoding(d.u8("query encoding"))
	if d.err == nil {
		if err := cfg.Validate(); err != nil {
			d.fail(at, "%v", err)
		}
	}
	at = d.off
	if r := d.u8("reserved"); d.err == nil && r != 0 {
		d.fail(at, "reserved byte is %d", r)
	}
	var mean, sd []float32
	if d.err == nil && cfg.needsStats() {
		if !d.need(8*dim, "statistics") {
			return nil, d.err
		}
		mean, sd = make([]float32, dim), make([]float32, dim)
		for i := range mean {
			mean[i] = d.f32("mean")
			at = d.off
			sd[i] = d.f32("standard deviation")
			if d.err == nil && sd[i] < 0 {
				d.fail(at, "standard deviation %v of dimension %d is negative", sd[i], i)
			}
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return newBinary(dim, metric, cfg, mean, sd)
}
