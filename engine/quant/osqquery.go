package quant

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/bitsx"
	"github.com/veclab/veclab/engine/internal/f32"
)

// QueryEncoder encodes one query against many OSQ quantizers of its
// dimension: the per-list quantizers of an IVF index, each around its own
// centroid, where DiskBBQ quantizes the query residual once per visited
// list (elastic/elasticsearch …/diskbbq/ES920DiskBBQVectorsReader.java,
// MemorySegmentPostingsVisitor.quantizeQueryIfNecessary, on first use of a
// posting list). The query is checked once, by Reset; Encode then costs a
// few passes over its components:
//
//  1. one pass centres the query on the quantizer's centroid and gathers
//     the sum, minimum and maximum, and the SIMD dot kernel gives ‖q − c‖²
//     and ⟨q, c⟩: the statistics OSQ needs (Elasticsearch's
//     ESVectorUtil.centerAndCalculateOSQStats* gathers them in one pass);
//  2. the interval starts from the minimum-MSE grid scaled by the standard
//     deviation, as in [OSQ.EncodeQuery], and is refined by at most Iters
//     coordinate-descent steps of the anisotropic loss — DiskBBQ builds
//     its query quantizer with one step (new OptimizedScalarQuantizer(
//     similarity, DEFAULT_LAMBDA, 1) in that reader), where documents get
//     Lucene's five; with Iters 0 the grid interval is used as is;
//  3. one pass assigns the codes and their sum, and the bit-planes are
//     packed eight components at a time.
//
// Codes are those of EncodeQuery up to the interval (fewer or no
// refinement steps) and the rounding of the interval statistics (plain
// sums instead of Welford's recurrence); they follow the same layout and
// are scored with [OSQ.Distance] or [OSQ.Bind]. Same query, same bytes.
//
// A QueryEncoder is not safe for concurrent use; an index keeps one per
// searcher. Its steady state allocates nothing.
type QueryEncoder struct {
	dim   int
	iters int
	q     []float32 // the checked query (aliased from Reset; not modified)
	x     []float32 // residual scratch
	codes []byte    // per-component codes scratch
}

// NewQueryEncoder returns an encoder for dim-dimensional queries that
// refines each query interval by at most iters coordinate-descent steps
// (0: the minimum-MSE grid interval, no refinement; at most 100).
func NewQueryEncoder(dim, iters int) (*QueryEncoder, error) {
	if dim < 1 {
		return nil, fmt.Errorf("quant: query encoder of %d dimensions: %w", dim, engine.ErrDimension)
	}
	if iters < 0 || iters > 100 {
		return nil, fmt.Errorf("quant: query encoder iters %d (want 0…100): %w", iters, engine.ErrInvalidArgument)
	}
	return &QueryEncoder{dim: dim, iters: iters, x: make([]float32, dim), codes: make([]byte, dim)}, nil
}

// Iters returns the refinement steps per encoding.
func (e *QueryEncoder) Iters() int { return e.iters }

// Reset checks q (its length and that every component is finite) and
// makes it the query later Encode calls encode. q is read, not copied: it
// must not change until the next Reset. Under Cosine q must already be
// unit-normalised, as for EncodeQuery.
func (e *QueryEncoder) Reset(q []float32) error {
	e.q = nil
	if err := checkInput(q, e.dim, "query"); err != nil {
		return err
	}
	e.q = q
	return nil
}

// Encode writes the query's code for quantizer o into dst[:o.QueryCodeSize()].
func (e *QueryEncoder) Encode(dst []byte, o *OSQ) error {
	if e.q == nil {
		return fmt.Errorf("quant: query encoder has no query (call Reset): %w", engine.ErrInvalidArgument)
	}
	if o.dim != e.dim {
		return fmt.Errorf("quant: query of %d components, quantizer has %d: %w", e.dim, o.dim, engine.ErrDimension)
	}
	if err := checkDst(dst, o.QueryCodeSize(), "query code"); err != nil {
		return err
	}
	e.encode(dst[:o.QueryCodeSize()], o)
	return nil
}

func (e *QueryEncoder) encode(dst []byte, o *OSQ) {
	bits := o.cfg.QueryBits
	q, c, x := e.q, o.centroid[:len(e.q)], e.x[:len(e.q)]
	// 1. Centre and gather the statistics in one pass.
	// The loop keeps what needs a comparison or the residual itself (two
	// partial sums, no loop-carried float64 chain); the two inner products
	// go to the SIMD dot kernel. (Comparisons, not the builtin min and
	// max, whose NaN and signed-zero rules cost several instructions: the
	// query is finite.)
	var s0, s1 float32
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	i := 0
	for ; i+2 <= len(q); i += 2 {
		x0, x1 := q[i]-c[i], q[i+1]-c[i+1]
		x[i], x[i+1] = x0, x1
		if x0 < lo {
			lo = x0
		}
		if x0 > hi {
			hi = x0
		}
		if x1 < lo {
			lo = x1
		}
		if x1 > hi {
			hi = x1
		}
		s0 += x0
		s1 += x1
	}
	if i < len(q) {
		x0 := q[i] - c[i]
		x[i] = x0
		lo, hi = min(lo, x0), max(hi, x0)
		s0 += x0
	}
	sum := float64(s0) + float64(s1)
	sumSq := float64(f32.Dot(x, x))
	cdot := float64(f32.Dot(q, c))
	n := float64(len(q))
	mean := sum / n
	std := math.Sqrt(max(0, sumSq/n-mean*mean))
	// 2. The grid interval, optionally refined.
	g := minimumMSEGrid[bits-1]
	a := min(max(g[0]*std+mean, float64(lo)), float64(hi))
	b := min(max(g[1]*std+mean, float64(lo)), float64(hi))
	levels := float64(int(1)<<bits - 1)
	if e.iters > 0 {
		a, b = optimizeInterval(x, a, b, sumSq, levels, o.cfg.Lambda, e.iters)
	}
	lower, upper := float32(a), float32(b)
	// 3. Codes and their sum.
	codes := e.codes[:len(q)]
	sumQ := 0
	if step := (upper - lower) / float32(levels); step > 0 {
		// (v ≥ 0.5 after clamping, so truncation is floor(v): round half up.)
		inv, top := 1/step, int32(levels)
		for i, xi := range x {
			if xi < lower {
				xi = lower
			} else if xi > upper {
				xi = upper
			}
			k := int32((xi-lower)*inv + 0.5)
			if k > top {
				k = top
			}
			codes[i] = byte(k)
			sumQ += int(k)
		}
	} else {
		clear(codes)
	}
	cn := len(dst) - osqFloats - 4
	if o.planar {
		bitsx.PackPlanes(dst[:cn], codes, bits, o.words)
	} else {
		copy(dst[:cn], codes)
	}
	add := float32(cdot)
	if o.metric == engine.L2 {
		add = float32(sumSq)
	}
	putF32(dst[cn:], lower)
	putF32(dst[cn+4:], upper)
	putF32(dst[cn+8:], add)
	binary.LittleEndian.PutUint32(dst[cn+12:], uint32(sumQ))
}
